"""`dbstudio exposure PATH`: the points of each rubric that hang on every material and output."""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.store import layout


def share(value: str) -> float:
    """argparse type of --flag-share: a share of the final score, 0 to 1."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number: give a share such as 0.1") from None
    if not 0 <= number <= 1:
        raise argparse.ArgumentTypeError(f"{value} is not a share between 0 and 1 (0.1 is 10% of the final score)")
    return number


def configure(parser: argparse.ArgumentParser) -> None:
    from studio.review.exposure import DEFAULT_FLAG_SHARE

    parser.add_argument("path", help="the project folder")
    add_format_option(parser)
    parser.add_argument("--flag-share", type=share, default=DEFAULT_FLAG_SHARE, metavar="SHARE",
                        help=f"flag an item on which more than this share of the final score hangs "
                             f"(default {DEFAULT_FLAG_SHARE})")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from studio.review.exposure import exposure_of
    from studio.store.loader import load_project

    if (problem := layout.not_a_project(args.path)) is not None:
        print(f"dbstudio exposure: {problem}", file=sys.stderr)
        return ExitCode.UNUSABLE
    loaded = load_project(args.path)
    report = exposure_of(loaded.project, args.flag_share)
    # A file that does not load is missing from the graph or the rubrics: the figures would be
    # too low without a word, so say which files were left out and exit as for problems found.
    left_out = sorted({problem.file for problem in loaded.problems})
    if args.format == "json":
        print(json.dumps(report.to_json() | {"left_out": left_out}, indent=2))
    else:
        print(report.render())
        print(f"{len(report.flagged)} of {len(report.items)} items flagged", file=sys.stderr)
    for file in left_out:
        print(f"dbstudio exposure: {file} does not load and is left out of these figures "
              f"(dbstudio validate {args.path} says why)", file=sys.stderr)
    return ExitCode.PROBLEMS if left_out else ExitCode.OK
