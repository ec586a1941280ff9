"""Keeping one's own edits after someone else changed the same file on disk: the field-by-field
differences between the window's version and the disk's (the object diff `dbstudio diff` uses),
and the one edit that takes the disk's value of the fields the user picks. Once merged, the disk's
version is the one the edits were made on, so the merged file can be saved."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from studio.editing.commands import Chain, Command, InsertItem, RemoveItem, RemoveKey, SetValue
from studio.editing.documents import ProjectDocuments
from studio.editing.files import PutFile
from studio.errors import StudioError
from studio.store.object_diff import ABSENT, FieldChange, ItemId, PathStep, field_changes, yaml_data

WHOLE_FILE = "(the whole file)"


@dataclass(frozen=True)
class FileConflict:
    """One file changed both in the window (`mine`) and on disk (`theirs`), and how they differ."""

    rel: str
    mine: bytes | None
    theirs: bytes | None
    changes: list[FieldChange]


def file_conflict(documents: ProjectDocuments, rel: str) -> FileConflict:
    """How the window's version of `rel` differs from the one on disk now, field by field for a YAML
    file both sides of which parse, else as one change of the whole file."""
    mine = documents.read_bytes(rel)
    path = documents.root / rel
    theirs = path.read_bytes() if path.is_file() else None
    if mine == theirs:
        return FileConflict(rel, mine, theirs, [])
    old, new = yaml_data(mine), yaml_data(theirs)
    if rel.endswith((".yaml", ".yml")) and isinstance(old, dict) and isinstance(new, dict):
        return FileConflict(rel, mine, theirs, field_changes(old, new))
    return FileConflict(rel, mine, theirs, [FieldChange(WHOLE_FILE, _text(mine), _text(theirs))])


def _text(data: bytes | None) -> Any:
    return ABSENT if data is None else data.decode("utf-8", "replace")


def merge_command(conflict: FileConflict, take_theirs: Sequence[bool]) -> Command:
    """The edit that gives the window's version of the file the disk's value of every change whose
    `take_theirs` is true (the others keep the window's). Built step by step: an item added or
    removed moves the ones after it."""
    rel = conflict.rel
    picked = [change for change, theirs in zip(conflict.changes, take_theirs, strict=True) if theirs]
    label = f"Merge {rel} with the version on disk"
    if any(change.field == WHOLE_FILE for change in picked):
        return PutFile(rel, conflict.theirs, (), label)
    return Chain(label, [_step(rel, change) for change in picked])


def _step(rel: str, change: FieldChange) -> Callable[[ProjectDocuments], Command]:
    def build(documents: ProjectDocuments) -> Command:
        *parent, last = change.path
        if isinstance(last, ItemId):
            items_path = _resolve(documents, rel, tuple(parent))
            items = documents.node(rel, items_path)
            if change.new is ABSENT:
                return RemoveItem(rel, items_path, _index(items, last, rel), (last.id,))
            if change.old is ABSENT:
                return InsertItem(rel, items_path, len(items), change.new, None, (last.id,))
        path = (*_resolve(documents, rel, tuple(parent)), _resolve_step(documents, rel, tuple(parent), last))
        if change.new is ABSENT:
            return RemoveKey(rel, path)
        return SetValue(rel, path, change.new)
    return build


def _resolve(documents: ProjectDocuments, rel: str, path: tuple[PathStep, ...]) -> tuple[str | int, ...]:
    """`path` in the window's document: an ItemId becomes the index of that item there now."""
    resolved: list[str | int] = []
    for step in path:
        resolved.append(_resolve_step(documents, rel, tuple(resolved), step))
    return tuple(resolved)


def _resolve_step(documents: ProjectDocuments, rel: str, parent: tuple[PathStep, ...], step: PathStep) -> str | int:
    if not isinstance(step, ItemId):
        return step
    return _index(documents.node(rel, _resolve(documents, rel, parent)), step, rel)


def _index(items: Any, item: ItemId, rel: str) -> int:
    for index, value in enumerate(items if isinstance(items, list) else []):
        if isinstance(value, dict) and value.get("id") == item.id:
            return index
    raise StudioError(f"{rel}: {item.id} is no longer in the window's version: close the merge and open it again")


def accept_disk_as_base(documents: ProjectDocuments, rel: str) -> None:
    """The user has seen the disk's version of `rel` and merged it: a save may now replace it."""
    documents.editor.read_bytes(rel)
