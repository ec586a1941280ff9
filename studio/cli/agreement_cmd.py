"""`dbstudio agreement TABLE`: judge–expert agreement with chance-corrected coefficients."""

from __future__ import annotations

import argparse
import json
import sys

from studio.agreement import Analysis, RatingTableError, read_rating_table


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("agreement", help="agreement between a judge and experts (or any raters)")
    parser.add_argument("table", help="CSV or xlsx with columns criterion, item, rater, verdict[, target, dimension, project]")
    parser.add_argument("--judge", help="the rater who is the judge (default: a rater named 'judge', if any)")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="cluster-bootstrap N resamples of items for 95%% intervals (e.g. 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--xlsx", metavar="OUT", help="also write the report as an Excel workbook")
    parser.add_argument("--plot", metavar="OUT.png", help="also draw agreement by target and dimension")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.bootstrap < 0:
        print("dbstudio agreement: --bootstrap takes a number of resamples >= 0", file=sys.stderr)
        return 2
    try:
        ratings = read_rating_table(args.table)
    except RatingTableError as exc:
        print(str(exc), file=sys.stderr)
        print(f"{len(exc.problems)} problem(s); nothing was computed", file=sys.stderr)
        return 1
    try:
        report = Analysis(ratings, args.judge, args.bootstrap, args.seed).report()
    except ValueError as exc:
        print(f"dbstudio agreement: {exc}", file=sys.stderr)
        return 2
    from studio.agreement.report import to_text, write_xlsx

    if args.xlsx:
        write_xlsx(report, args.xlsx)
    if args.plot:
        from studio.agreement.plot import write_plot

        write_plot(report, args.plot)
    print(json.dumps(report.to_json(), indent=2) if args.json else to_text(report))
    return 0
