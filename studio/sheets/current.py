"""The criteria as the project's documents hold them now, in the words the sheet uses: one
entry per criterion, with its rubric, key, place in its file and field values."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from studio.editing.documents import ProjectDocuments
from studio.editing.rubric import CRITERIA, rubric_files
from studio.model.vocabulary import FINAL_SCOPE
from studio.sheets.columns import DEFAULT_STATUS, FIELDS, LIST_FIELDS
from studio.store import fastyaml, layout


@dataclass(frozen=True)
class CurrentCriterion:
    """One criterion of a rubric file: `key` is its id (a reused criterion's is its `reuse_of`)."""

    rubric: str
    key: str
    index: int
    reused: bool
    values: dict[str, Any] = field(default_factory=dict)


def rubric_of(rel: str) -> str:
    """The rubric name of a rubric file: the subtask id, or 'final'."""
    if rel == layout.FINAL_RUBRIC_FILE:
        return FINAL_SCOPE
    return PurePosixPath(rel).parts[1]


def rubrics(documents: ProjectDocuments) -> list[str]:
    """Every rubric of the project: the checkpoint rubrics in file order, then 'final'."""
    return [rubric_of(rel) for rel in rubric_files(documents)]


def file_data(documents: ProjectDocuments, rel: str) -> Any:
    """A project file's data as the documents hold it now: an edited file from its round-trip
    tree, any other through the fast read-only reader (the round-trip parse of 5,000 criteria
    takes seconds; edits later open only the files they change)."""
    if rel in documents.dirty:
        return documents.node(rel, ())
    path = documents.root / rel
    return fastyaml.load(path)[1] if path.is_file() else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _items(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(item) for item in value]
    return [str(value)]


def field_values(item: dict[str, Any]) -> dict[str, Any]:
    """A criterion's field values as the sheet compares them: absent lists are empty, an absent
    gate is no, an absent review status is draft."""
    review = item.get("review")
    review = review if isinstance(review, dict) else {}
    values: dict[str, Any] = {}
    for name in FIELDS:
        if name in LIST_FIELDS:
            values[name] = _items(item.get(name))
        elif name == "gate":
            values[name] = item.get("gate") is True
        elif name == "weight":
            values[name] = item.get("weight")
        elif name == "review.status":
            values[name] = _text(review.get("status")) or DEFAULT_STATUS
        elif name.startswith("review."):
            values[name] = _text(review.get(name.removeprefix("review.")))
        else:
            values[name] = _text(item.get(name))
    return values


def current_criteria(documents: ProjectDocuments) -> list[CurrentCriterion]:
    """Every criterion of every rubric file, checkpoint rubrics first, each in file order."""
    found = []
    for rel in rubric_files(documents):
        top = file_data(documents, rel)
        criteria = top.get(CRITERIA[0]) if isinstance(top, dict) else None
        for index, item in enumerate(criteria if isinstance(criteria, list) else []):
            if not isinstance(item, dict):
                continue
            reused = item.get("reuse_of") is not None
            key = item.get("reuse_of") if reused else item.get("id")
            if key is None:
                continue  # a criterion without an id: validation reports it, the sheet cannot name it
            found.append(CurrentCriterion(rubric_of(rel), str(key), index, reused, field_values(item)))
    return found


def originals(criteria: list[CurrentCriterion]) -> dict[str, CurrentCriterion]:
    """Checkpoint criteria by id: what a reused criterion shows."""
    return {c.key: c for c in criteria if c.rubric != FINAL_SCOPE and not c.reused}
