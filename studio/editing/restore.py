"""Putting a file, a subtask or a criterion back as it was at a revision, as one undoable edit of
the open project (nothing is written until the project is saved)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.editing.commands import Command, Compound, InsertItem, RemoveItem, SetValue
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import criterion_location
from studio.editing.files import PutFile
from studio.editing.rubric import CRITERIA
from studio.errors import StudioError
from studio.store.history_errors import HistoryError
from studio.store.history_scope import Scope
from studio.store.yamlfile import YamlDocument


def restore_command(documents: ProjectDocuments, scope: Scope, short: str,
                    old: dict[str, bytes | None]) -> Command:
    """The edit that puts the scope back as it was (`old`: its files' bytes at the revision)."""
    label = f"Restore {scope.key} as of {short}"
    if scope.kind == "criterion":
        return _restore_criterion(documents, scope.key, label, old)
    puts: list[Command] = [PutFile(rel, data) for rel, data in old.items() if documents.read_bytes(rel) != data]
    if not puts:
        raise HistoryError(f"{scope.key} is already as it was at {short}: nothing to restore")
    return Compound(label, puts)


def _restore_criterion(documents: ProjectDocuments, criterion_id: str, label: str,
                       old: dict[str, bytes | None]) -> Command:
    entry: Any = None
    for data in old.values():
        if data is None:
            continue
        document = YamlDocument.parse(Path("<rev>"), data.decode("utf-8"))
        for item in document.data.get(CRITERIA[0]) or [] if isinstance(document.data, dict) else []:
            if isinstance(item, dict) and item.get("id") == criterion_id:
                entry = item
    try:
        rel, index = criterion_location(documents, criterion_id)
    except StudioError:
        rel, index = "", -1
    if entry is None and index < 0:
        raise HistoryError(f"criterion {criterion_id} is in neither the revision nor the working copy")
    if entry is None:
        return RemoveItem(rel, CRITERIA, index, (criterion_id,), label)
    if index < 0:
        rel = next(rel for rel, data in old.items() if data is not None)
        count = len(documents.node(rel, CRITERIA))
        return InsertItem(rel, CRITERIA, count, entry, None, (criterion_id,), label)
    return SetValue(rel, (*CRITERIA, index), entry, (criterion_id,), label)
