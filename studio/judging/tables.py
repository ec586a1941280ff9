"""The verdict store as the interchange tables `dbstudio score` and `dbstudio agreement` read.

Score table: one row per system (a submission), rubric and criterion of the project, every
column of a verdict table filled from the project, the verdict chosen by the rule of
studio.judging.decisions, and two extra columns the scorer ignores: `submission` and `source`
(whose verdict it is, or why it is missing). A submission that is a local run
(<project>/runs/<id>/run.json) is the system `HARNESS@RUN_ID`; any other submission is the system
named by its id.

Agreement table: one row per rater and decision (criterion × item, the item being
`SUBMISSION/SCOPE`), raters side by side: the judges and the experts. Adjudicated verdicts are
left out, as they settle the others' differences rather than rate independently. `missing` is an
empty verdict, `na` its own category.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from studio.judging.decisions import StoreDecisions, choose, collect, current_versions, select_submissions
from studio.judging.errors import JudgingError
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import ADJUDICATED, is_judge
from studio.store import layout
from studio.tabular import write_value

if TYPE_CHECKING:
    from studio.agreement.ratings import Ratings
    from studio.judging.visibility import Viewer
    from studio.model import Project
    from studio.scoring.project_rubrics import ProjectRubrics
    from studio.scoring.table import Rubrics

SCORE_EXTRA = ("submission", "source")
AGREEMENT_COLUMNS = ("criterion", "item", "rater", "verdict", "target", "dimension", "project", "submission", "scope")


@dataclass
class ProjectVerdicts:
    """One project's rubrics and the current verdicts of the chosen submissions."""

    root: Path
    project_id: str
    rubrics: ProjectRubrics
    submissions: list[str]
    systems: dict[str, str]  # submission -> system name
    found: StoreDecisions


class ScoreRow(NamedTuple):
    project: str
    system: str
    scope: str
    criterion: str
    weight: int
    target: str
    dimension: str
    verdict: str | None
    gate: bool
    requires: tuple[str, ...]
    submission: str
    source: str

    def cells(self) -> list[str | int]:
        return [self.project, self.system, self.scope, self.criterion, self.weight, self.target, self.dimension,
                self.verdict or "", "true" if self.gate else "", ";".join(self.requires), self.submission, self.source]


def read_project_verdicts(root: Path, project: Project, project_id: str, rubrics: ProjectRubrics,
                          runs: Sequence[str] | None = None, viewer: Viewer | None = None) -> ProjectVerdicts:
    """The verdicts of the submissions named in `runs` (all with verdicts when none is named); with a
    `viewer`, those blind review lets them see."""
    store = VerdictStore(root)
    submissions = judged_submissions(store, runs)
    found = collect(store, current_versions(project), submissions, viewer)
    return ProjectVerdicts(Path(root), project_id, rubrics, submissions, system_names(root, submissions), found)


def judged_submissions(store: VerdictStore, runs: Sequence[str] | None = None, stored: list[str] | None = None) -> list[str]:
    """The stored submissions named in `runs` (all when none is named); JudgingError when there are none.
    `stored`: the store's submissions, when the caller has listed them."""
    submissions = select_submissions(store, runs, stored)
    if not submissions:
        raise JudgingError(f"{store.root}: no verdicts yet: judge a run (`dbstudio judge {store.project_dir} --run "
                           "RUN`) or review one in the app first")
    return submissions


def system_names(root: Path, submissions: Sequence[str]) -> dict[str, str]:
    """The system each submission is scored as: a run's recorded system (`dbstudio run --system`),
    `SYSTEM@RUN_ID` when the system has several runs here (each attempt apart, never merged);
    `HARNESS@RUN_ID` for a local run without a system; the submission id otherwise."""
    from collections import Counter

    from studio.runs.errors import RunError
    from studio.runs.record import RECORD_FILE, load_run

    names = {}
    systems: dict[str, str] = {}
    for submission in submissions:
        run_dir = Path(root) / layout.RUNS_DIR / submission
        names[submission] = submission
        if (run_dir / RECORD_FILE).is_file():
            try:
                record = load_run(run_dir)
            except RunError:
                continue
            names[submission] = f"{_harness_label(record.harness)}@{submission}"
            if record.system is not None:
                systems[submission] = record.system.id
    runs_of = Counter(systems.values())
    for submission, system in systems.items():
        names[submission] = system if runs_of[system] == 1 else f"{system}@{submission}"
    return names


def _harness_label(spec: str) -> str:
    """A preset's name, or a script harness's file name (its path is long and machine-specific)."""
    prefix = "script:"
    if spec.startswith(prefix):
        return prefix + Path(spec[len(prefix):].strip()).name
    return spec.strip()


