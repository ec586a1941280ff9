"""Leaks: nothing only judges may see reaches the agent's side, by reference or by quotation."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import PurePosixPath

from studio.model import EvaluatorReference
from studio.review.context import ReviewContext
from studio.review.locations import evaluator_path, subtask_yaml
from studio.review.texts import Quotations, agent_facing_files
from studio.store import layout
from studio.validation.findings import Severity

# A run of this many consecutive words shared with a reference is a quotation, not a shared fact.
QUOTE_MIN_WORDS = 12

RULES = {
    "leak.reference-as-input": "An evaluator-only reference is listed as a subtask input.",
    "leak.reference-in-materials": "A file under materials/ is a copy of an evaluator-only reference.",
    "leak.reference-named": "An agent-facing text names an evaluator-only file.",
    "leak.reference-quoted": f"An agent-facing text quotes {QUOTE_MIN_WORDS}+ consecutive words of an evaluator-only "
                             f"reference.",
}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    references = project.references.references if project.references else []
    if not references:
        return
    reference_ids = {r.id for r in references}
    for sid, subtask in sorted(project.subtasks.items()):
        for index, item in enumerate(subtask.inputs):
            if item in reference_ids:
                ctx.report_node(
                    "leak.reference-as-input",
                    Severity.ERROR,
                    f"{sid} lists evaluator-only reference {item} as an input: remove it; "
                    "judges read references, agents never do",
                    subtask_yaml(sid),
                    ("inputs", index),
                    sid,
                )

    reference_files: dict[str, tuple[EvaluatorReference, bytes]] = {}
    for ref in references:
        data = ctx.data(evaluator_path(ref.file))
        if data is not None:
            reference_files[ref.id] = (ref, data)
    _check_copies(ctx, reference_files)

    texts = [(rel, ctx.text(rel)) for rel in agent_facing_files(project)]
    names = {PurePosixPath(ref.file).name: ref.id for ref, _ in reference_files.values()}
    names.update({evaluator_path(ref.file): ref.id for ref, _ in reference_files.values()})
    for rel, text in texts:
        for name, ref_id in names.items():
            offset = text.find(name)
            if offset >= 0:
                ctx.report_text(
                    "leak.reference-named",
                    Severity.ERROR,
                    f"{rel} names the evaluator-only file '{name}' ({ref_id}): agents must not learn "
                    "that it exists or where it is",
                    rel,
                    text,
                    offset,
                    ref_id,
                )
    reference_texts = {ref_id: ctx.text(evaluator_path(ref.file)) for ref_id, (ref, _) in reference_files.items()}
    quotations = Quotations(reference_texts, QUOTE_MIN_WORDS)
    found = [(rel, text, quotations.passages(text)) for rel, text in texts]
    for ref_id in reference_files:
        for rel, text, passages in found:
            for passage in passages.get(ref_id, []):
                ctx.report_text(
                    "leak.reference-quoted",
                    Severity.ERROR,
                    f"{rel} quotes {passage.words} consecutive words of evaluator-only reference "
                    f'{ref_id} ("{passage.excerpt}"): rephrase or remove',
                    rel,
                    text,
                    passage.start,
                    ref_id,
                )


def _check_copies(ctx: ReviewContext, reference_files: dict[str, tuple[EvaluatorReference, bytes]]) -> None:
    by_digest = {_digest(data): ref_id for ref_id, (_, data) in reference_files.items()}
    by_name = {PurePosixPath(ref.file).name: ref_id for ref_id, (ref, _) in reference_files.items()}
    sizes = {len(data) for _, data in reference_files.values()}
    for rel, name in _material_files(ctx, sizes, set(by_name)):
        data = ctx.data(rel)
        if data is None:
            continue
        ref_id = by_digest.get(_digest(data)) or by_name.get(name)
        if ref_id is not None:
            ctx.report(
                "leak.reference-in-materials",
                Severity.ERROR,
                f"{rel} is a copy of evaluator-only reference {ref_id} (same content or file name): "
                f"keep references under {layout.EVALUATOR_DIR}/ only",
                rel,
                1,
                1,
                ref_id,
            )


def _material_files(ctx: ReviewContext, sizes: set[int], names: set[str]) -> list[tuple[str, str]]:
    """(project-relative path, name) of the files under materials/ that could be a copy of a
    reference (of its size or name, or a link), unsaved ones included."""
    pending = {rel: data for rel, data in ctx.files.overrides.items() if rel.startswith(layout.MATERIALS_DIR + "/")}
    found = [(rel, PurePosixPath(rel).name) for rel, data in sorted(pending.items()) if data is not None]
    root = str(ctx.root)
    materials_dir = os.path.join(root, layout.MATERIALS_DIR)
    if not os.path.isdir(materials_dir):
        return found
    # Links to folders are not followed (a link to a file is, if it stays inside the project).
    for folder, _, file_names in os.walk(materials_dir):
        for name in file_names:
            path = os.path.join(folder, name)
            rel = path[len(root) + 1:].replace(os.sep, "/")
            if rel in pending:
                continue  # an unsaved edit replaced or deleted it
            try:
                status = os.stat(path)
            except OSError:
                continue  # a dangling link is not a file
            if not stat.S_ISREG(status.st_mode):
                continue
            if status.st_size not in sizes and name not in names and not os.path.islink(path):
                continue  # not a reference's size nor name: cannot be a copy, no need to read it
            found.append((rel, name))
    return found
