"""`dbstudio schemas [--check]`: write (or check) the JSON Schemas in schemas/.

`--check` compares the models with the schemas this version ships (inside the installed
package, or the checkout's schemas/); writing them only makes sense in a source checkout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from studio import bundled
from studio.model.schemas import schema_texts
from studio.store.atomic import write_atomic


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("schemas", help="regenerate the JSON Schemas of project files")
    parser.add_argument("--out", help="folder to write or check (default: the checkout's schemas/ when writing, "
                        "the shipped schemas with --check)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the files differ from the models")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = _folder(args)
    if out is None:
        print("dbstudio schemas: this is an installed copy, not a source checkout: "
              "pass --out FOLDER to write the schemas somewhere", file=sys.stderr)
        return 2
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
        return 1 if stale else 0
    print(f"{len(stale)} schema file(s) written to {out}" if stale else f"schemas in {out} are up to date")
    return 0


def _folder(args: argparse.Namespace) -> Path | None:
    if args.out:
        return Path(args.out)
    if args.check:
        return bundled.schemas_dir()
    checkout = bundled.source_checkout()
    return checkout / "schemas" if checkout is not None else None
