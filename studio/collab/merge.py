"""A three-way merge of one project YAML file by object, not by line.

Lists of objects (stages, subtasks, materials, handoffs, deliverables, acceptance items,
criteria, outputs) are matched by what names each: its id, a reused criterion's `reuse_of`, an
output's path, a handoff's from and to; mappings key by key, and each other value (a
number, a text, a list of plain values such as `covers`) is one field, but for a list both sides
only appended to, which keeps both sides' additions. A field changed on one
side takes that side; changed alike on both, either; changed differently on both, it is a
conflict: the merged file keeps ours' value there (so it still loads) and the conflict is
returned for the expert to settle. An object added on one side is kept (at its place after the
object it follows), one deleted on one side and untouched on the other goes, one deleted on one
side and changed on the other is a conflict. The merged tree is ours' round-trip tree, edited in
place: ours' comments and key order stay; what is taken from theirs keeps theirs' comments.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from studio.errors import StudioError
from studio.store.yamlfile import YamlDocument, YamlSyntaxError, make_yaml, plain

Step = str | tuple[str, str]
"""One step of a field's path: a mapping key, or ("id", ID) for the object with that id in a list."""


class _Missing:
    """A side where the field or object does not exist (deleted, or never added)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class MergeError(StudioError):
    """A side of the merge is not YAML this merge can read: the file is merged as text instead."""


@dataclass(frozen=True)
class FieldConflict:
    """One field (or object) both sides changed differently; values are plain (dicts, lists,
    scalars) or MISSING where that side has no such field."""

    path: tuple[Step, ...]
    base: Any
    ours: Any
    theirs: Any

    @property
    def field(self) -> str:
        return field_name(self.path)


@dataclass(frozen=True)
class Merged:
    """The merged text and what it could not settle."""

    text: str
    conflicts: tuple[FieldConflict, ...]


def field_name(path: tuple[Step, ...]) -> str:
    """`criteria[T05-C02].weight` for ("criteria", ("id", "T05-C02"), "weight"); "(whole file)" for ()."""
    name = ""
    for step in path:
        if isinstance(step, tuple):
            name += f"[{step[1]}]"
        else:
            name += f".{step}" if name else step
    return name or "(whole file)"


def parse_field(name: str) -> tuple[Step, ...]:
    """The path a field name stands for (field_name's inverse)."""
    if name == "(whole file)":
        return ()
    steps: list[Step] = []
    rest = name
    while rest:
        if rest.startswith("["):
            end = rest.index("]")
            steps.append(("id", rest[1:end]))
            rest = rest[end + 1:]
        else:
            rest = rest[1:] if rest.startswith(".") else rest
            cut = min((i for i in (rest.find("."), rest.find("[")) if i >= 0), default=len(rest))
            steps.append(rest[:cut])
            rest = rest[cut:]
    return tuple(steps)


def merge_yaml(base_text: str | None, ours_text: str, theirs_text: str, name: str = "file") -> Merged:
    """Merge theirs into ours against base (None: the file is new on both sides)."""
    base = _parse(base_text, name, "the common ancestor") if base_text is not None else MISSING
    ours = _parse(ours_text, name, "ours")
    theirs = _parse(theirs_text, name, "theirs")
    merger = _Merger()
    merged = merger.merge(base, ours, theirs, ())
    if merged is MISSING:
        return Merged("", tuple(merger.conflicts))
    if merged is ours:
        text = ours_text if not merger.changed else _dump(merged)
    else:
        text = theirs_text if merged is theirs else _dump(merged)
    return Merged(text, tuple(merger.conflicts))


def _parse(text: str, name: str, side: str) -> Any:
    try:
        return YamlDocument.parse(Path(name), text).data
    except YamlSyntaxError as error:
        raise MergeError(f"{name} ({side}): {error}") from None


def _dump(data: Any) -> str:
    stream = io.StringIO()
    make_yaml().dump(data, stream)
    return stream.getvalue()


def _plain(node: Any) -> Any:
    return MISSING if node is MISSING else plain(node)


def _is_mapping(node: Any) -> bool:
    return isinstance(node, dict)


IDENTITIES = (("id",), ("reuse_of",), ("path",), ("from", "to"))
"""What names an object in a list, first found first: an id; a reused criterion's reuse_of; an
output's path; a handoff's from and to."""


def identity_of(item: Any) -> str | None:
    """The name of one object of a list (`T01:outputs/memo.md → T02` for a handoff), or None."""
    if not isinstance(item, dict):
        return None
    for keys in IDENTITIES:
        values = [item.get(key) for key in keys]
        if all(isinstance(value, str) and value for value in values):
            return " → ".join(str(value) for value in values)
    return None


def _ids(node: Any) -> list[str] | None:
    """The names of a list whose items are all objects with distinct names, else None."""
    if not isinstance(node, list) or not node:
        return None
    ids = [identity_of(item) for item in node]
    if any(value is None for value in ids) or len(set(ids)) != len(ids):
        return None
    return [str(value) for value in ids]


class _Merger:
    def __init__(self) -> None:
        self.conflicts: list[FieldConflict] = []
        self.changed = False  # ours' tree was edited: dump it

    def conflict(self, path: tuple[Step, ...], base: Any, ours: Any, theirs: Any) -> None:
        self.conflicts.append(FieldConflict(path, _plain(base), _plain(ours), _plain(theirs)))

    def merge(self, base: Any, ours: Any, theirs: Any, path: tuple[Step, ...]) -> Any:
        """The merged node (ours' own node where ours is kept; MISSING where the field goes).
        Comments count as changes here, so a side that only added a comment keeps it."""
        signed_ours, signed_theirs = _signature(ours), _signature(theirs)
        if signed_ours == signed_theirs:
            return ours
        signed_base = _signature(base)
        if signed_base == signed_ours:
            return theirs
        if signed_base == signed_theirs:
            return ours
        if ours is MISSING or theirs is MISSING:  # deleted on one side, changed on the other
            kept = theirs if ours is MISSING else ours
            if _plain(base) == _plain(kept):
                return MISSING  # the other side only touched its comments: the deletion stands
            self.conflict(path, base, ours, theirs)
            return ours
        if _is_mapping(ours) and _is_mapping(theirs) and (base is MISSING or _is_mapping(base)):
            self._merge_mapping({} if base is MISSING else base, ours, theirs, path)
            return ours
        ours_ids, theirs_ids = _ids(ours), _ids(theirs)
        base_ids = [] if base is MISSING or base == [] else _ids(base)
        if ours_ids is not None and theirs_ids is not None and base_ids is not None:
            self._merge_objects({} if base is MISSING else dict(zip(base_ids, base, strict=True)), base_ids,
                                ours, ours_ids, theirs, theirs_ids, path)
            return ours
        plain_base, plain_ours, plain_theirs = _plain(base), _plain(ours), _plain(theirs)
        if isinstance(ours, list) and isinstance(theirs, list) and isinstance(base, list) and base:
            start = len(base)
            if plain_ours[:start] == plain_base and plain_theirs[:start] == plain_base:
                # Both sides only appended (two replies to one comment thread, two ids added to
                # `covers`): ours' additions, then theirs' that ours does not have.
                for item, value in zip(theirs[start:], plain_theirs[start:], strict=True):
                    if value not in plain_ours[start:]:
                        ours.append(item)
                        self.changed = True
                return ours
        if plain_ours == plain_theirs or plain_base == plain_theirs:
            return ours  # the same values, or theirs changed only comments inside a plain list
        if plain_base == plain_ours:
            return theirs
        self.conflict(path, base, ours, theirs)
        return ours

    # -- mappings: key by key -------------------------------------------------------------------
    def _merge_mapping(self, base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any],
                       path: tuple[Step, ...]) -> None:
        self._merge_comments(base, ours, theirs)
        for key in list(ours):
            merged = self.merge(base.get(key, MISSING), ours[key], theirs.get(key, MISSING), (*path, str(key)))
            if merged is MISSING:
                del ours[key]
                self.changed = True
            elif merged is not ours[key]:
                ours[key] = merged
                self.changed = True
        previous: Any = None
        for key in theirs:
            if key in ours:
                previous = key
                continue
            merged = self.merge(base.get(key, MISSING), MISSING, theirs[key], (*path, str(key)))
            if merged is MISSING:
                continue  # ours deleted it and theirs left it alone (or a recorded conflict)
            place = list(ours).index(previous) + 1 if previous in ours else 0
            if isinstance(ours, CommentedMap):
                ours.insert(place, key, merged)
                _copy_key_comment(theirs, ours, key)
            else:
                ours[key] = merged
            self.changed = True
            previous = key

    def _merge_comments(self, base: Any, ours: Any, theirs: Any) -> None:
        """The comments on a mapping's own lines (after a key, before the first): theirs' where only
        theirs changed them."""
        if not isinstance(ours, CommentedMap):
            return
        for key in ours:
            if key not in theirs:
                continue
            own, other, was = (_comment_text(_key_comment(node, key)) for node in (ours, theirs, base))
            if own == was and other != was:
                item = _key_comment(theirs, key)
                if item is None:
                    ours.ca.items.pop(key, None)
                else:
                    ours.ca.items[key] = item
                self.changed = True
        own, other, was = (_comment_text(getattr(getattr(node, "ca", None), "comment", None))
                           for node in (ours, theirs, base))
        if own == was and other != was:
            ours.ca.comment = theirs.ca.comment if isinstance(theirs, CommentedMap) else None
            self.changed = True

    # -- lists of objects: by id ----------------------------------------------------------------
    def _merge_objects(self, base: dict[str, Any], base_ids: list[str], ours: list[Any], ours_ids: list[str],
                       theirs: list[Any], theirs_ids: list[str], path: tuple[Step, ...]) -> None:
        theirs_by_id = dict(zip(theirs_ids, theirs, strict=True))
        # Each of ours' objects against theirs (deleted ones go from the end, so places hold).
        for place in range(len(ours) - 1, -1, -1):
            object_id = ours_ids[place]
            merged = self.merge(base.get(object_id, MISSING), ours[place], theirs_by_id.get(object_id, MISSING),
                                (*path, ("id", object_id)))
            if merged is MISSING:
                del ours[place]
                del ours_ids[place]
                self.changed = True
            elif merged is not ours[place]:
                ours[place] = merged
                self.changed = True
        # Theirs' new objects, each after the object it follows in theirs.
        previous: str | None = None
        for object_id, item in zip(theirs_ids, theirs, strict=True):
            if object_id in ours_ids:
                previous = object_id
                continue
            merged = self.merge(base.get(object_id, MISSING), MISSING, item, (*path, ("id", object_id)))
            if merged is MISSING:
                continue
            place = ours_ids.index(previous) + 1 if previous in ours_ids else 0
            while place < len(ours_ids) and ours_ids[place] not in base and ours_ids[place] not in theirs_by_id:
                place += 1  # after what ours added there: each side's additions stay together
            ours.insert(place, merged)
            ours_ids.insert(place, object_id)
            self.changed = True
            previous = object_id
        self._follow_reorder(base_ids, ours, ours_ids, theirs_ids)

    def _follow_reorder(self, base_ids: list[str], ours: list[Any], ours_ids: list[str], theirs_ids: list[str]) -> None:
        """Theirs moved objects and ours kept the base's order: the objects both have take theirs' order."""
        kept = [object_id for object_id in ours_ids if object_id in base_ids and object_id in theirs_ids]
        base_order = [object_id for object_id in base_ids if object_id in kept]
        theirs_order = [object_id for object_id in theirs_ids if object_id in kept]
        if kept != base_order or theirs_order == base_order:
            return
        places = [ours_ids.index(object_id) for object_id in kept]
        items = {object_id: ours[ours_ids.index(object_id)] for object_id in kept}
        for place, object_id in zip(places, theirs_order, strict=True):
            ours[place] = items[object_id]
            ours_ids[place] = object_id
        self.changed = True


