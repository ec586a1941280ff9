"""`dbstudio agreement TABLE`: judge–expert agreement with chance-corrected coefficients.
`dbstudio agreement --project PROJECT [--run RUN ...] [--judge judge:MODEL]` (no TABLE): the same
from the project's verdict store, as `dbstudio verdicts export --format agreement` would write it."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from studio.agreement import AgreementReport, Analysis, RatingTableError, read_rating_table
from studio.agreement.ratings import Ratings
from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option, table_file

# 1,000 to 10,000 resamples give stable 95% intervals; the draws take resamples × items
# numbers in memory, so a mistyped 1000000000 must be refused, not attempted.
MAX_RESAMPLES = 100_000


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", type=table_file, nargs="?",
                        help="CSV or xlsx with columns criterion, item, rater, verdict[, target, dimension, project]; "
                             "leave it out to read the verdict store of --project")
    parser.add_argument("--judge", help="the rater who is the judge (default: a rater named 'judge', if any; with "
                                        "--project, the store's only judge:MODEL rater)")
    parser.add_argument("--project", action="append", metavar="PROJECT",
                        help="instead of TABLE: the verdicts of this project's verdict store (repeat for several): "
                             "the judge and the experts on each decision (run x scope x criterion)")
    parser.add_argument("--run", dest="runs", action="append", metavar="RUN",
                        help="with --project: only this run or submission (repeat for several; default: all)")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help=f"cluster-bootstrap N resamples of items for 95%% intervals (e.g. 1000; "
                             f"at most {MAX_RESAMPLES:,})")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    add_format_option(parser)
    parser.add_argument("--xlsx", metavar="OUT.xlsx", help="also write the report as an Excel workbook")
    parser.add_argument("--plot", metavar="OUT.png", help="also draw agreement by target and dimension")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # Every option is checked before the table is read, so a bad one costs nothing and writes nothing.
    problem = _option_problem(args)
    if problem is not None:
        print(f"dbstudio agreement: {problem}", file=sys.stderr)
        return ExitCode.UNUSABLE
    if args.table is None:
        found = _store_ratings(args)
        if isinstance(found, str):
            print(f"dbstudio agreement: {found}", file=sys.stderr)
            return ExitCode.UNUSABLE
        ratings = found
    else:
        try:
            ratings = read_rating_table(args.table)
        except RatingTableError as exc:
            print(str(exc), file=sys.stderr)
            print(f"{len(exc.problems)} problem(s); nothing was computed", file=sys.stderr)
            return ExitCode.PROBLEMS
    if args.judge is not None and args.judge not in ratings.raters:
        print(f"dbstudio agreement: no rater named '{args.judge}' (raters: {', '.join(ratings.raters)})",
              file=sys.stderr)
        return ExitCode.UNUSABLE
    report = Analysis(ratings, args.judge, args.bootstrap, args.seed).report()
    return _write_outputs(report, args)


def _store_ratings(args: argparse.Namespace) -> Ratings | str:
    """The ratings of the --project stores (and args.judge set to their judge), or what is wrong."""
    from studio.cli.verdicts_cmd import ProjectLoadError
    from studio.cli.verdicts_export import read_stores, report_left_out
    from studio.judging.errors import JudgingError
    from studio.judging.tables import ratings_of

    try:
        found = read_stores(args.project, args.runs)
    except (ProjectLoadError, JudgingError) as exc:
        return str(exc)
    judges = sorted({rater for verdicts in found for rater in verdicts.found.raters() if rater.startswith("judge:")})
    if args.judge is None and len(judges) > 1:
        return f"the verdicts hold several judges ({', '.join(judges)}): choose one with --judge judge:MODEL"
    if args.judge is None and judges:
        args.judge = judges[0]
    if args.judge is not None and args.judge not in judges:
        return f"--judge {args.judge}: no such judge among the verdicts (judges: {', '.join(judges) or 'none'})"
    ratings = ratings_of(found, args.judge)
    if ratings.n_decisions == 0:
        return "no current verdicts to compare in the chosen runs"
    report_left_out(found, "agreement")
    return ratings


def _write_outputs(report: AgreementReport, args: argparse.Namespace) -> int:
    """The one place that hands the analysis result to its writers (text, JSON, xlsx, PNG)."""
    from studio.agreement.report import to_text, write_xlsx

    try:
        if args.xlsx:
            write_xlsx(report, args.xlsx)
        if args.plot:
            from studio.agreement.plot import write_plot

            write_plot(report, args.plot)
    except OSError as exc:
        print(f"dbstudio agreement: could not write {exc.filename or 'the report'}: {exc.strerror or exc}",
              file=sys.stderr)
        return ExitCode.UNUSABLE
    print(json.dumps(report.to_json(), indent=2) if args.format == "json" else to_text(report))
    return ExitCode.OK


def _option_problem(args: argparse.Namespace) -> str | None:
    if args.table is None and not args.project:
        return "give a rating table (TABLE), or --project PROJECT to read its verdict store"
    if args.table is not None and (args.project or args.runs):
        return "give either a rating table (TABLE) or --project PROJECT (its verdict store), not both"
    if args.runs and not args.project:
        return "--run chooses runs of a project's verdict store: give --project PROJECT"
    if not 0 <= args.bootstrap <= MAX_RESAMPLES:
        return (f"--bootstrap takes a number of resamples from 0 to {MAX_RESAMPLES:,} (got {args.bootstrap:,}); "
                "1,000 to 10,000 give stable 95% intervals")
    if args.seed < 0:
        return f"--seed takes a number >= 0 (got {args.seed})"
    for option, value, example in (("--xlsx", args.xlsx, "agreement.xlsx"), ("--plot", args.plot, "agreement.png")):
        if value is not None:
            problem = _output_file_problem(Path(value), example)
            if problem is not None:
                return f"{option} {value}: {problem}"
    if args.xlsx is not None and args.plot is not None and Path(args.xlsx).resolve() == Path(args.plot).resolve():
        return "--xlsx and --plot name the same file: give each its own"
    return None


def _output_file_problem(path: Path, example: str) -> str | None:
    """Why `path` cannot take a new report file, or None; a missing parent folder is created when writing."""
    if path.is_dir():
        return f"is a folder; give a file name, e.g. {path / example}"
    if path.exists() and not path.is_file():
        return "is not a regular file; give a file name"
    folder = next((p for p in path.parents if p.exists()), None)
    if folder is not None and not folder.is_dir():
        return f"{folder} is a file, not a folder"
    if folder is not None and not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    return None
