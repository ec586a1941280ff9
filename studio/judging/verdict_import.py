"""`dbstudio verdicts import`: a filled verdict table (the CSV or xlsx `verdicts template` writes, or
any table `dbstudio score` reads) put into a project's verdict store as one rater's verdicts on one
submission, so experts who judge in Excel and results judged by another tool enter the same path as
the app's review and `dbstudio judge`.

The table is checked against the project exactly as `dbstudio score TABLE --project` checks it
(every criterion of the project's rubrics with its weight, target, dimension and gate); nothing is
stored unless the whole table passes. A blank verdict is left missing, never stored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from studio.judging.errors import JudgingError

if TYPE_CHECKING:
    from studio.model import Project
    from studio.scoring.project_rubrics import ProjectRubrics


@dataclass(frozen=True)
class ImportedVerdicts:
    submission: str
    rater: str
    system: str  # the table's system the verdicts came from
    stored: int  # pass and fail verdicts put into the store
    blank: int  # criteria left without a verdict (missing)
    path: Path  # the store's file of this rater on this submission


def import_verdict_table(root: Path, project: Project, project_id: str, rubrics: ProjectRubrics, table: Path,
                         submission: str, rater: str, system: str | None = None) -> ImportedVerdicts:
    """Store the verdicts of `system`'s rows of `table` (the table's only system when None) as
    `rater`'s on `submission`. VerdictTableError when the table does not check against the project;
    JudgingError for a bad submission, rater or system."""
    from pydantic import ValidationError

    from studio.judging.decisions import current_versions
    from studio.judging.verdict_store import VerdictStore, check_submission_id
    from studio.judging.verdicts import ADJUDICATED, Verdict
    from studio.scoring.against import check_against_projects
    from studio.scoring.table import read_verdict_rows

    check_submission_id(submission)
    if rater == ADJUDICATED:
        raise JudgingError(f"--rater {ADJUDICATED}: settled verdicts are given by adjudicating a difference "
                           "(`dbstudio verdicts adjudicate`), not imported")
    checked = check_against_projects(read_verdict_rows(table, against_project=True), {project_id: rubrics})
    systems = checked.rubrics.get(project_id, {})
    if system is None:
        if len(systems) != 1:
            raise JudgingError(f"{table} holds the verdicts of {len(systems)} systems ({', '.join(sorted(systems))}): "
                               "choose one with --system")
        (system,) = systems
    elif system not in systems:
        raise JudgingError(f"{table} has no rows of system {system!r} (systems: {', '.join(sorted(systems)) or 'none'})")
    versions = current_versions(project)
    now = datetime.now(UTC)
    note = f"imported from {Path(table).name} (system {system})"
    verdicts: list[Verdict] = []
    blank = 0
    for scope, columns in systems[system].items():
        for criterion, value in zip(columns.ids, columns.verdicts, strict=True):
            if value is None:
                blank += 1
                continue
            try:
                verdicts.append(Verdict(criterion=criterion, scope=scope, verdict="pass" if value else "fail",
                                        rater=rater, time=now, criterion_version=versions[(scope, criterion)],
                                        note=note))
            except ValidationError as exc:
                raise JudgingError(f"--rater {rater!r}: {exc.errors()[0]['msg']}") from None
    if not verdicts:
        raise JudgingError(f"{table}: every verdict of system {system} is blank: nothing to import")
    store = VerdictStore(root)
    store.put(submission, verdicts)
    return ImportedVerdicts(submission, rater, system, len(verdicts), blank, store.path(submission, rater))
