"""Propagation: a correction stated is a correction applied — later criteria must check it."""

from __future__ import annotations

from studio.model.vocabulary import FINAL_SCOPE, PACKAGE
from studio.review.context import ReviewContext
from studio.review.graph import DELIVERABLE, MATERIAL
from studio.store import layout
from studio.validation.findings import Severity

RULES = {
    "propagation.correction-unchecked": "A material that changes an earlier input has no later criterion checking "
                                        "the change was applied.",
    "propagation.deliverable-unchecked": "A final deliverable built on a corrected input has no criterion checking "
                                         "the correction reached it.",
}


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    if project.materials is None:
        return
    names = ctx.material_names
    criteria = project.all_criteria()
    named_in: dict[int, set[str]] = {}  # criterion's place in `criteria` -> materials its text names
    for index, material in enumerate(project.materials.materials):
        if not material.corrects:
            continue
        released = project.release_position(material)
        if released is None:
            continue
        checks = []
        for place, (scope, criterion) in enumerate(criteria):
            if scope != FINAL_SCOPE and ctx.positions.get(scope, 0) < released:
                continue
            if place not in named_in:
                named_in[place] = {hit.material_id for hit in names.find(criterion.text or "")}
            if material.id in criterion.propagates or material.id in named_in[place]:
                checks.append((scope, criterion))
        loc = ("materials", index, "corrects")
        if not checks:
            ctx.report_node(
                "propagation.correction-unchecked",
                Severity.ERROR,
                f"{material.id} changes {', '.join(material.corrects)}, but no criterion at or after its "
                f"release checks that the change reached the dependent files: add a criterion with "
                f"'propagates: [{material.id}]' to a later rubric",
                layout.MATERIALS_FILE,
                loc,
                material.id,
            )
            continue
        covered = {ref for _, c in checks for ref in c.covers}
        affected: set[str] = set()
        for corrected in material.corrects:
            affected.update(key for kind, key in ctx.graph.downstream((MATERIAL, corrected)) if kind == DELIVERABLE)
        for deliverable in sorted(affected - covered):
            if PACKAGE in covered:
                continue
            ctx.report_node(
                "propagation.deliverable-unchecked",
                Severity.WARNING,
                f"final deliverable {deliverable} is built on {', '.join(material.corrects)}, which "
                f"{material.id} changes, but no criterion checking the change covers it",
                layout.MATERIALS_FILE,
                loc,
                material.id,
            )
