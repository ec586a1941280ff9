"""Keep hand-written comments in place when a key or list item is added or removed.

ruamel.yaml hangs the comment lines written above a key or list item on the last scalar before
them. Inserting a child right after that scalar would leave those lines above the new child;
removing the child they hang on would drop them. `MoveTrailingComment` moves such lines to the
right node when the edit is applied (and its inverse puts back the exact comment tokens)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken

from studio.editing.changes import Changes
from studio.editing.commands import Command, Compound, InsertKey, RemoveKey
from studio.editing.documents import Path_, ProjectDocuments


def _deepest_last(node: Any) -> tuple[Any, Any] | None:
    """The container and key (or index) of the last scalar in `node`'s subtree."""
    place = None
    while isinstance(node, (CommentedMap, CommentedSeq)) and len(node):
        key = list(node)[-1] if isinstance(node, CommentedMap) else len(node) - 1
        place = (node, key)
        node = node[key]
    return place


def _place(documents: ProjectDocuments, rel: str, path: Path_) -> tuple[Any, Any]:
    parent = documents.node(rel, path[:-1])
    value = parent[path[-1]]
    return _deepest_last(value) or (parent, path[-1])


def _slot(container: Any) -> int:
    return 2 if isinstance(container, CommentedMap) else 0


def _token(container: Any, key: Any) -> Any:
    entry = container.ca.items.get(key)
    return entry[_slot(container)] if entry else None


def _put(container: Any, key: Any, token: Any) -> None:
    entry = container.ca.items.get(key)
    if entry is None:
        if token is None:
            return
        entry = container.ca.items[key] = [None, None, None, None]
    entry[_slot(container)] = token
    if all(part is None for part in entry):
        del container.ca.items[key]


def _split(token: Any) -> tuple[str, str]:
    """(the end-of-line part, the lines after it) of a comment token."""
    if token is None:
        return "", ""
    head, _, rest = token.value.partition("\n")
    return head, rest


def _with_lines(token: Any, lines: str) -> Any:
    head, _ = _split(token)
    value = head + "\n" + lines
    if value == "\n":
        return None
    mark = token.start_mark if token is not None and token.start_mark is not None else CommentMark(0)
    return CommentToken(value, start_mark=mark)


@dataclass
class SetCommentToken:
    """Put a comment token (or none) on the last scalar under `path` (used as an exact inverse)."""

    rel: str
    path: Path_
    token: Any
    ids: tuple[str, ...] = ()
    label: str = "Move comment"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        container, key = _place(documents, self.rel, self.path)
        old = _token(container, key)
        _put(container, key, self.token)
        documents.touched(self.rel)
        return SetCommentToken(self.rel, self.path, old, self.ids, self.label), Changes.of(self.rel, *self.ids)


@dataclass
class MoveTrailingComment:
    """Move the comment lines after the last scalar under `source` to the end of those under `target`."""

    rel: str
    source: Path_
    target: Path_
    ids: tuple[str, ...] = ()
    label: str = "Move comment"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        source = _place(documents, self.rel, self.source)
        target = _place(documents, self.rel, self.target)
        source_token, target_token = _token(*source), _token(*target)
        lines = _split(source_token)[1]
        if not lines or (source[0] is target[0] and source[1] == target[1]):
            return Compound(self.label, []), Changes.of(self.rel, *self.ids)
        _put(*source, _with_lines(source_token, ""))
        _put(*target, _with_lines(target_token, _split(target_token)[1] + lines))
        documents.touched(self.rel)
        inverse = Compound(self.label, [SetCommentToken(self.rel, self.target, target_token, self.ids),
                                        SetCommentToken(self.rel, self.source, source_token, self.ids)])
        return inverse, Changes.of(self.rel, *self.ids)


def _step_before(documents: ProjectDocuments, rel: str, parent: Path_, position: int) -> Any:
    node = documents.node(rel, parent)
    return list(node)[position - 1] if isinstance(node, CommentedMap) else position - 1


def inserted(documents: ProjectDocuments, rel: str, parent: Path_, position: int, step: Any,
             insert: Command) -> list[Command]:
    """`insert` (a new child `step` at `position` of `parent`), then the comment lines that were
    over the next child move below the new one."""
    if position == 0:
        return [insert]
    before = _step_before(documents, rel, parent, position)
    return [insert, MoveTrailingComment(rel, (*parent, before), (*parent, step))]


def removed(documents: ProjectDocuments, rel: str, parent: Path_, position: int, step: Any,
            remove: Command) -> list[Command]:
    """The comment lines over the next child move to the child before, then `remove`."""
    if position == 0:
        return [remove]
    before = _step_before(documents, rel, parent, position)
    return [MoveTrailingComment(rel, (*parent, step), (*parent, before)), remove]


@dataclass
class InsertKeyInOrder:
    """Add `path`'s key to its mapping where `order` puts it (keys the order does not know keep
    their places), then move the comment lines over the next key below it. The place is found
    when applied, so several keys added to one mapping each land right."""

    rel: str
    path: Path_
    value: Any
    order: tuple[str, ...]
    ids: tuple[str, ...] = ()
    label: str = "Add value"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        parent_path, key = self.path[:-1], str(self.path[-1])
        mapping = documents.node(self.rel, parent_path)
        rank = self.order.index(key) if key in self.order else len(self.order)
        earlier = [index for index, name in enumerate(mapping)
                   if name in self.order and self.order.index(name) < rank]
        position = earlier[-1] + 1 if earlier else 0
        edit = Compound(self.label, inserted(documents, self.rel, parent_path, position, key,
                                             InsertKey(self.rel, self.path, self.value, position, None, self.ids,
                                                       self.label)))
        return edit.apply(documents)


@dataclass
class RemoveKeyKeepingComments:
    """Remove `path`'s key; the comment lines over the key after it move to the key before. The
    neighbours are found when applied, so other keys added to the mapping first are seen."""

    rel: str
    path: Path_
    ids: tuple[str, ...] = ()
    label: str = "Remove value"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        parent_path, key = self.path[:-1], self.path[-1]
        position = list(documents.node(self.rel, parent_path)).index(key)
        edit = Compound(self.label, removed(documents, self.rel, parent_path, position, key,
                                            RemoveKey(self.rel, self.path, self.ids, self.label)))
        return edit.apply(documents)
