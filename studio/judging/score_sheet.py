"""The scores of a project's runs from the verdict store, as the app's scores view and the
trajectory chart show them: per run, each checkpoint score along the timeline, the final score,
and the final rubric's profiles by target and by dimension.

Everything is computed by the scoring engine (studio.scoring.engine) from the score rows of
studio.judging.tables, exactly as `dbstudio score --project` computes it. A score that missing
verdicts could change is unknown and carries its range; a scope without a single verdict is
*not judged*. Neither is ever shown as 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from studio.model.vocabulary import FINAL_SCOPE

if TYPE_CHECKING:
    from studio.judging.tables import ProjectVerdicts
    from studio.judging.visibility import Viewer
    from studio.model import Project


@dataclass(frozen=True)
class ScopeScore:
    """One rubric (a checkpoint or the final rubric) of one run."""

    scope: str
    score: float | None  # None: unknown (missing verdicts could change it) or not judged
    low: float | None  # the range of an unknown score; equal to score when it is known
    high: float | None
    criteria: int
    missing: int  # criteria without a pass/fail verdict
    gate_triggered: bool = False

    @property
    def judged(self) -> bool:
        """Whether any criterion of the rubric has a verdict."""
        return self.missing < self.criteria

    def text(self) -> str:
        """`72.50`, `0.00 (gate)` when a fatal gate triggered, `38.9–41.2` for an unknown score,
        `not judged` for a rubric without verdicts."""
        if not self.judged:
            return "not judged"
        if self.score is not None:
            return f"{self.score:.2f}" + (" (gate)" if self.gate_triggered else "")
        return f"{self.low:.1f}–{self.high:.1f}"

    def explain(self) -> str:
        """A tooltip: how many verdicts the score rests on, and what the range means."""
        if not self.judged:
            return f"{self.scope}: none of its {self.criteria} criteria has a verdict yet"
        given = f"{self.criteria - self.missing} of {self.criteria} criteria have a verdict"
        gate = "; a fatal gate is triggered: the score is 0" if self.gate_triggered else ""
        if self.score is not None:
            return f"{self.scope}: {given}{gate}"
        return (f"{self.scope}: {given}; the {self.missing} missing verdict(s) leave the score between "
                f"{self.low:.2f} and {self.high:.2f}")


@dataclass(frozen=True)
class RunScores:
    submission: str
    system: str
    checkpoints: list[ScopeScore]  # along the timeline
    final: ScopeScore | None
    process: float | None  # the mean of the checkpoint scores, None when one is unknown
    process_range: tuple[float, float] | None
    targets: dict[str, float | None]  # profile of the final rubric by target; None: unknown or unavailable
    dimensions: dict[str, float | None]
    missing: int

    def process_text(self) -> str:
        if self.process is not None:
            return f"{self.process:.2f}"
        if not any(score.judged for score in self.checkpoints):
            return "not judged"
        if self.process_range is None:
            return "—"
        return f"{self.process_range[0]:.1f}–{self.process_range[1]:.1f}"


@dataclass
class ScoreSheet:
    project_id: str
    title: str
    scopes: list[str]  # the checkpoint rubrics along the timeline
    has_final: bool
    runs: list[RunScores]
    judges: list[str] = field(default_factory=list)  # the judge raters of the store
    judge: str | None = None  # the one judge whose verdicts count (None: every judge, when they agree)
    left_out: str | None = None  # the verdicts left out (stale, on criteria the project no longer has)
    # The groups the final rubric gives positive weight; the others are unavailable, never 0.
    available_targets: list[str] = field(default_factory=list)
    available_dimensions: list[str] = field(default_factory=list)

    def columns(self) -> list[str]:
        """The score table's columns: run, the checkpoints, process, final (when judged) and missing."""
        return ["run", *self.scopes, "process", *(["final"] if self.has_final else []), "missing"]

    def by_scope(self) -> list[dict[str, ScopeScore]]:
        """Each run's scores by scope (a subtask id or final), in the order of `runs`."""
        return [{**{score.scope: score for score in run.checkpoints}, **({FINAL_SCOPE: run.final} if run.final else {})}
                for run in self.runs]

    def table(self) -> tuple[list[str], list[list[str | int]]]:
        """The scores as a table (columns, rows), for export."""
        columns = ["system", "submission", *self.scopes, "process", *(["final"] if self.has_final else []), "missing"]
        rows: list[list[str | int]] = []
        for run in self.runs:
            row: list[str | int] = [run.system, run.submission, *(score.text() for score in run.checkpoints),
                                    run.process_text()]
            if self.has_final:
                row.append(run.final.text() if run.final is not None else "not judged")
            rows.append([*row, run.missing])
        return columns, rows


def score_sheet(verdicts: ProjectVerdicts, judge: str | None = None, title: str = "") -> ScoreSheet:
    """Every submission of `verdicts` scored by the engine, checkpoints in the project's order."""
    from studio.judging.tables import score_rubrics
    from studio.judging.verdicts import is_judge
    from studio.scoring.engine import score_rubric, score_system_project

    rubrics = score_rubrics([verdicts], judge).get(verdicts.project_id, {})
    scopes = [scope for scope in verdicts.rubrics if scope != FINAL_SCOPE and verdicts.rubrics[scope]]
    has_final = bool(verdicts.rubrics.get(FINAL_SCOPE))
    runs = []
    for submission in verdicts.submissions:
        system = verdicts.systems[submission]
        by_scope = rubrics.get(system, {})
        overall = score_system_project(by_scope)

        def one(scope: str, by_scope: dict = by_scope) -> ScopeScore:
            columns = by_scope[scope]
            result = score_rubric(columns)
            return ScopeScore(scope, result.score, result.low, result.high, len(columns), result.missing,
                              result.gate_triggered)

        runs.append(RunScores(submission, system, [one(scope) for scope in scopes],
                              one(FINAL_SCOPE) if has_final else None, overall.process, overall.process_range,
                              overall.targets, overall.dimensions, overall.missing))
    judges = sorted(r for r in verdicts.found.raters() if is_judge(r))
    final = [entry for entry in verdicts.rubrics.get(FINAL_SCOPE, {}).values() if entry.weight > 0]
    return ScoreSheet(verdicts.project_id, title or verdicts.project_id, scopes, has_final, runs, judges, judge,
                      verdicts.found.left_out(), sorted({e.target for e in final}), sorted({e.dimension for e in final}))


def read_score_sheet(root: Path, project: Project, judge: str | None = None,
                     runs: list[str] | None = None, viewer: Viewer | None = None) -> ScoreSheet:
    """The score sheet of a project folder and its loaded model (the app's entry point: it runs on
    a worker thread). JudgingError when the store has no verdicts; ProjectRubricError when the
    project's rubrics cannot be listed."""
    from studio.judging.tables import read_project_verdicts
    from studio.scoring.project_rubrics import project_rubrics

    project_id = project.info.id if project.info is not None else Path(root).name
    verdicts = read_project_verdicts(Path(root), project, project_id, project_rubrics(project), runs, viewer)
    return score_sheet(verdicts, judge)  # titled by the project id, as `dbstudio score --trajectory` draws it
