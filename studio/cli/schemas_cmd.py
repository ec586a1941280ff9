"""`dbstudio schemas [--check]`: write (or check) the JSON Schemas in schemas/."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from studio.cli.exit_codes import ExitCode
from studio.model.schemas import schema_texts
from studio.store.atomic import write_atomic

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "schemas"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default=str(DEFAULT_DIR), help="folder to write (default: the repository's schemas/)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the files differ from the models")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"dbstudio schemas: {out} is a file, not a folder: give --out a folder", file=sys.stderr)
        return ExitCode.UNUSABLE
    stale = []
    for name, text in schema_texts().items():
        path = out / name
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        stale.append(name)
        if not args.check:
            write_atomic(path, text.encode("utf-8"))
    if args.check:
        for name in stale:
            print(f"{out / name}: out of date with the models: run `dbstudio schemas`", file=sys.stderr)
        return ExitCode.PROBLEMS if stale else ExitCode.OK
    print(f"{len(stale)} schema file(s) written to {out}" if stale else f"schemas in {out} are up to date")
    return ExitCode.OK
