"""What a criterion of a rubric may hold: the ids it may name in `covers`, `requires` and
`propagates`, and the values of its target, dimension and review status; what the rubric editor's
pickers offer (validation reports any other). And the rubrics in the order they are shown."""

from __future__ import annotations

from studio.model.bundle import Project
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE, Dimension, Target


def cover_choices(project: Project, scope: str) -> list[str]:
    """What a criterion of `scope` may cover: its subtask's outputs as SUBTASK:PATH, or in the
    final rubric the final deliverables' ids and `package`."""
    if scope == FINAL_SCOPE:
        deliverables = project.info.delivery.final_deliverables if project.info else []
        return [d.id for d in deliverables] + [PACKAGE]
    subtask = project.subtasks.get(scope)
    return [f"{scope}:{output.path}" for output in subtask.outputs] if subtask else []


def requires_choices(project: Project, scope: str, key: str) -> list[str]:
    """Ids of the other criteria of the same rubric."""
    rubric = project.rubric(scope)
    return [c.key for c in rubric.criteria if c.key != key] if rubric else []


def propagates_choices(project: Project, scope: str) -> list[str]:
    """Materials whose change a criterion may check: those released no later than its subtask
    (any material for the final rubric)."""
    materials = project.materials.materials if project.materials else []
    here = None if scope == FINAL_SCOPE else project.position(scope)
    chosen = []
    for material in materials:
        released = project.release_position(material)
        if here is None or released is None or released <= here:
            chosen.append(material.id)
    return chosen


def value_choices(column: str, scope: str) -> list[str]:
    """The values a criterion of `scope` accepts for `target`, `dimension` or `status`."""
    if column == "target":
        return [t.value for t in (Target.ARTIFACT, Target.CROSS_FILE, Target.PACKAGE)] if scope == FINAL_SCOPE \
            else [Target.CHECKPOINT.value]
    if column == "dimension":
        return [d.value for d in Dimension]
    return ["draft", "reviewed", "approved"]


def rubric_scopes(project: Project) -> list[str]:
    """Rubrics in the order they are shown: checkpoint rubrics along the timeline, those of
    unscheduled subtasks by id, then the final rubric."""
    timeline = [sid for sid in project.timeline() if sid in project.checkpoint_rubrics]
    scheduled = set(timeline)
    scopes = list(dict.fromkeys(timeline)) + sorted(s for s in project.checkpoint_rubrics if s not in scheduled)
    return scopes + ([FINAL_SCOPE] if project.final_rubric is not None else [])
