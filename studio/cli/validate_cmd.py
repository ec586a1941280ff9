"""`dbstudio validate PATH`: schema and reference checks over a project folder."""

from __future__ import annotations

import argparse
import json
import sys

from studio.validation import NotAProjectError, validate_project

EXIT_CLEAN, EXIT_PROBLEMS, EXIT_UNUSABLE = 0, 1, 2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("validate", help="check a project folder for schema and reference problems")
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        findings = validate_project(args.path)
    except NotAProjectError as exc:
        print(f"dbstudio validate: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    if args.format == "json":
        print(json.dumps({"project": str(args.path), "findings": [f.to_json() for f in findings]}, indent=2))
    else:
        for finding in findings:
            print(finding.render())
        if findings:
            print(f"{len(findings)} problem{'s' if len(findings) != 1 else ''} found", file=sys.stderr)
    return EXIT_PROBLEMS if findings else EXIT_CLEAN
