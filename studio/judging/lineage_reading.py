"""Defect lineage of a judged submission (studio.scoring.lineage), its verdicts read from the project's
verdict store and chosen as `dbstudio score --project` chooses them (adjudicated, else experts, else the
judge; `judge`: one judge's verdicts only)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.errors import StudioError
from studio.judging.errors import JudgingError

if TYPE_CHECKING:
    from studio.judging.tables import ProjectVerdicts
    from studio.judging.visibility import Viewer
    from studio.scoring.lineage import Lineage, Outcome
    from studio.store.loader import LoadedProject


def submission_outcomes(loaded: LoadedProject, submission: str, judge: str | None = None,
                        viewer: Viewer | None = None) -> dict[str, dict[str, Outcome]]:
    """scope -> criterion -> its outcome, for the scopes the submission has a decided verdict on; with a
    `viewer`, over the verdicts blind review lets them see (a blind rater's own)."""
    from studio.judging.tables import read_project_verdicts
    from studio.judging.verdict_store import VerdictStore
    from studio.scoring.project_rubrics import project_rubrics

    project = loaded.project
    project_id = project.info.id if project.info is not None else Path(loaded.root).name
    stored = VerdictStore(Path(loaded.root)).submissions()
    if submission not in stored:
        raise JudgingError(f"no verdicts of submission '{submission}' in {Path(loaded.root) / 'verdicts'}: give one "
                           f"of {', '.join(stored) or 'none (judge a run first)'}")
    try:
        rubrics = project_rubrics(project)
        verdicts = read_project_verdicts(Path(loaded.root), project, project_id, rubrics, [submission], viewer)
    except StudioError as exc:
        raise JudgingError(str(exc)) from None
    return outcomes_of(verdicts, submission, judge)


def outcomes_of(verdicts: ProjectVerdicts, submission: str, judge: str | None = None) -> dict[str, dict[str, Outcome]]:
    """The outcomes of one submission of verdicts already read (a benchmark's reading of its project)."""
    from studio.judging.tables import score_rows
    from studio.scoring.engine import ScoredCriterion, ScoringError, score_rubric
    from studio.scoring.lineage import Outcome

    by_scope: dict[str, list[ScoredCriterion]] = {}
    for row in score_rows(verdicts, judge):
        if row.submission != submission:
            continue
        verdict = None if row.verdict is None else row.verdict == "pass"
        by_scope.setdefault(row.scope, []).append(ScoredCriterion(row.criterion, row.weight, row.target,
                                                                  row.dimension, verdict, row.gate, row.requires))
    found: dict[str, dict[str, Outcome]] = {}
    for scope, criteria in by_scope.items():
        if all(c.verdict is None for c in criteria):
            continue  # not judged
        try:
            effective = score_rubric(criteria).effective
        except ScoringError as exc:
            raise JudgingError(f"{scope}: {exc}") from None
        raw = {c.id: c.verdict for c in criteria}
        outcomes: dict[str, Outcome] = {}
        for criterion, h in zip(criteria, effective, strict=False):
            if h is None:
                outcomes[criterion.id] = Outcome(None)
                continue
            against = bool(h) if criterion.gate or criterion.weight < 0 else not h
            cause = None
            if against and criterion.weight > 0 and criterion.verdict is True:
                cause = next((r for r in criterion.requires if raw.get(r) is not True), None)
            outcomes[criterion.id] = Outcome(against, cause)
        found[scope] = outcomes
    return found


def lineage_of(loaded: LoadedProject, submission: str, judge: str | None = None,
               viewer: Viewer | None = None) -> Lineage:
    from studio.scoring.lineage import classify

    return classify(loaded.project, submission_outcomes(loaded, submission, judge, viewer), submission)
