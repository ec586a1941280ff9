"""Information availability: a stage names only materials the agent already has."""

from __future__ import annotations

from studio.review.context import ReviewContext
from studio.review.names import MaterialNames
from studio.validation.findings import Severity

RULES = {
    "availability.named-before-release": "An instruction or checkpoint criterion names a material released after its "
                                         "subtask.",
}


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    if project.materials is None:
        return
    names = ctx.material_names
    released = {m.id: project.release_position(m) for m in project.materials.materials}
    release_of = {m.id: m.release.subtask or "start" for m in project.materials.materials}
    if project.info is not None:
        _check_brief(ctx, names, released, release_of)
    for sid in project.timeline():
        here = ctx.positions[sid]
        if sid not in project.subtasks:
            continue
        file, text = ctx.instruction(sid)
        reported: set[str] = set()
        for hit in names.find(text):
            when = released.get(hit.material_id)
            if when is not None and when > here and hit.material_id not in reported:
                reported.add(hit.material_id)
                ctx.report_text(
                    "availability.named-before-release",
                    Severity.ERROR,
                    f"the {sid} instruction names {hit.material_id} ('{hit.matched}'), which is released "
                    f"only before {release_of[hit.material_id]}: the agent cannot see it yet",
                    file,
                    text,
                    hit.start,
                    sid,
                )
        rubric = project.checkpoint_rubrics.get(sid)
        for criterion in rubric.criteria if rubric else []:
            for hit in names.find(criterion.text or ""):
                when = released.get(hit.material_id)
                if when is not None and when > here:
                    ctx.report_criterion(
                        "availability.named-before-release",
                        Severity.ERROR,
                        f"criterion {criterion.key} names {hit.material_id} ('{hit.matched}'), released "
                        f"only before {release_of[hit.material_id]}: {sid} cannot be judged on it",
                        sid,
                        criterion,
                        "text",
                    )
                    break


def _check_brief(
    ctx: ReviewContext, names: MaterialNames, released: dict[str, int | None], release_of: dict[str, str]
) -> None:
    """The brief is read at start: it may name only materials available at start."""
    assert ctx.project.info is not None
    rel = ctx.project.info.brief
    text = ctx.text(rel)
    reported: set[str] = set()
    for hit in names.find(text):
        if (released.get(hit.material_id) or 0) > 0 and hit.material_id not in reported:
            reported.add(hit.material_id)
            ctx.report_text(
                "availability.named-before-release",
                Severity.ERROR,
                f"the brief names {hit.material_id} ('{hit.matched}'), which is released only before "
                f"{release_of[hit.material_id]}: the agent reads the brief at start",
                rel,
                text,
                hit.start,
            )
