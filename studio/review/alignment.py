"""Alignment: rubrics test what the instructions ask for, and the final package is covered."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from studio.model import Target
from studio.review.context import ReviewContext
from studio.review.locations import rubric_file, subtask_yaml
from studio.store import layout
from studio.validation.findings import Severity

RULES = {
    "alignment.output-uncovered": "A required output of a subtask has no checkpoint criterion covering it.",
    "alignment.criterion-not-asked": "A checkpoint criterion covers a file its subtask's instruction never asks for.",
    "alignment.criterion-covers-nothing": "A checkpoint criterion names no output it is judged on.",
    "alignment.deliverable-without-quality": "A final deliverable has no artifact-quality criterion (direct or "
                                             "reused).",
    "alignment.no-cross-file": "Two or more final deliverables, but no cross-file consistency criterion.",
    "alignment.no-package": "The final rubric has no package-acceptance criterion.",
}


def _mentions(text: str, path: str) -> bool:
    """The instruction names the file: by its path, or by its file name as a whole word."""
    if path in text:
        return True
    name = PurePosixPath(path).name
    return re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w-])", text) is not None


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    for sid, subtask in sorted(project.subtasks.items()):
        rubric = project.checkpoint_rubrics.get(sid)
        covered = {ref for c in rubric.criteria for ref in c.covers} if rubric else set()
        file = subtask_yaml(sid)
        for index, output in enumerate(subtask.outputs):
            if f"{sid}:{output.path}" not in covered:
                ctx.report_node(
                    "alignment.output-uncovered",
                    Severity.ERROR,
                    f"{sid} requires {output.path}, but no checkpoint criterion covers it: "
                    f"add one to {rubric_file(sid)}",
                    file,
                    ("outputs", index, "path"),
                    sid,
                )
        if rubric is None:
            continue
        _, instruction = ctx.instruction(sid)
        for criterion in rubric.criteria:
            if not criterion.covers:
                ctx.report_criterion(
                    "alignment.criterion-covers-nothing",
                    Severity.WARNING,
                    f"criterion {criterion.key} covers no output: list the file(s) it judges",
                    sid,
                    criterion,
                )
                continue
            for ref in criterion.covers:
                _, path = ref.partition(":")[::2]
                if path and not _mentions(instruction, path):
                    ctx.report_criterion(
                        "alignment.criterion-not-asked",
                        Severity.ERROR,
                        f"criterion {criterion.key} judges {path}, which the {sid} instruction never "
                        "asks for: name the file in the instruction or change what it covers",
                        sid,
                        criterion,
                        "covers",
                    )
    _check_final(ctx)


def _check_final(ctx: ReviewContext) -> None:
    project = ctx.project
    if project.info is None or project.final_rubric is None:
        return
    deliverables = project.info.delivery.final_deliverables
    by_target: dict[Target, set[str]] = {t: set() for t in Target}
    targets_present: set[Target] = set()
    for criterion in project.final_rubric.criteria:
        target = Target.ARTIFACT if criterion.reuse_of else criterion.target
        if target is None:
            continue
        targets_present.add(target)
        by_target[target].update(criterion.covers)
    for index, deliverable in enumerate(deliverables):
        if deliverable.id not in by_target[Target.ARTIFACT]:
            ctx.report_node(
                "alignment.deliverable-without-quality",
                Severity.ERROR,
                f"final deliverable {deliverable.id} ({deliverable.path}) has no artifact-quality criterion: "
                f"add one to {layout.FINAL_RUBRIC_FILE}, or reuse a checkpoint criterion with reuse_of",
                layout.PROJECT_FILE,
                ("delivery", "final_deliverables", index),
                deliverable.id,
            )
    if len(deliverables) >= 2 and Target.CROSS_FILE not in targets_present:
        ctx.report_node(
            "alignment.no-cross-file",
            Severity.ERROR,
            f"{len(deliverables)} final deliverables but no cross-file consistency criterion: add criteria "
            "with target cross-file that check figures and decisions agree across files",
            layout.FINAL_RUBRIC_FILE,
            ("criteria",),
        )
    if Target.PACKAGE not in targets_present:
        ctx.report_node(
            "alignment.no-package",
            Severity.ERROR,
            "no package-acceptance criterion: add criteria with target package (completeness, usability "
            "of the whole handoff)",
            layout.FINAL_RUBRIC_FILE,
            ("criteria",),
        )
