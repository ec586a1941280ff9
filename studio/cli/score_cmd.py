"""`dbstudio score TABLE`: score a verdict table (CSV or xlsx) exactly as the paper does."""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option, table_file
from studio.scoring import score_table
from studio.scoring.engine import ScoringError
from studio.scoring.report import to_json, to_text
from studio.scoring.table import VerdictTableError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", type=table_file, help="CSV or xlsx with columns project, system, scope, criterion, "
                                                       "weight, target, dimension, verdict[, gate, requires]")
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        scores = score_table(args.table)
    except VerdictTableError as exc:
        print(str(exc), file=sys.stderr)
        print(f"{len(exc.problems)} bad row(s); nothing was scored", file=sys.stderr)
        return ExitCode.PROBLEMS
    except ScoringError as exc:
        print(f"{args.table}: {exc}; nothing was scored", file=sys.stderr)
        return ExitCode.PROBLEMS
    print(json.dumps(to_json(scores), indent=2) if args.format == "json" else to_text(scores))
    return ExitCode.OK
