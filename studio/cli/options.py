"""Options shared by several commands, so each spells them the same way."""

from __future__ import annotations

import argparse

FORMATS = ("text", "json")


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """`--format text|json`, with `--json` kept as an alias for scripts written before `--format`."""
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
