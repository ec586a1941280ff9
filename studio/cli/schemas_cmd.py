"""`dbstudio schemas [--check]`: write (or check) the JSON Schemas in schemas/.

`--check` compares the models with the schemas this version ships (inside the installed
package, or the checkout's schemas/); writing them only makes sense in a source checkout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from studio import bundled
from studio.cli.exit_codes import ExitCode
from studio.model.schemas import schema_texts
from studio.store.atomic import write_atomic


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", help="folder to write or check (default: the checkout's schemas/ when writing, "
                        "the shipped schemas with --check)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the files differ from the models")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = _folder(args)
    if out is None:
        print("dbstudio schemas: this is an installed copy, not a source checkout: "
              "pass --out FOLDER to write the schemas somewhere", file=sys.stderr)
        return ExitCode.UNUSABLE
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


def _folder(args: argparse.Namespace) -> Path | None:
    if args.out:
        return Path(args.out)
    if args.check:
        return bundled.schemas_dir()
    checkout = bundled.source_checkout()
    return checkout / "schemas" if checkout is not None else None
