"""`dbstudio review PATH` and `dbstudio impact PATH --changed ITEM`."""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.review import impact_of, review_project
from studio.review.impact import UnknownItemError
from studio.store import layout
from studio.store.loader import load_project
from studio.validation import NotAProjectError, Severity


def configure_review(review: argparse.ArgumentParser) -> None:
    review.add_argument("path", help="the project folder")
    add_format_option(review)
    review.add_argument("--min-severity", choices=[s.value for s in Severity], default="info",
                        help="hide findings below this severity (text output)")
    review.set_defaults(run=run_review)


def configure_impact(impact: argparse.ArgumentParser) -> None:
    impact.add_argument("path", help="the project folder")
    impact.add_argument("--changed", required=True, help="material id, subtask id, or subtask output SUBTASK:PATH")
    add_format_option(impact)
    impact.set_defaults(run=run_impact)


def run_review(args: argparse.Namespace) -> int:
    try:
        report = review_project(args.path)
    except NotAProjectError as exc:
        print(f"dbstudio review: {exc}", file=sys.stderr)
        return ExitCode.UNUSABLE
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        floor = Severity(args.min_severity).rank
        for f in report.findings:
            if f.severity.rank <= floor:
                print(f"{f.render().split(': ', 1)[0]}: {f.severity.value} [{f.code}] {f.message}")
        counts = ", ".join(f"{report.count(s)} {s.value}{'s' if report.count(s) != 1 else ''}" for s in Severity)
        print(counts, file=sys.stderr)
    return ExitCode.PROBLEMS if report.has_errors else ExitCode.OK


def run_impact(args: argparse.Namespace) -> int:
    if (problem := layout.not_a_project(args.path)) is not None:
        print(f"dbstudio impact: {problem}", file=sys.stderr)
        return ExitCode.UNUSABLE
    try:
        report = impact_of(load_project(args.path), args.changed)
    except UnknownItemError as exc:
        print(f"dbstudio impact: {exc}", file=sys.stderr)
        return ExitCode.UNUSABLE
    print(json.dumps(report.to_json(), indent=2) if args.format == "json" else report.render())
    return ExitCode.OK
