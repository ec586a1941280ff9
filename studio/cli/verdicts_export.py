"""`dbstudio verdicts export|calibration`: the verdict store as interchange tables, and judge
calibration per criterion; plus reading the store for `dbstudio score` and `dbstudio agreement`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from studio.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from studio.judging.tables import ProjectVerdicts

SCORE_SHEET, AGREEMENT_SHEET = "Verdicts", "Ratings"


def _fail(message: str) -> int:
    print(f"dbstudio verdicts: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def read_stores(folders: Sequence[str], runs: Sequence[str] | None) -> list[ProjectVerdicts]:
    """Each project's current verdicts; ProjectLoadError or JudgingError when one cannot be read.
    With several projects, a --run needs to be in one of them only."""
    from studio.cli.verdicts_cmd import ProjectLoadError, load_project_checked
    from studio.judging.errors import JudgingError
    from studio.judging.tables import read_project_verdicts
    from studio.judging.verdict_store import VerdictStore

    found: list[ProjectVerdicts] = []
    folder_of: dict[str, str] = {}
    for folder in folders:
        loaded, project_id, rubrics = load_project_checked(folder)
        if project_id in folder_of:
            raise ProjectLoadError(f"{folder_of[project_id]} and {folder} are both project '{project_id}': "
                                   "give each project once")
        folder_of[project_id] = folder
        mine = runs
        if runs and len(folders) > 1:
            stored = VerdictStore(Path(folder)).submissions()
            mine = [run for run in runs if any(sid.startswith(run) for sid in stored)]
            if not mine:
                continue
        found.append(read_project_verdicts(Path(folder), loaded.project, project_id, rubrics, mine))
    if runs and len(folders) > 1:
        for run in runs:
            if not any(sid.startswith(run) for verdicts in found for sid in verdicts.submissions):
                raise JudgingError(f"--run {run} has no verdicts in any of the projects given")
    return found


def report_left_out(found: Sequence[ProjectVerdicts], command: str) -> None:
    for verdicts in found:
        note = verdicts.found.left_out()
        if note:
            print(f"dbstudio {command}: {verdicts.project_id}: left out {note}", file=sys.stderr)


def run_export(args: argparse.Namespace) -> int:
    from studio.cli.verdicts_cmd import EXPORT_FORMATS, ProjectLoadError, output_problem
    from studio.judging.errors import JudgingError
    from studio.judging.tables import AGREEMENT_COLUMNS, SCORE_EXTRA, agreement_rows, score_rows, table_bytes
    from studio.scoring.template import COLUMNS as TEMPLATE_COLUMNS
    from studio.store.atomic import AtomicWriteError, write_atomic

    if args.table_format not in EXPORT_FORMATS:
        return _fail("export needs --format score (the table `dbstudio score` reads) or --format agreement")
    if args.out is None:
        return _fail("give the table to write (OUT.csv or OUT.xlsx) after the project folder")
    out = Path(args.out)
    problem = output_problem(out, args.force)
    if problem is not None:
        return _fail(problem)
    try:
        (verdicts,) = read_stores([args.project], args.runs)
        if args.judge is not None and args.judge not in verdicts.found.raters():
            return _fail(_no_judge(args.judge, verdicts.found.raters()))
    except (ProjectLoadError, JudgingError) as exc:
        return _fail(str(exc))
    xlsx = out.suffix.lower() == ".xlsx"
    if args.table_format == "score":
        columns = [name for name in TEMPLATE_COLUMNS if name != "text"] + list(SCORE_EXTRA)
        rows: list[list[str | int]] = [row.cells() for row in score_rows(verdicts, args.judge)]
        counted = sum(1 for row in rows if row[7])
        summary = (f"{len(rows)} rows ({counted} with a verdict) for {len(verdicts.submissions)} system(s) x "
                   f"{len(rows) // max(1, len(verdicts.submissions))} criteria")
        data = table_bytes(columns, rows, xlsx, SCORE_SHEET)
    else:
        ratings = agreement_rows(verdicts, args.judge)
        if not ratings:
            return _fail(f"{args.project}: no current verdicts to compare in the chosen submissions")
        decisions = len({(row[0], row[1]) for row in ratings})
        raters = sorted({str(row[2]) for row in ratings})
        summary = f"{len(ratings)} ratings of {decisions} decisions by {len(raters)} rater(s): {', '.join(raters)}"
        data = table_bytes(AGREEMENT_COLUMNS, ratings, xlsx, AGREEMENT_SHEET)
    try:
        write_atomic(out, data)
    except (AtomicWriteError, OSError) as exc:
        return _fail(f"{out}: cannot write the table ({getattr(exc, 'strerror', None) or exc}): close it in Excel, "
                     "or pick another file name")
    report_left_out([verdicts], "verdicts")
    print(f"wrote {summary} to {out}", file=sys.stderr)
    return ExitCode.OK


def _no_judge(judge: str, raters: Sequence[str]) -> str:
    judges = [r for r in raters if r.startswith("judge:")]
    return (f"--judge {judge}: no such judge among the verdicts (judges: {', '.join(judges) or 'none'}); "
            "a judge rater is named judge:MODEL")


def run_calibration(args: argparse.Namespace) -> int:
    from studio.cli.verdicts_cmd import ProjectLoadError, load_project_checked
    from studio.judging.calibration import calibrate, read_settings
    from studio.judging.decisions import current_versions, select_submissions
    from studio.judging.errors import JudgingError
    from studio.judging.verdict_store import VerdictStore

    try:
        loaded, _, _ = load_project_checked(args.project)
        store = VerdictStore(Path(args.project))
        settings, problem = read_settings(Path(args.project))
        if problem is not None:
            print(f"dbstudio verdicts: {problem.path}:{problem.line}: {problem.message}", file=sys.stderr)
        submissions = select_submissions(store, args.runs)
        entries = calibrate(store, current_versions(loaded.project), submissions, loaded.project.timeline())
    except (ProjectLoadError, JudgingError) as exc:
        return _fail(str(exc))
    floor = settings.min_agreement if args.min_agreement is None else args.min_agreement
    least = settings.min_decisions if args.min_decisions is None else args.min_decisions
    if not 0 <= floor <= 1 or least < 1:
        return _fail("--min-agreement takes a share from 0 to 1 and --min-decisions a number of at least 1")
    if not entries:
        print("no criterion has a decision judged by both a judge and the experts yet")
        return ExitCode.OK
    print(f"{'scope':<8} {'criterion':<14} {'decisions':>9} {'agree':>6} {'differ':>6}  agreement")
    for entry in entries:
        agreement = entry.agreement or 0.0
        mark = "  LOW" if entry.flagged(floor, least) else ""
        print(f"{entry.scope:<8} {entry.criterion:<14} {entry.decisions:>9} "
              f"{entry.decisions - len(entry.disagreements):>6} {len(entry.disagreements):>6}  {agreement:7.1%}{mark}")
        if mark:
            print(f"    differ on: {entry.describe_disagreements(limit=20)}")
    flagged = sum(1 for entry in entries if entry.flagged(floor, least))
    print(f"{flagged} criteria below {floor:.0%} agreement with at least {least} decisions", file=sys.stderr)
    return ExitCode.OK
