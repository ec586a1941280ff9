"""Who did what to a subtask or criterion: each saved revision that changed it, with its author and
field changes, and who changed each of its fields last. Built on the Versions panel's history of one
object (studio.store.history_scope) and the field changes of `dbstudio diff` (studio.store.object_diff)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from studio.editing.documents import ProjectDocuments
from studio.editing.object_history import object_scope
from studio.model.base import ID_PATTERN
from studio.store.history_errors import HistoryError
from studio.store.history_scope import LogEntry, Scope, object_revisions
from studio.store.object_diff import FieldChange, every_field, field_changes

if TYPE_CHECKING:
    from studio.store.history import ProjectRepository  # gitpython: the caller opens the repository


@dataclass(frozen=True)
class ObjectRevision:
    """One saved revision that changed the object: who, when, why, and the fields it changed."""

    commit: str
    author: str
    date: datetime
    message: str
    changes: tuple[FieldChange, ...]
    added: bool = False  # the object first appears in this revision
    removed: bool = False  # the object is gone after this revision


@dataclass(frozen=True)
class FieldAuthor:
    """A field of the object as last saved, and the revision that last changed it."""

    field: str
    value: Any
    author: str
    date: datetime
    commit: str
    message: str


def _scope(repo: ProjectRepository, object_id: str) -> Scope:
    if not re.fullmatch(ID_PATTERN, object_id):
        raise HistoryError(f"'{object_id}' is not a subtask or criterion id: ids use letters, digits, '.', '-' "
                           "and '_' and start with a letter or digit, e.g. T03 or T03-C02")
    return object_scope(ProjectDocuments(repo.root), object_id)


def _revision(entry: LogEntry, old: Any, new: Any) -> ObjectRevision:
    if old is None:
        changes = every_field(new)
    elif new is None:
        changes = []
    else:
        changes = field_changes(old, new)
    return ObjectRevision(entry.sha, entry.author, entry.date, entry.message, tuple(changes),
                          added=old is None, removed=new is None)


def object_history(repo: ProjectRepository, object_id: str) -> list[ObjectRevision]:
    """Each saved revision that changed subtask or criterion `object_id`, newest first. HistoryError
    when no saved revision ever had it."""
    return [revision for revision, _ in _walk(repo, object_id)]


def _walk(repo: ProjectRepository, object_id: str) -> list[tuple[ObjectRevision, Any]]:
    """(revision, the object after it) for each revision that changed it, newest first."""
    walked = revisions_of(object_revisions(repo, _scope(repo, object_id)))
    if not walked:
        raise HistoryError(f"no saved revision has a subtask or criterion '{object_id}': check the id "
                           "(`dbstudio validate` and the rubric show them), or save the project first")
    return walked


def revisions_of(revisions: list[tuple[LogEntry, Any, Any]]) -> list[tuple[ObjectRevision, Any]]:
    """history_scope.object_revisions' (revision, before, after) as (ObjectRevision, after): for a
    caller that has read them already (the Versions panel, which lists the same revisions)."""
    return [(_revision(entry, old, new), new) for entry, old, new in revisions]


def _covers(change: FieldChange, field: str) -> bool:
    """Whether `change` set `field`: the field itself, or a mapping or list that holds it."""
    return not change.field or field == change.field or field.startswith(change.field + ".")


def field_authors(repo: ProjectRepository, object_id: str) -> list[FieldAuthor]:
    """Each field the object has in its newest saved revision, with who changed it last, in the
    object's field order. HistoryError when the newest saved revision no longer has it."""
    walked = _walk(repo, object_id)
    if walked[0][0].removed:
        raise HistoryError(f"'{object_id}' was removed in {walked[0][0].commit[:8]} ({walked[0][0].message}): "
                           f"`dbstudio history PROJECT --item {object_id}` lists what happened to it before")
    return last_changes(walked)


def last_changes(walked: list[tuple[ObjectRevision, Any]]) -> list[FieldAuthor]:
    """Each field of the object after the newest of `walked` (newest first), with the revision that last
    changed it; nothing when the newest removed it."""
    if not walked or walked[0][0].removed:
        return []
    current = walked[0][1]
    found = []
    for leaf in every_field(current):
        for revision, _ in walked:
            if any(_covers(change, leaf.field) for change in revision.changes):
                found.append(FieldAuthor(leaf.field, leaf.new, revision.author, revision.date, revision.commit,
                                         revision.message))
                break
    return found
