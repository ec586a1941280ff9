"""`dbstudio validate PATH`: schema and reference checks over a project folder."""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.validation.findings import Severity
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
    # Warnings (a comment thread whose target is gone) are shown but do not fail the check.
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if args.format == "json":
        print(json.dumps({"project": str(args.path), "findings": [f.to_json() for f in findings]}, indent=2))
    else:
        for finding in findings:
            print(finding.render() if finding.severity is Severity.ERROR else
                  f"{finding.place}:{finding.column}: {finding.severity.value}: {finding.message}")
        if errors:
            print(f"{len(errors)} problem{'s' if len(errors) != 1 else ''} found", file=sys.stderr)
        else:
            print(summary(loaded))
    return ExitCode.PROBLEMS if errors else ExitCode.OK
