"""`dbstudio score TABLE`: score a verdict table (CSV or xlsx) exactly as the paper does."""

from __future__ import annotations

import argparse
import json
import sys

from studio.scoring import score_table
from studio.scoring.engine import ScoringError
from studio.scoring.report import to_json, to_text
from studio.scoring.table import VerdictTableError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("score", help="score a verdict table (CSV or xlsx)")
    parser.add_argument("table", help="CSV or xlsx with columns project, system, scope, criterion, weight, target, dimension, verdict[, gate, requires]")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        scores = score_table(args.table)
    except VerdictTableError as exc:
        print(str(exc), file=sys.stderr)
        print(f"{len(exc.problems)} bad row(s); nothing was scored", file=sys.stderr)
        return 1
    except ScoringError as exc:
        print(f"{args.table}: {exc}; nothing was scored", file=sys.stderr)
        return 1
    print(json.dumps(to_json(scores), indent=2) if args.json else to_text(scores))
    return 0
