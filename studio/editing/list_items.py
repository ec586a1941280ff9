"""Edits of one item of a list field (an output's path, one acceptance requirement, one input), built
from the core's elementary commands at the place `object_location` names. They change one list
item, so the comments and the other items of the list keep their bytes."""

from __future__ import annotations

from typing import Any

from studio.editing.commands import Command, InsertItem, RemoveItem, RemoveKey, SetValue
from studio.editing.documents import EditPathError, ProjectDocuments
from studio.editing.fields import object_location, set_field


def _place(documents: ProjectDocuments, kind: str, object_id: str, field: str) -> tuple[str, tuple[Any, ...]]:
    rel, base = object_location(documents, kind, object_id)
    return rel, (*base, *field.split("."))


def _ids(kind: str, object_id: str) -> tuple[str, ...]:
    return () if kind == "project" else (object_id,)


def set_item(documents: ProjectDocuments, kind: str, object_id: str, field: str, index: int, value: Any,
             key: str | None = None, label: str | None = None) -> Command:
    """Set item `index` of the list `field` (or its `key` when the items are mappings; a None value
    removes that key)."""
    rel, path = _place(documents, kind, object_id, field)
    text = label or f"Edit {field} of {object_id}"
    if key is None:
        return SetValue(rel, (*path, index), value, _ids(kind, object_id), text)
    if value is None:
        item = documents.node(rel, (*path, index))
        if key not in item:
            return SetValue(rel, (*path, index), item, _ids(kind, object_id), text)  # nothing to remove
        return RemoveKey(rel, (*path, index, key), _ids(kind, object_id), text)
    return SetValue(rel, (*path, index, key), value, _ids(kind, object_id), text)


def insert_item(documents: ProjectDocuments, kind: str, object_id: str, field: str, index: int, value: Any,
                label: str | None = None) -> Command:
    """Insert `value` at `index` of the list `field`; a missing list is created with it."""
    rel, path = _place(documents, kind, object_id, field)
    text = label or f"Add to {field} of {object_id}"
    try:
        present = documents.node(rel, path)
    except EditPathError:  # a missing key: the list is made below
        present = None
    if not isinstance(present, list):
        command = set_field(documents, kind, object_id, field, [value])
        command.label = text
        return command
    return InsertItem(rel, path, min(index, len(present)), value, None, _ids(kind, object_id), text)


def remove_item(documents: ProjectDocuments, kind: str, object_id: str, field: str, index: int,
                drop_empty: bool = False, label: str | None = None) -> Command:
    """Remove item `index` of the list `field`; with `drop_empty`, removing the last item removes
    the key (for optional lists such as `corrects`)."""
    rel, path = _place(documents, kind, object_id, field)
    text = label or f"Remove from {field} of {object_id}"
    items = documents.node(rel, path)
    if drop_empty and isinstance(items, list) and len(items) == 1 and index == 0:
        return RemoveKey(rel, path, _ids(kind, object_id), text)
    return RemoveItem(rel, path, index, _ids(kind, object_id), text)


def toggle_id(documents: ProjectDocuments, kind: str, object_id: str, field: str, member: str, on: bool,
              order: list[str], drop_empty: bool = False) -> Command | None:
    """Add `member` to (or remove it from) the id list `field`, inserting it where `order` (the
    ids in display order) puts it among the members already there. None when nothing changes."""
    rel, path = _place(documents, kind, object_id, field)
    try:
        items = list(documents.node(rel, path))
    except EditPathError:  # the key is absent: an empty list
        items = []
    if on == (member in items):
        return None
    if not on:
        return remove_item(documents, kind, object_id, field, items.index(member), drop_empty,
                           f"Remove {member} from {field} of {object_id}")
    rank = {key: n for n, key in enumerate(order)}
    where = len(items)
    for n, present in enumerate(items):
        if rank.get(str(present), len(order)) > rank.get(member, len(order)):
            where = n
            break
    return insert_item(documents, kind, object_id, field, where, member, f"Add {member} to {field} of {object_id}")

