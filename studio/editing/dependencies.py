"""The dependency map in the domain's words: add, edit in place or remove a handoff (an output of one subtask
that a later subtask works on)."""

from __future__ import annotations

import re

from studio.editing.catalog import require_subtask
from studio.editing.commands import Command, Compound, InsertItem, RemoveItem, RemoveKey, SetValue
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import HANDOFFS, listed, object_location
from studio.editing.files import PutFile, yaml_text
from studio.errors import StudioError
from studio.model.base import ID_PATTERN
from studio.store import layout

ARTIFACT_REF = re.compile(ID_PATTERN[:-1] + r":(?!/)[^\\:*?\"<>|]+$")
MAP_COMMENT = "The dependency map: which subtask outputs later subtasks work on."


class HandoffError(StudioError):
    """A handoff that cannot be added (a malformed output reference, a place out of range)."""


def add_handoff(documents: ProjectDocuments, source_ref: str, to_subtask: str, carries: str | None,
                index: int | None = None) -> Command:
    """Record that output `source_ref` (SUBTASK:PATH) is a working input of `to_subtask`."""
    if not ARTIFACT_REF.match(source_ref):
        raise HandoffError(f"'{source_ref}' is not an output reference: write SUBTASK:PATH, e.g. "
                           "T02:outputs/debt_inventory.xlsx")
    require_subtask(documents, to_subtask)
    handoff: dict[str, str] = {"from": source_ref, "to": to_subtask}
    if carries:
        handoff["carries"] = carries
    label = f"Add handoff {source_ref} to {to_subtask}"
    producer = source_ref.split(":", 1)[0]
    rel = layout.DEPENDENCIES_FILE
    if not documents.exists(rel):
        return PutFile(rel, yaml_text({"handoffs": [handoff]}, MAP_COMMENT), (producer, to_subtask), label)
    size = len(listed(documents, rel, HANDOFFS))
    place = size if index is None else index
    if not 0 <= place <= size:
        raise HandoffError(f"{rel} has no place {place} (it has {size} handoffs)")
    if "handoffs" not in documents.node(rel, ()):
        return SetValue(rel, HANDOFFS, [handoff], (producer, to_subtask), label)
    return InsertItem(rel, HANDOFFS, place, handoff, ids=(producer, to_subtask), label=label)


def set_handoff(documents: ProjectDocuments, index: int, source_ref: str, to_subtask: str,
                carries: str | None) -> Command:
    """Change handoff `index` in place: what it hands over, to whom, what it carries (None: nothing said).
    Its place in the map, its comments and the keys it does not change stay as they are."""
    if not ARTIFACT_REF.match(source_ref):
        raise HandoffError(f"'{source_ref}' is not an output reference: write SUBTASK:PATH, e.g. "
                           "T02:outputs/debt_inventory.xlsx")
    require_subtask(documents, to_subtask)
    producer = source_ref.split(":", 1)[0]
    if producer == to_subtask:
        raise HandoffError(f"a handoff goes from one subtask to a later one: {source_ref} cannot be handed to "
                           f"{to_subtask} itself")
    rel, path = object_location(documents, "handoff", str(index))
    handoff = documents.node(rel, path)
    before = (handoff.get("from"), handoff.get("to"), handoff.get("carries"))
    for number, other in enumerate(listed(documents, rel, HANDOFFS)):
        if number != index and isinstance(other, dict) and (other.get("from"), other.get("to")) == (source_ref,
                                                                                                   to_subtask):
            raise HandoffError(f"{source_ref} is already handed to {to_subtask} (handoff {number}): edit that one, "
                               "or hand this one to another subtask")
    carries = carries.strip() if carries and carries.strip() else None
    ids = tuple(dict.fromkeys(i for i in (str(before[0] or "").split(":", 1)[0], str(before[1] or ""), producer,
                                          to_subtask) if i))
    label = f"Edit handoff {source_ref} to {to_subtask}"
    edits: list[Command] = []
    if before[0] != source_ref:
        edits.append(SetValue(rel, (*path, "from"), source_ref, ids, label))
    if before[1] != to_subtask:
        edits.append(SetValue(rel, (*path, "to"), to_subtask, ids, label))
    if carries != before[2]:
        edits.append(SetValue(rel, (*path, "carries"), carries, ids, label) if carries is not None
                     else RemoveKey(rel, (*path, "carries"), ids, label))
    if not edits:
        raise HandoffError(f"handoff {source_ref} to {to_subtask} already is as given: nothing to change")
    return Compound(label, edits)


def remove_handoff(documents: ProjectDocuments, index: int) -> RemoveItem:
    rel, path = object_location(documents, "handoff", str(index))
    handoff = documents.node(rel, path)
    producer = str(handoff.get("from", "")).split(":", 1)[0]
    return RemoveItem(rel, HANDOFFS, index, tuple(i for i in (producer, str(handoff.get("to", ""))) if i),
                      f"Remove handoff {handoff.get('from')} to {handoff.get('to')}")
