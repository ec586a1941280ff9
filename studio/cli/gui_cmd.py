"""`dbstudio gui [PATH]`: open the desktop app (the default when no command is given)."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help="project folder to open; default: your copy of the sample project")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # Imported here so that every other command works without Qt installed.
    from studio.gui.app import run_app

    return run_app(args.path)
