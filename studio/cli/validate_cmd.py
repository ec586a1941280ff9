"""`dbstudio validate PATH`: schema and reference checks over a project folder."""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.validation.validate import NotAProjectError, load_folder, summary, validate_loaded


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        loaded = load_folder(args.path)
    except NotAProjectError as exc:
        print(f"dbstudio validate: {exc}", file=sys.stderr)
        return ExitCode.UNUSABLE
    findings = validate_loaded(loaded)
    if args.format == "json":
        print(json.dumps({"project": str(args.path), "findings": [f.to_json() for f in findings]}, indent=2))
    else:
        for finding in findings:
            print(finding.render())
        if findings:
            print(f"{len(findings)} problem{'s' if len(findings) != 1 else ''} found", file=sys.stderr)
        else:
            print(summary(loaded))
    return ExitCode.PROBLEMS if findings else ExitCode.OK