def score_rows(verdicts: ProjectVerdicts, judge: str | None = None) -> list[ScoreRow]:
    """Each submission in turn, every rubric in project order, every criterion with its chosen verdict."""
    rows = []
    for submission in verdicts.submissions:
        system = verdicts.systems[submission]
        for scope, entries in verdicts.rubrics.items():
            for entry in entries.values():
                choice = choose(verdicts.found.decisions.get((submission, scope, entry.id), {}), judge)
                rows.append(ScoreRow(verdicts.project_id, system, scope, entry.id, entry.weight, entry.target,
                                     entry.dimension, choice.value, entry.gate, entry.requires, submission,
                                     choice.source))
    return rows


def score_rubrics(projects: Sequence[ProjectVerdicts], judge: str | None = None) -> Rubrics:
    """The scorer's rubrics of the score rows, as `dbstudio score` reads them from a table."""
    from studio.scoring.engine import RubricColumns, ScoredCriterion

    lists: dict[str, dict[str, dict[str, list[ScoredCriterion]]]] = {}
    for verdicts in projects:
        for row in score_rows(verdicts, judge):
            verdict = None if row.verdict is None else row.verdict == "pass"
            lists.setdefault(row.project, {}).setdefault(row.system, {}).setdefault(row.scope, []).append(
                ScoredCriterion(row.criterion, row.weight, row.target, row.dimension, verdict, row.gate, row.requires))
    return {project: {system: {scope: RubricColumns.of(criteria) for scope, criteria in scopes.items()}
                      for system, scopes in systems.items()} for project, systems in lists.items()}


def agreement_raters(found: StoreDecisions, judge: str | None = None) -> list[str]:
    """The raters compared: the judge (or every judge), then the experts, by name."""
    raters = [r for r in found.raters() if r != ADJUDICATED and (judge is None or not is_judge(r) or r == judge)]
    return sorted(raters, key=lambda r: (not is_judge(r), r))


def agreement_rows(verdicts: ProjectVerdicts, judge: str | None = None, qualified: bool = False) -> list[list[str]]:
    """Rows of AGREEMENT_COLUMNS; `qualified` items are PROJECT/SUBMISSION/SCOPE (several projects at once)."""
    raters = agreement_raters(verdicts.found, judge)
    rows = []
    for submission in verdicts.submissions:
        for scope, entries in verdicts.rubrics.items():
            item = f"{submission}/{scope}"
            if qualified:
                item = f"{verdicts.project_id}/{item}"
            for entry in entries.values():
                ratings = verdicts.found.decisions.get((submission, scope, entry.id))
                if not ratings:
                    continue
                for rater in raters:
                    if rater in ratings:
                        value = ratings[rater].verdict
                        rows.append([entry.id, item, rater, "" if value == "missing" else value, entry.target,
                                     entry.dimension, verdicts.project_id, submission, scope])
    return rows


def ratings_of(projects: Sequence[ProjectVerdicts], judge: str | None = None) -> Ratings:
    """The agreement rows as the statistics take them (what reading the exported table gives)."""
    from studio.agreement.ratings import RatingsBuilder, normalise_label

    builder = RatingsBuilder()
    for verdicts in projects:
        for row in agreement_rows(verdicts, judge, qualified=len(projects) > 1):
            criterion, item, rater, verdict, target, dimension, project = row[:7]
            builder.add(criterion, item, rater, normalise_label(verdict), target, dimension, project)
    return builder.build()


# -- writing -------------------------------------------------------------------------------------
def table_bytes(columns: Sequence[str], rows: Sequence[Sequence[str | int]], xlsx: bool, sheet: str) -> bytes:
    return _xlsx(columns, rows, sheet) if xlsx else _csv(columns, rows)


def _csv(columns: Sequence[str], rows: Sequence[Sequence[str | int]]) -> bytes:
    """UTF-8 with a byte-order mark, so that Excel opens accented names correctly."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8-sig")


def _xlsx(columns: Sequence[str], rows: Sequence[Sequence[str | int]], title: str) -> bytes:
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = title
    for number, name in enumerate(columns, start=1):
        sheet.cell(row=1, column=number, value=name).font = Font(bold=True)
        sheet.column_dimensions[get_column_letter(number)].width = max(10, len(name) + 2)
    for row_number, row in enumerate(rows, start=2):
        for number, value in enumerate(row, start=1):
            if value == "":
                continue
            write_value(sheet.cell(row=row_number, column=number), value)
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{len(rows) + 1}"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