def _key_comment(node: Any, key: Any) -> Any:
    comments = getattr(node, "ca", None)
    return comments.items.get(key) if comments is not None else None


def _comment_text(item: Any) -> str:
    """The text of a comment item of ruamel's (a token, a list of tokens, nested, or None)."""
    if item is None:
        return ""
    if isinstance(item, list):
        return "".join(_comment_text(part) for part in item)
    return str(getattr(item, "value", ""))


def _signature(node: Any) -> Any:
    """A node's values and its comments, comparable: two nodes with the same signature read and
    look alike."""
    if node is MISSING:
        return node
    if isinstance(node, dict):
        comments = getattr(node, "ca", None)
        return ("map", tuple((key, _signature(value), _comment_text(_key_comment(node, key)))
                             for key, value in node.items()),
                _comment_text(comments.comment) if comments is not None else "")
    if isinstance(node, list):
        comments = getattr(node, "ca", None)
        return ("seq", tuple((_signature(value), _comment_text(comments.items.get(n)) if comments is not None else "")
                             for n, value in enumerate(node)),
                _comment_text(comments.comment) if comments is not None else "")
    value = plain(node)
    return (isinstance(value, bool), value)  # `true` is not `1`


def _copy_key_comment(source: Any, target: CommentedMap, key: Any) -> None:
    """A comment written on the line of a key theirs added goes with it."""
    comment = getattr(source, "ca", None)
    if comment is not None and key in comment.items:
        target.ca.items[key] = comment.items[key]


