"""Edits of rubrics in the domain's words: a criterion's field, a new criterion, removing or
moving one. Each builds an elementary command against the right file and list position."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from studio.editing.commands import Command, Compound, InsertItem, MoveItem, RemoveItem, SetValue
from studio.editing.documents import EditPathError, ProjectDocuments
from studio.errors import StudioError
from studio.model.base import ID_PATTERN
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

CRITERIA = ("criteria",)


class RenameError(StudioError):
    """A criterion cannot take the new id (malformed, or already another criterion's)."""


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


def rubric_files(documents: ProjectDocuments) -> list[str]:
    """Every rubric file of the project: the checkpoint rubrics in subtask order, then the final one.
    Unsaved edits count: a subtask added or removed by an edit is in or out already."""
    rels = [rubric_file(subtask_id) for subtask_id in documents.subtask_ids()]
    rels.append(layout.FINAL_RUBRIC_FILE)
    return [rel for rel in rels if documents.exists(rel)]


def rename_criterion(documents: ProjectDocuments, old: str, new: str) -> Compound:
    """Give a criterion a new id, and every `requires` and `reuse_of` that names it follows."""
    if not re.fullmatch(ID_PATTERN, new) or len(new) > 64:
        raise RenameError(f"'{new}' is not a valid id: use letters, digits, '.', '-' and '_', starting with a "
                          "letter or digit, at most 64 characters")
    edits: list[Command] = []
    found = False
    for rel in rubric_files(documents):
        for index, item in enumerate(documents.node(rel, CRITERIA)):
            if not isinstance(item, dict):
                continue
            if new in (item.get("id"), item.get("reuse_of")) and new != old:
                raise RenameError(f"{rel}: '{new}' is already the id of a criterion: pick another id")
            for key in ("id", "reuse_of"):
                if item.get(key) == old:
                    found = found or key == "id" and "reuse_of" not in item
                    edits.append(SetValue(rel, (*CRITERIA, index, key), new, (old, new)))
            for position, required in enumerate(item.get("requires") or []):
                if required == old:
                    edits.append(SetValue(rel, (*CRITERIA, index, "requires", position), new, (old, new)))
    if not found:
        raise RenameError(f"no criterion has the id '{old}'")
    return Compound(f"Rename criterion {old} to {new}", edits)
