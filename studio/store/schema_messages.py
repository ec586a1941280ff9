"""Pydantic schema errors as sentences a project author can act on.

An error inside a list names the object it is in, by the id the author wrote
(`criterion T05-C03: weight must be at most 10`), never by a 0-based position in the list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_core import ErrorDetails

# What one item of a list under this key is called, and the keys that name it, in order of preference.
_ITEMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "criteria": ("criterion", ("id", "reuse_of")),
    "materials": ("material", ("id",)),
    "references": ("reference", ("id",)),
    "stages": ("stage", ("id",)),
    "final_deliverables": ("final deliverable", ("id",)),
    "acceptance": ("acceptance item", ("id",)),
    "outputs": ("output", ("path",)),
    "handoffs": ("handoff", ()),
}


def clean_loc(loc: Sequence[str | int]) -> tuple[str | int, ...]:
    """The error's place in the file's data, without pydantic's validator tags."""
    return tuple(p for p in loc if not (isinstance(p, str) and p.startswith("function-")))


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _name_of(key: str, index: int, item: Any) -> tuple[str, str | None]:
    """How to call item `index` of the list under `key` (and its id when it has one)."""
    noun, id_keys = _ITEMS.get(key, (key, ("id",)))
    if isinstance(item, dict):
        for id_key in id_keys:
            value = item.get(id_key)
            if isinstance(value, str | int) and str(value).strip():
                return f"{noun} {value}", str(value) if id_key != "path" else None
        if key == "handoffs" and isinstance(item.get("from"), str):
            return f"handoff from {item['from']}" + (f" to {item['to']}" if isinstance(item.get("to"), str) else ""), None
        return f"the {_ordinal(index + 1)} {noun} (it has no {id_keys[0] if id_keys else 'id'})", None
    # A plain value in a list (an id under `requires`, a path under `covers`): name it by its place, counted from 1.
    return f"{key} item {index + 1}", None


def subject(data: Any, loc: Sequence[str | int]) -> tuple[str, str, str | None]:
    """(the named object, the field path inside it, the object's id) for `loc` in `data`.

    `criteria.2.review.status` in a rubric whose third criterion is T05-C03 gives
    ("criterion T05-C03", "review.status", "T05-C03").
    """
    named, object_id = "", None
    fields: list[str] = []
    node = data
    parent_key = ""
    for part in loc:
        if isinstance(part, int):
            item = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            name, ident = _name_of(parent_key, part, item)
            if isinstance(item, dict):
                named, object_id, fields = name, ident or object_id, []
            elif fields and fields[-1] == parent_key:
                fields[-1] = name  # `requires item 2` rather than `requires.1`
            else:
                fields.append(name)
            node = item
        else:
            fields.append(part)
            parent_key = part
            node = node.get(part) if isinstance(node, dict) else None
    return named, ".".join(fields), object_id


def _reworded(error: ErrorDetails) -> str | None:
    """The error's message as `must ...`, for the kinds an author meets most; None for the rest."""
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "less_than_equal":
        return f"must be at most {ctx.get('le')}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "enum":
        return f"must be one of {ctx.get('expected')}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "too_short":
        count = ctx.get("min_length", 1)
        return f"needs at least {count} item{'s' if count != 1 else ''}"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return "must be a mapping of keys to values"
    if kind == "list_type":
        return "must be a list (one `- item` per line)"
    return None


def describe(error: ErrorDetails, data: Any) -> tuple[str, str | None]:
    """A pydantic error on `data` (the file's parsed YAML) as (sentence, id of the object at fault)."""
    loc = clean_loc(error["loc"])
    named, where, object_id = subject(data, loc)
    kind = error["type"]
    last = str(loc[-1]) if loc else ""
    parent = where.rpartition(".")[0]
    if kind == "extra_forbidden":
        message = f"unknown key '{last}': remove it or check its spelling"
        message = f"{parent}: {message}" if parent else message
    elif kind == "missing":
        message = f"missing required key '{last}'"
        message = f"{parent}: {message}" if parent else message
    else:
        reworded = _reworded(error)
        text = error["msg"].removeprefix("Value error, ")
        if kind == "string_pattern_mismatch":
            text = f"'{error.get('input')}' is not a valid id or path here"
        if reworded is not None:
            message = f"{where} {reworded}" if where else reworded
        else:
            message = f"{where}: {text}" if where else text
    return (f"{named}: {message}" if named else message), object_id
