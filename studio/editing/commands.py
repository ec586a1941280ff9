"""The elementary edits: set a value, remove or insert a key, insert, remove or move a list item,
and a compound of several. `apply` changes the documents and returns the inverse edit and
what changed; applying the inverse gives back the same bytes (comments included)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from studio.editing.changes import Changes
from studio.editing.documents import EditPathError, Path_, ProjectDocuments


class Command(Protocol):
    """One undoable edit of a project's documents."""

    label: str

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        """Make the edit; return the edit that undoes it and what changed."""
        ...


def _where(path: Path_) -> str:
    return ".".join(map(str, path))


def _mapping(documents: ProjectDocuments, rel: str, path: Path_) -> CommentedMap:
    node = documents.node(rel, path)
    if not isinstance(node, CommentedMap):
        raise EditPathError(f"{rel}: {_where(path) or 'the top level'} is not a mapping")
    return node


def _sequence(documents: ProjectDocuments, rel: str, path: Path_) -> CommentedSeq:
    node = documents.node(rel, path)
    if not isinstance(node, CommentedSeq):
        raise EditPathError(f"{rel}: {_where(path)} is not a list")
    return node


def _round_trip(value: Any) -> Any:
    """Plain dicts and lists as the round-trip types, so later edits can reach inside them;
    round-trip values (with their comments) are kept as they are."""
    if isinstance(value, (CommentedMap, CommentedSeq)):
        return value
    if isinstance(value, dict):
        return CommentedMap((key, _round_trip(item)) for key, item in value.items())
    if isinstance(value, list):
        return CommentedSeq(_round_trip(item) for item in value)
    return value


def _done(documents: ProjectDocuments, rel: str, ids: tuple[str, ...]) -> Changes:
    documents.touched(rel)
    return Changes.of(rel, *ids)


@dataclass
class SetValue:
    """Set the value at `path` (a key of a mapping, added at its end if new, or a list index)."""

    rel: str
    path: Path_
    value: Any
    ids: tuple[str, ...] = ()
    label: str = "Edit value"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        *parent_path, key = self.path
        parent = documents.node(self.rel, tuple(parent_path))
        inverse: Command
        if isinstance(parent, CommentedMap) and isinstance(key, str):
            if key in parent:
                inverse = SetValue(self.rel, self.path, parent[key], self.ids, self.label)
            else:
                inverse = RemoveKey(self.rel, self.path, self.ids, self.label)
            parent[key] = _round_trip(self.value)
        elif isinstance(parent, CommentedSeq) and isinstance(key, int) and 0 <= key < len(parent):
            inverse = SetValue(self.rel, self.path, parent[key], self.ids, self.label)
            parent[key] = _round_trip(self.value)
        else:
            raise EditPathError(f"{self.rel}: cannot set {_where(self.path)}")
        return inverse, _done(documents, self.rel, self.ids)


@dataclass
class RemoveKey:
    """Remove a key (and the comment after it) from a mapping."""

    rel: str
    path: Path_
    ids: tuple[str, ...] = ()
    label: str = "Remove value"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        *parent_path, key = self.path
        parent = _mapping(documents, self.rel, tuple(parent_path))
        if not isinstance(key, str) or key not in parent:
            raise EditPathError(f"{self.rel}: no key {_where(self.path)} to remove")
        position = list(parent).index(key)
        comment = parent.ca.items.pop(key, None)
        value = parent.pop(key)
        return InsertKey(self.rel, self.path, value, position, comment, self.ids, self.label), \
            _done(documents, self.rel, self.ids)


@dataclass
class InsertKey:
    """Add a key at a position of a mapping (the inverse of RemoveKey, comment included)."""

    rel: str
    path: Path_
    value: Any
    position: int
    comment: Any = None
    ids: tuple[str, ...] = ()
    label: str = "Add value"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        *parent_path, key = self.path
        parent = _mapping(documents, self.rel, tuple(parent_path))
        if not isinstance(key, str) or key in parent:
            raise EditPathError(f"{self.rel}: {_where(self.path)} is already there")
        parent.insert(min(self.position, len(parent)), key, _round_trip(self.value))
        if self.comment is not None:
            parent.ca.items[key] = self.comment
        return RemoveKey(self.rel, self.path, self.ids, self.label), _done(documents, self.rel, self.ids)


@dataclass
class InsertItem:
    """Insert `value` into the list at `path` before `index` (len: at the end)."""

    rel: str
    path: Path_
    index: int
    value: Any
    comment: Any = None
    ids: tuple[str, ...] = ()
    label: str = "Add item"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        items = _sequence(documents, self.rel, self.path)
        if not 0 <= self.index <= len(items):
            raise EditPathError(f"{self.rel}: {_where(self.path)} has no place {self.index}")
        items.insert(self.index, _round_trip(self.value))
        if self.comment is not None:
            items.ca.items[self.index] = self.comment
        return RemoveItem(self.rel, self.path, self.index, self.ids, self.label), _done(documents, self.rel, self.ids)


@dataclass
class RemoveItem:
    """Remove the item at `index` of the list at `path`."""

    rel: str
    path: Path_
    index: int
    ids: tuple[str, ...] = ()
    label: str = "Remove item"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        items = _sequence(documents, self.rel, self.path)
        if not 0 <= self.index < len(items):
            raise EditPathError(f"{self.rel}: {_where(self.path)} has no item {self.index}")
        comment = items.ca.items.get(self.index)
        value = items[self.index]
        del items[self.index]
        return InsertItem(self.rel, self.path, self.index, value, comment, self.ids, self.label), \
            _done(documents, self.rel, self.ids)


@dataclass
class MoveItem:
    """Move the item at `source` of the list at `path` so that it ends up at `target`."""

    rel: str
    path: Path_
    source: int
    target: int
    ids: tuple[str, ...] = ()
    label: str = "Move item"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        items = _sequence(documents, self.rel, self.path)
        if not (0 <= self.source < len(items) and 0 <= self.target < len(items)):
            raise EditPathError(f"{self.rel}: cannot move item {self.source} of {_where(self.path)} "
                                f"to {self.target}")
        comment = items.ca.items.get(self.source)
        value = items[self.source]
        del items[self.source]
        items.insert(self.target, value)
        if comment is not None:
            items.ca.items[self.target] = comment
        return MoveItem(self.rel, self.path, self.target, self.source, self.ids, self.label), \
            _done(documents, self.rel, self.ids)


@dataclass
class Compound:
    """Several edits as one: applied in order, undone in reverse order."""

    label: str
    commands: list[Command] = field(default_factory=list)

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        return _apply_in_order(self.label, documents, iter(self.commands))


@dataclass
class Chain:
    """Several edits as one, each built (by a function of the documents) only when the edits before
    it are made: add a stage, then a subtask in it. Undone as a Compound of the inverses."""

    label: str
    steps: list[Callable[[ProjectDocuments], Command]] = field(default_factory=list)

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        # A generator: each step is built only after the ones before it are applied.
        return _apply_in_order(self.label, documents, (step(documents) for step in self.steps))


def _apply_in_order(label: str, documents: ProjectDocuments, commands: Iterator[Command]) -> tuple[Command, Changes]:
    """Apply `commands` in order; on any failure undo those applied, leaving the documents as
    they were. The inverse is a Compound of the inverses in reverse order."""
    inverses: list[Command] = []
    changes = Changes()
    try:
        for command in commands:
            inverse, changed = command.apply(documents)
            inverses.append(inverse)
            changes = changes | changed
    except Exception:
        for inverse in reversed(inverses):
            inverse.apply(documents)
        raise
    return Compound(label, inverses[::-1]), changes
