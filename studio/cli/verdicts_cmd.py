"""`dbstudio verdicts template PROJECT --system NAME [--system NAME ...] OUT.csv|OUT.xlsx`: a blank
verdict table with one row per system and criterion, filled from the project but the verdict.
`dbstudio verdicts export PROJECT [--run RUN ...] --format score|agreement OUT.csv|OUT.xlsx`: the
verdict store as the table `dbstudio score` or `dbstudio agreement` reads.
`dbstudio verdicts calibration PROJECT`: judge-expert agreement per criterion.
`dbstudio verdicts certify PROJECT [--judge judge:MODEL ...] [--certify-at X]`: each judge's sensitivity and
specificity against the experts, and whether it is certified (studio/cli/verdicts_certify.py).
`dbstudio verdicts queue|give|adjudicate PROJECT ...`: expert review (studio/cli/verdicts_review.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from studio.cli.exit_codes import ExitCode
from studio.errors import StudioError

if TYPE_CHECKING:
    from studio.scoring.project_rubrics import ProjectRubrics
    from studio.store.loader import LoadedProject

ACTIONS = ("template", "export", "calibration", "certify", "import", "queue", "give", "adjudicate")
EXPORT_FORMATS = ("score", "agreement")
REPORT_FORMATS = ("text", "json")
SUFFIXES = (".csv", ".xlsx")


class ProjectLoadError(StudioError):
    """The project folder cannot give its rubrics (not a project, or files that do not load)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("template writes every criterion of the project (checkpoint rubrics along the timeline, then "
                     "the final rubric; reused criteria with target artifact) once per system, with every column "
                     "`dbstudio score` reads filled in and the verdict empty; an xlsx gets a pass/fail drop-down. "
                     "Score the filled table with `dbstudio score TABLE --project PROJECT`. "
                     "export writes the project's verdict store (verdicts/) as a score table (one row per run, "
                     "rubric and criterion, the verdict chosen: adjudicated, else agreeing experts, else the judge) "
                     "or an agreement table (the judge and the experts side by side); see docs/judging.md. "
                     "calibration lists judge-expert agreement per criterion. certify gives each judge's "
                     "sensitivity and specificity against the experts with Wilson intervals, certified for a scope "
                     "only when both lower bounds reach --certify-at. import PROJECT TABLE --submission NAME --rater "
                     "RATER [--system NAME] puts a filled verdict table into the verdict store, checked against the "
                     "project as `score TABLE --project` checks it.")
    parser.add_argument("action", choices=ACTIONS, help="template: write a blank verdict table; export: write the "
                                                        "verdict store as a table; calibration: agreement per criterion; "
                                                        "certify: the judges' error rates and certification; queue, give, adjudicate: expert review")
    parser.add_argument("project", help="the project folder (the one holding project.yaml)")
    parser.add_argument("out", nargs="?", help="the table to write: a .csv or .xlsx file name")
    parser.add_argument("--system", action="extend", nargs="+", metavar="NAME",
                        help="template: the systems to be judged: --system A B, or --system A --system B")
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    parser.add_argument("--submission", metavar="NAME",
                        help="import: the run id or submission name the table's verdicts are about")
    parser.add_argument("--format", dest="table_format", choices=EXPORT_FORMATS + REPORT_FORMATS,
                        help="export: score (the table `dbstudio score` reads) or agreement (`dbstudio agreement`); "
                             "certify: text (default) or json")
    parser.add_argument("--run", dest="runs", action="append", metavar="RUN",
                        help="export, calibration, queue: only this run or submission (an id or its start; repeat for "
                             "several; default: every one with verdicts)")
    parser.add_argument("--judge", dest="judges", action="append", metavar="judge:MODEL",
                        help="export: the one judge whose verdicts count (default: every judge; judges that differ "
                             "leave a score's verdict missing); certify: a judge to certify (repeat to compare "
                             "several side by side; default: every judge)")
    parser.add_argument("--certify-at", type=float, default=None, metavar="X",
                        help="certify: the share both lower bounds (sensitivity, specificity) must reach (0-1, "
                             "exclusive; default 0.8)")
    parser.add_argument("--min-agreement", type=float, default=None, metavar="X",
                        help="calibration: flag criteria whose agreement is below X (0-1; default from the project's "
                             "verdicts/calibration.yaml, else 0.75)")
    parser.add_argument("--min-decisions", type=int, default=None, metavar="N",
                        help="calibration: flag only criteria with at least N decisions (default 8)")
    from studio.cli.verdicts_review import configure_review

    configure_review(parser)
    parser.set_defaults(run=run, verdicts_parser=parser)


