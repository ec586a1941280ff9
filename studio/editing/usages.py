"""Every place in a project's files that names an object: what a rename must change and what a
removal would leave dangling. It mirrors the cross-references `studio/validation/references.py`
checks: subtask ids (stages, releases, handoffs, evaluator references, and as the SUBTASK of every
SUBTASK:PATH), material ids (inputs, corrects, propagates) and deliverable ids (final covers)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from studio.editing.documents import Path_, ProjectDocuments
from studio.editing.fields import DELIVERABLES, HANDOFFS, MATERIALS, REFERENCES, STAGES, listed, subtask_file
from studio.editing.rubric import CRITERIA, rubric_files
from studio.store import layout

VALUE = "value"  # the whole text is the id
ARTIFACT = "artifact"  # SUBTASK:PATH, the id before the colon


@dataclass(frozen=True)
class Usage:
    """One text naming an object: the file, the YAML path to the text, and the text."""

    rel: str
    path: Path_
    text: str
    form: str

    def renamed(self, new: str) -> str:
        if self.form == ARTIFACT:
            return new + self.text[self.text.index(":"):]
        return new

    def __str__(self) -> str:
        return f"{self.rel}: {'.'.join(map(str, self.path))}"


# (file, list of objects or None for the file's top mapping, field, form)
Field = tuple[str, tuple[str, ...] | None, tuple[str, ...], str]


def _fields(documents: ProjectDocuments, kind: str) -> Iterator[Field]:
    if kind == "subtask":
        yield layout.STAGES_FILE, STAGES, ("subtasks",), VALUE
        yield layout.MATERIALS_FILE, MATERIALS, ("release", "subtask"), VALUE
        yield layout.MATERIALS_FILE, MATERIALS, ("generated", "from"), ARTIFACT
        yield layout.DEPENDENCIES_FILE, HANDOFFS, ("from",), ARTIFACT
        yield layout.DEPENDENCIES_FILE, HANDOFFS, ("to",), VALUE
        yield layout.PROJECT_FILE, DELIVERABLES, ("produced_by",), ARTIFACT
        for rel in rubric_files(documents):
            yield rel, CRITERIA, ("covers",), ARTIFACT
        yield layout.REFERENCES_FILE, REFERENCES, ("for",), VALUE
    elif kind == "material":
        for sid in documents.subtask_ids():
            yield subtask_file(sid), None, ("inputs",), VALUE
        yield layout.MATERIALS_FILE, MATERIALS, ("corrects",), VALUE
        for rel in rubric_files(documents):
            yield rel, CRITERIA, ("propagates",), VALUE
    elif kind == "deliverable":
        if layout.FINAL_RUBRIC_FILE in rubric_files(documents):
            yield layout.FINAL_RUBRIC_FILE, CRITERIA, ("covers",), VALUE
    elif kind == "criterion":
        for rel in rubric_files(documents):
            yield rel, CRITERIA, ("requires",), VALUE
            yield rel, CRITERIA, ("reuse_of",), VALUE


def _objects(documents: ProjectDocuments, rel: str, where: tuple[str, ...] | None) -> Iterator[tuple[Path_, Any]]:
    if where is None:
        if documents.exists(rel):
            yield (), documents.document(rel).data
        return
    for index, item in enumerate(listed(documents, rel, where)):
        yield (*where, index), item


def usages(documents: ProjectDocuments, kind: str, object_id: str) -> list[Usage]:
    """Every text that names `object_id` of `kind` (the object's own `id` key excepted)."""
    found: list[Usage] = []
    for rel, where, field, form in _fields(documents, kind):
        for base, item in _objects(documents, rel, where):
            value: Any = item
            for step in field:
                value = value.get(step) if isinstance(value, dict) else None
            texts = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
            for index, text in texts:
                if not isinstance(text, str):
                    continue
                named = text.split(":", 1)[0] if form == ARTIFACT and ":" in text else text if form == VALUE else None
                if named == object_id:
                    path = (*base, *field) if index is None else (*base, *field, index)
                    found.append(Usage(rel, path, text, form))
    return found


def describe(found: list[Usage], limit: int = 5) -> str:
    """The first places of a list of usages, for a message."""
    shown = "; ".join(str(usage) for usage in found[:limit])
    return shown + (f"; and {len(found) - limit} more" if len(found) > limit else "")