# -- settling one conflict ------------------------------------------------------------------------
def set_field(text: str, path: tuple[Step, ...], value: Any, name: str = "file") -> str:
    """`text` with the field at `path` set to `value` (plain; MISSING removes it), comments kept."""
    if not path:
        return "" if value is MISSING else _dump(value)
    data = _parse(text, name, "the merged file")
    parent = data
    for step in path[:-1]:
        parent = _child(parent, step, name, path)
    last = path[-1]
    if isinstance(last, tuple):
        if not isinstance(parent, list):
            raise MergeError(f"{name}: {field_name(path)} is not in a list of objects any more")
        places = [n for n, item in enumerate(parent) if identity_of(item) == last[1]]
        if value is MISSING:
            for place in reversed(places):
                del parent[place]
        elif places:
            parent[places[0]] = _node(value)
        else:
            parent.append(_node(value))
    else:
        if not isinstance(parent, dict):
            raise MergeError(f"{name}: {field_name(path)} is not in a mapping any more")
        if value is MISSING:
            parent.pop(last, None)
        else:
            parent[last] = _node(value)
    return _dump(data)


def _child(node: Any, step: Step, name: str, path: tuple[Step, ...]) -> Any:
    if isinstance(step, tuple):
        if isinstance(node, list):
            for item in node:
                if identity_of(item) == step[1]:
                    return item
    elif isinstance(node, dict) and step in node:
        return node[step]
    raise MergeError(f"{name}: {field_name(path)} no longer exists in the merged file: "
                     "take the side that keeps its object first")


def _node(value: Any) -> Any:
    """A plain value as a round-trip node (mappings and lists keep block style)."""
    if isinstance(value, dict):
        node = CommentedMap()
        for key, item in value.items():
            node[key] = _node(item)
        return node
    if isinstance(value, list):
        return CommentedSeq(_node(item) for item in value)
    return value

