"""Ids of new or renamed objects: checked for form and clashes, and the next free one suggested."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from studio.errors import StudioError
from studio.model.base import ID_PATTERN

MAX_ID_LENGTH = 64


class IdError(StudioError):
    """An id that is malformed, or already another object's."""


def check_new_id(new: str, taken: Mapping[str, str], what: str) -> None:
    """Refuse `new` for a `what` (e.g. "material") when malformed or a key of `taken`, which maps
    each id in use to what holds it ("the material in materials.yaml")."""
    if not isinstance(new, str) or not re.fullmatch(ID_PATTERN, new) or len(new) > MAX_ID_LENGTH:
        raise IdError(f"'{new}' is not a valid {what} id: use letters, digits, '.', '-' and '_', starting with a "
                      f"letter or digit, at most {MAX_ID_LENGTH} characters")
    if new in taken:
        raise IdError(f"'{new}' is already the id of {taken[new]}: pick another {what} id")


def next_id(existing: Iterable[str], prefix: str) -> str:
    """The id after the highest `prefix`+number in `existing`, as wide as they are written:
    T01..T10 gives T11, S1..S4 gives S5, none gives T01."""
    taken = set(existing)
    numbered = [match for ident in taken if (match := re.fullmatch(re.escape(prefix) + r"(\d+)", ident))]
    if not numbered:
        return f"{prefix}01"
    width = max(len(match.group(1)) for match in numbered)
    number = max(int(match.group(1)) for match in numbered) + 1
    while f"{prefix}{number:0{width}d}" in taken:
        number += 1
    return f"{prefix}{number:0{width}d}"