def _fail(message: str) -> int:
    print(f"dbstudio verdicts: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def output_problem(out: Path, force: bool) -> str | None:
    """Why `out` cannot take a new table, or None."""
    if out.suffix.lower() not in SUFFIXES:
        return f"{out}: give a file name ending in .csv or .xlsx"
    if out.is_dir():
        return f"{out} is a folder: give a file name"
    if out.exists() and not force:
        return f"{out} exists (it may hold verdicts): pick another name, or add --force to replace it"
    if not out.parent.is_dir():
        return f"{out}: the folder {out.parent} does not exist: create it or pick another place"
    return None


def load_project_rubrics(folder: str | Path) -> tuple[str, ProjectRubrics]:
    """(project id, its rubrics as a verdict table lists them); ProjectLoadError when the
    folder is no project or a file the rubrics depend on does not load."""
    _, project_id, rubrics = load_project_checked(folder)
    return project_id, rubrics


def load_project_checked(folder: str | Path) -> tuple[LoadedProject, str, ProjectRubrics]:
    """load_project_rubrics with the loaded project (its criteria give the verdicts' versions)."""
    from studio.scoring.project_rubrics import ProjectRubricError, project_rubrics
    from studio.store import layout
    from studio.store.loader import load_project

    root = Path(folder)
    if (why := layout.not_a_project(root)) is not None:
        raise ProjectLoadError(why)
    loaded = load_project(root)
    if loaded.problems or loaded.project.info is None:
        lines = []
        for problem in loaded.problems[:10]:
            line, column = loaded.locate(problem)
            lines.append(f"  {root / problem.file}:{line}:{column}: {problem.message}")
        more = len(loaded.problems) - len(lines)
        lines += [f"  ... and {more} more"] if more > 0 else []
        raise ProjectLoadError(f"{root}: the project's files do not load, so its rubrics are not known:\n"
                               + "\n".join(lines) + f"\nfix them first (`dbstudio validate {root}` lists each)")
    try:
        return loaded, loaded.project.info.id, project_rubrics(loaded.project)
    except ProjectRubricError as exc:
        raise ProjectLoadError(f"{root}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from studio.cli.verdicts_review import REVIEW_ACTIONS, run_review

    if args.action in REVIEW_ACTIONS:
        return run_review(args)
    if args.operands:
        return _fail(f"{args.action}: unexpected {' '.join(args.operands)}")
    if args.action == "certify":
        from studio.cli.verdicts_certify import run_certify

        return run_certify(args)
    if args.action == "import":
        return run_import(args)
    if args.judges and len(args.judges) > 1:
        return _fail(f"{args.action} takes one --judge (got {', '.join(args.judges)})")
    args.judge = args.judges[0] if args.judges else None
    if args.certify_at is not None:
        return _fail("--certify-at goes with certify: `dbstudio verdicts certify PROJECT --certify-at X`")
    if args.action == "export":
        from studio.cli.verdicts_export import run_export

        return run_export(args)
    if args.action == "calibration":
        from studio.cli.verdicts_export import run_calibration

        return run_calibration(args)
    if not args.system:
        args.verdicts_parser.error("template needs the systems to be judged: --system NAME [NAME ...]")
    systems = [name.strip() for name in args.system]
    if args.out is None:
        # `--system A B OUT.xlsx`: the option took the file name too
        if len(systems) < 2 or Path(systems[-1]).suffix.lower() not in SUFFIXES:
            return _fail("give the table to write (OUT.csv or OUT.xlsx) after the project folder")
        args.out = systems.pop()
    out = Path(args.out)
    problem = output_problem(out, args.force)
    if problem is not None:
        return _fail(problem)
    if not all(systems):
        return _fail("--system needs a name")
    twice = sorted({name for name in systems if systems.count(name) > 1})
    if twice:
        return _fail(f"--system {', '.join(twice)} is given more than once")
    try:
        project_id, rubrics = load_project_rubrics(args.project)
    except ProjectLoadError as exc:
        return _fail(str(exc))

    from studio.scoring.template import template_csv, template_rows, template_xlsx
    from studio.store.atomic import AtomicWriteError, write_atomic

    rows = template_rows(project_id, rubrics, systems)
    data = template_xlsx(rows) if out.suffix.lower() == ".xlsx" else template_csv(rows)
    try:
        write_atomic(out, data)
    except (AtomicWriteError, OSError) as exc:
        return _fail(f"{out}: cannot write the table ({getattr(exc, 'strerror', None) or exc}): close it in Excel, "
                     "or pick another file name")
    per_system = len(rows) // len(systems)
    print(f"wrote {len(rows)} rows to {out}: {per_system} criteria of {project_id} "
          f"({len(rubrics)} rubrics) x {len(systems)} system{'s' if len(systems) != 1 else ''}", file=sys.stderr)
    return ExitCode.OK


def run_import(args: argparse.Namespace) -> int:
    """`verdicts import PROJECT TABLE --submission NAME --rater RATER [--system NAME]`."""
    from studio.judging.errors import JudgingError
    from studio.judging.verdict_import import import_verdict_table
    from studio.scoring.table import VerdictTableError

    if args.out is None or not args.submission or not args.rater:
        return _fail("import takes the project folder and the filled table, with --submission NAME (a run id or a "
                     "name for the submission) and --rater RATER (an expert's name, or judge:MODEL)")
    if args.system and len(args.system) > 1:
        return _fail(f"import takes one --system (got {', '.join(args.system)})")
    try:
        loaded, project_id, rubrics = load_project_checked(args.project)
        result = import_verdict_table(Path(args.project), loaded.project, project_id, rubrics, Path(args.out),
                                      args.submission, args.rater, args.system[0] if args.system else None)
    except VerdictTableError as exc:
        print(f"dbstudio verdicts: {exc}", file=sys.stderr)
        print("nothing was imported", file=sys.stderr)
        return ExitCode.PROBLEMS
    except (ProjectLoadError, JudgingError) as exc:
        return _fail(str(exc))
    print(f"stored {result.stored} verdicts of {result.system} as {result.rater}'s on {result.submission} "
          f"({result.blank} blank, left missing) in {result.path}")
    return ExitCode.OK
