"""Propagation: a correction stated is a correction applied — later criteria must check it."""

from __future__ import annotations

from studio.model import Criterion
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
    "propagation.checkpoint-only": "A checkpoint criterion checks a correction on a file that becomes a final "
                                   "deliverable, but no final criterion (direct or reused) checks it there.",
}

Check = tuple[str, Criterion, Criterion]  # (scope, as written, as scored): a reused criterion checks what its original does


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    if project.materials is None:
        return
    names = ctx.material_names
    criteria = ctx.resolved_criteria
    named_in: dict[int, set[str]] = {}  # criterion's place in `criteria` -> materials its text names
    for index, material in enumerate(project.materials.materials):
        if not material.corrects:
            continue
        released = project.release_position(material)
        if released is None:
            continue
        checks: list[Check] = []
        for place, (scope, written, scored) in enumerate(criteria):
            if scope != FINAL_SCOPE and ctx.positions.get(scope, 0) < released:
                continue
            if place not in named_in:
                named_in[place] = {hit.material_id for hit in names.find(scored.text or "")}
            if material.id in scored.propagates or material.id in named_in[place]:
                checks.append((scope, written, scored))
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
        covered = {ref for _, written, _ in checks for ref in written.covers}
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
        _checkpoint_only(ctx, material.id, checks)


def _checkpoint_only(ctx: ReviewContext, material_id: str, checks: list[Check]) -> None:
    """Each checkpoint check of the correction on a file whose final version is a deliverable that
    no final check of the same correction covers."""
    info = ctx.project.info
    if info is None:
        return
    becomes: dict[str, list[str]] = {}
    for final_file in info.delivery.final_deliverables:
        becomes.setdefault(final_file.produced_by, []).append(final_file.id)
    final_covers = {ref for scope, written, _ in checks if scope == FINAL_SCOPE for ref in written.covers}
    if PACKAGE in final_covers:
        return
    for scope, written, _ in checks:
        if scope == FINAL_SCOPE:
            continue
        for ref in written.covers:
            for deliverable in becomes.get(ref, []):
                if deliverable in final_covers:
                    continue
                ctx.report_criterion(
                    "propagation.checkpoint-only",
                    Severity.WARNING,
                    f"{written.key} checks the change from {material_id} on {ref}, which becomes final deliverable "
                    f"{deliverable}, but no final criterion checks it there: reuse {written.key} on {deliverable} "
                    f"(reuse_of: {written.key}, covers: [{deliverable}]) or add 'propagates: [{material_id}]' to a "
                    f"final criterion covering {deliverable}",
                    scope,
                    written,
                    "propagates" if material_id in written.propagates else "covers",
                )
