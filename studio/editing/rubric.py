"""Edits of rubrics in the domain's words: a criterion's field, a new criterion, removing or
moving one. Each builds an elementary command against the right file and list position."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.editing.commands import InsertItem, MoveItem, RemoveItem, SetValue
from studio.editing.documents import EditPathError, ProjectDocuments
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

CRITERIA = ("criteria",)


def rubric_file(scope: str) -> str:
    """The rubric file of a scope: a subtask id, or 'final'."""
    if scope == FINAL_SCOPE:
        return layout.FINAL_RUBRIC_FILE
    return layout.checkpoint_rubric_file(Path(), scope).as_posix()


def criterion_position(documents: ProjectDocuments, scope: str, criterion_id: str) -> int:
    criteria = documents.node(rubric_file(scope), CRITERIA)
    for index, item in enumerate(criteria):
        if isinstance(item, dict) and item.get("id") == criterion_id:
            return index
    raise EditPathError(f"{rubric_file(scope)}: no criterion {criterion_id}")


def set_criterion_field(documents: ProjectDocuments, scope: str, criterion_id: str, field: str,
                        value: Any) -> SetValue:
    index = criterion_position(documents, scope, criterion_id)
    return SetValue(rubric_file(scope), (*CRITERIA, index, field), value, (criterion_id,),
                    f"Set {field} of {criterion_id}")


def add_criterion(documents: ProjectDocuments, scope: str, criterion: dict[str, Any],
                  index: int | None = None) -> InsertItem:
    criteria = documents.node(rubric_file(scope), CRITERIA)
    place = len(criteria) if index is None else index
    return InsertItem(rubric_file(scope), CRITERIA, place, criterion, ids=(str(criterion.get("id", "")),),
                      label=f"Add criterion {criterion.get('id', '')}")


def remove_criterion(documents: ProjectDocuments, scope: str, criterion_id: str) -> RemoveItem:
    index = criterion_position(documents, scope, criterion_id)
    return RemoveItem(rubric_file(scope), CRITERIA, index, (criterion_id,), f"Remove criterion {criterion_id}")


def move_criterion(documents: ProjectDocuments, scope: str, criterion_id: str, target: int) -> MoveItem:
    index = criterion_position(documents, scope, criterion_id)
    return MoveItem(rubric_file(scope), CRITERIA, index, target, (criterion_id,), f"Move criterion {criterion_id}")
