"""A project's rubrics as a verdict table must list them: one entry per criterion and scope.

The final rubric lists a reused criterion (`reuse_of`) with its original's weight, dimension,
gate and text, target `artifact` (as the final rubric scores it), and those of its original's
`requires` that the final rubric holds too: a criterion judged only at the checkpoint has no
verdict on the final files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from studio.errors import StudioError
from studio.model.bundle import dangling_reuse
from studio.model.vocabulary import FINAL_SCOPE, Target

if TYPE_CHECKING:
    from studio.model import Criterion, Project


class ProjectRubricError(StudioError):
    """The project's rubrics cannot be listed (a reused criterion without its original)."""


class ExpectedCriterion(NamedTuple):
    """One criterion of one rubric as the project defines it, in the table's words."""

    scope: str
    id: str
    weight: int
    target: str
    dimension: str
    gate: bool
    requires: tuple[str, ...]
    text: str
    reused_from: str | None = None  # the subtask of the original, for a reused criterion


# scope -> criterion id -> its entry, scopes in timeline order and the final rubric last
ProjectRubrics = dict[str, dict[str, ExpectedCriterion]]


def project_rubrics(project: Project) -> ProjectRubrics:
    """Every rubric of the project, in the order a verdict table lists them: checkpoint rubrics
    along the timeline (then any subtask off the timeline, by id), then the final rubric."""
    timeline = [sid for sid in project.timeline() if sid in project.checkpoint_rubrics]
    scopes = list(dict.fromkeys(timeline)) + sorted(set(project.checkpoint_rubrics) - set(timeline))
    found: ProjectRubrics = {}
    for scope in scopes:
        entries: dict[str, ExpectedCriterion] = {}
        for criterion in project.checkpoint_rubrics[scope].criteria:
            entries.setdefault(criterion.key, _entry(scope, criterion, Target.CHECKPOINT.value, criterion.requires))
        found[scope] = entries
    if project.final_rubric is not None:
        final_ids = {criterion.key for criterion in project.final_rubric.criteria}
        entries = {}
        for criterion in project.final_rubric.criteria:
            if criterion.key in entries:
                continue
            if criterion.reuse_of is None:
                entries[criterion.key] = _entry(FINAL_SCOPE, criterion, _value(criterion.target), criterion.requires)
                continue
            original = project.resolve_reuse(FINAL_SCOPE, criterion)
            if original is None:  # no score without it: the words validation reports it with
                raise ProjectRubricError(dangling_reuse(criterion))
            subtask, scored = original
            kept = [needed for needed in scored.requires if needed in final_ids]
            entries[criterion.key] = _entry(FINAL_SCOPE, scored, Target.ARTIFACT.value, kept)._replace(
                id=criterion.key, reused_from=subtask)
        found[FINAL_SCOPE] = entries
    return found


def _value(member: object) -> str:
    return str(getattr(member, "value", member) or "")


def _entry(scope: str, criterion: Criterion, target: str, requires: list[str]) -> ExpectedCriterion:
    return ExpectedCriterion(scope, criterion.key, criterion.weight or 0, target, _value(criterion.dimension),
                             criterion.gate, tuple(requires), criterion.text or "")
