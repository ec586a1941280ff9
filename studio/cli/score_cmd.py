"""`dbstudio score TABLE [--project PROJECT ...]`: score a verdict table (CSV or xlsx) exactly as
the paper does; with --project, every row is first checked against the project's rubrics.
`dbstudio score --project PROJECT [--run RUN ...] [--judge judge:MODEL]` (no TABLE): score the
project's verdict store, as `dbstudio verdicts export --format score` would write it; with
--corrected, also each score corrected for the judge's measured error (studio/cli/score_corrected.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option, table_file
from studio.scoring import score_table
from studio.scoring.engine import BenchmarkScores, ScoringError
from studio.scoring.report import Absent, to_json, to_text
from studio.scoring.table import VerdictTableError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", type=table_file, nargs="?",
                        help="CSV or xlsx with columns project, system, scope, criterion, weight, target, dimension, "
                             "verdict[, gate, requires]; leave it out to score the verdict store of --project")
    parser.add_argument("--project", action="append", metavar="PROJECT",
                        help="the folder of a project the table scores (repeat for several): each row must fit the "
                             "project's rubrics, and a criterion without a row is a missing verdict. Without TABLE, "
                             "the project's verdict store (verdicts/) is scored: each run or submission is a system")
    parser.add_argument("--run", dest="runs", action="append", metavar="RUN",
                        help="without TABLE: score only this run or submission (repeat for several; default: all)")
    parser.add_argument("--judge", metavar="judge:MODEL",
                        help="without TABLE: the one judge whose verdicts count (default: every judge)")
    parser.add_argument("--trajectory", metavar="OUT.png",
                        help="without TABLE: also draw each run's checkpoint scores along the timeline and its final "
                             "score (one --project)")
    parser.add_argument("--profile", metavar="OUT.png",
                        help="without TABLE: also draw each run's final-rubric profile by target and by dimension "
                             "(one --project)")
    from studio.cli.score_corrected import configure_corrected

    configure_corrected(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.table is None:
        return _score_store(args)
    if args.runs or args.judge or args.trajectory or args.profile or args.corrected:
        print("dbstudio score: --run, --judge, --trajectory, --profile and --corrected choose verdicts from a project's "
              "verdict store: leave out TABLE to score the store of --project", file=sys.stderr)
        return ExitCode.UNUSABLE
    absent: Absent | None = None
    try:
        if args.project:
            from studio.cli.verdicts_cmd import ProjectLoadError

            try:
                scores, absent = _score_against(args.table, args.project)
            except ProjectLoadError as exc:
                print(f"dbstudio score: {exc}", file=sys.stderr)
                return ExitCode.UNUSABLE
        else:
            scores = score_table(args.table)
    except VerdictTableError as exc:
        print(str(exc), file=sys.stderr)
        print(f"{len(exc.problems)} bad row(s); nothing was scored", file=sys.stderr)
        return ExitCode.PROBLEMS
    except ScoringError as exc:
        print(f"{args.table}: {exc}; nothing was scored", file=sys.stderr)
        return ExitCode.PROBLEMS
    print(json.dumps(to_json(scores, absent), indent=2) if args.format == "json" else to_text(scores, absent))
    return ExitCode.OK


def _score_store(args: argparse.Namespace) -> int:
    """Score the verdict stores of the --project folders."""
    if not args.project:
        print("dbstudio score: give a verdict table (TABLE), or --project PROJECT to score its verdict store",
              file=sys.stderr)
        return ExitCode.UNUSABLE
    from studio.cli.score_corrected import corrected_problem

    problem = _chart_problem(args) or corrected_problem(args)
    if problem is not None:
        print(f"dbstudio score: {problem}", file=sys.stderr)
        return ExitCode.UNUSABLE
    from studio.cli.verdicts_cmd import ProjectLoadError
    from studio.cli.verdicts_export import read_stores, report_left_out
    from studio.judging.errors import JudgingError
    from studio.judging.tables import score_rubrics
    from studio.scoring.engine import score_benchmark

    try:
        found = read_stores(args.project, args.runs)
        judges = {rater for verdicts in found for rater in verdicts.found.raters() if rater.startswith("judge:")}
        if args.judge is not None and args.judge not in judges:
            print(f"dbstudio score: --judge {args.judge}: no such judge among the verdicts (judges: "
                  f"{', '.join(sorted(judges)) or 'none'})", file=sys.stderr)
            return ExitCode.UNUSABLE
        scores = score_benchmark(score_rubrics(found, args.judge))
        drawn = _draw_charts(args, found)
        corrected = None
        if args.corrected:
            from studio.cli.score_corrected import corrected_report

            corrected = corrected_report(args, found, judges)
    except (ProjectLoadError, JudgingError) as exc:
        print(f"dbstudio score: {exc}", file=sys.stderr)
        return ExitCode.UNUSABLE
    except ScoringError as exc:
        print(f"dbstudio score: {exc}; nothing was scored", file=sys.stderr)
        return ExitCode.PROBLEMS
    if drawn is not None:
        print(f"dbstudio score: {drawn}", file=sys.stderr)
        return ExitCode.UNUSABLE
    report_left_out(found, "score")
    if corrected is None:
        print(json.dumps(to_json(scores), indent=2) if args.format == "json" else to_text(scores))
    elif args.format == "json":
        print(json.dumps(to_json(scores) | {"corrected": corrected.to_json()}, indent=2))
    else:
        print(to_text(scores) + "\n\n" + corrected.text())
    return ExitCode.OK


def _chart_problem(args: argparse.Namespace) -> str | None:
    """Why --trajectory / --profile cannot be drawn as asked, checked before anything is read."""
    charts = [(name, value) for name, value in (("--trajectory", args.trajectory), ("--profile", args.profile))
              if value is not None]
    if charts and len(args.project or []) != 1:
        return f"{charts[0][0]} draws the runs of one project: give one --project"
    for name, value in charts:
        path = Path(value)
        if path.suffix.lower() != ".png":
            return f"{name} {value}: give a file name ending in .png"
        if path.is_dir():
            return f"{name} {value} is a folder: give a file name, e.g. {path / 'chart.png'}"
        if not path.parent.is_dir():
            return f"{name} {value}: the folder {path.parent} does not exist: create it or pick another place"
    if len(charts) == 2 and Path(charts[0][1]).resolve() == Path(charts[1][1]).resolve():
        return "--trajectory and --profile name the same file: give each its own"
    return None


def _draw_charts(args: argparse.Namespace, found: list) -> str | None:
    """Write the asked charts of the (one) project's store; what went wrong, or None."""
    if args.trajectory is None and args.profile is None:
        return None
    from studio.judging.charts import profile_png, trajectory_png
    from studio.judging.score_sheet import score_sheet
    from studio.store.atomic import AtomicWriteError, write_atomic

    sheet = score_sheet(found[0], args.judge)
    for value, draw in ((args.trajectory, trajectory_png), (args.profile, profile_png)):
        if value is None:
            continue
        try:
            write_atomic(Path(value), draw(sheet))
        except (AtomicWriteError, OSError) as exc:
            return f"{value}: cannot write the chart ({getattr(exc, 'strerror', None) or exc})"
        print(f"wrote {value}", file=sys.stderr)
    return None


def _score_against(table: str, folders: list[str]) -> tuple[BenchmarkScores, Absent]:
    from studio.cli.verdicts_cmd import ProjectLoadError, load_project_rubrics
    from studio.scoring.against import check_against_projects
    from studio.scoring.engine import score_benchmark
    from studio.scoring.project_rubrics import ProjectRubrics
    from studio.scoring.table import read_verdict_rows

    projects: dict[str, ProjectRubrics] = {}
    folder_of: dict[str, str] = {}
    for folder in folders:
        project_id, rubrics = load_project_rubrics(folder)
        if project_id in projects:
            raise ProjectLoadError(f"{folder_of[project_id]} and {folder} are both project '{project_id}': "
                                   "give each project once")
        projects[project_id], folder_of[project_id] = rubrics, folder
    checked = check_against_projects(read_verdict_rows(table, against_project=True), projects)
    return score_benchmark(checked.rubrics), checked.absent
