"""Options shared by several commands, so each spells them the same way."""

from __future__ import annotations

import argparse
from pathlib import Path

FORMATS = ("text", "json")


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """`--format text|json`, with `--json` kept as an alias for scripts written before `--format`."""
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")


def table_file(value: str) -> str:
    """argparse type of a table argument: a missing file is unusable input (exit 2), not a bad row."""
    path = Path(value)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value} is a folder: give the CSV or xlsx file")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{value}: no such file")
    return value
