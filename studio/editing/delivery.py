"""The delivery contract in the domain's words: final deliverables and acceptance requirements."""

from __future__ import annotations

import re
from typing import Any

from studio.editing.catalog import taken_ids
from studio.editing.commands import Command, Compound, InsertItem, RemoveItem, RemoveKey, SetValue
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import ACCEPTANCE, DELIVERABLES, listed, object_location
from studio.editing.ids import check_new_id
from studio.editing.rubric import CRITERIA, rubric_files
from studio.editing.usages import describe, usages
from studio.errors import StudioError
from studio.store import layout


class DeliveryError(StudioError):
    """A delivery edit that cannot be made (a deliverable criteria still cover, a place out of range)."""


def add_deliverable(documents: ProjectDocuments, deliverable: dict[str, Any], index: int | None = None) -> InsertItem:
    """A new final deliverable (`id`, `path`, `title`, `produced_by`, optional `audience`), last by default."""
    deliverable_id = str(deliverable.get("id", ""))
    check_new_id(deliverable_id, taken_ids(documents, "deliverable"), "final deliverable")
    size = len(listed(documents, layout.PROJECT_FILE, DELIVERABLES))
    place = size if index is None else index
    if not 0 <= place <= size:
        raise DeliveryError(f"{layout.PROJECT_FILE} has no place {place} among the final deliverables (it has {size})")
    documents.node(layout.PROJECT_FILE, DELIVERABLES)  # a project.yaml without the list is named, not guessed
    return InsertItem(layout.PROJECT_FILE, DELIVERABLES, place, deliverable, ids=(deliverable_id,),
                      label=f"Add final deliverable {deliverable_id}")


def remove_deliverable(documents: ProjectDocuments, deliverable_id: str, *, force: bool = False) -> RemoveItem:
    """Remove a final deliverable; refused while final criteria cover it, unless `force`."""
    rel, path = object_location(documents, "deliverable", deliverable_id)
    named = usages(documents, "deliverable", deliverable_id)
    if named and not force:
        raise DeliveryError(f"final deliverable {deliverable_id} is still covered by {describe(named)}: "
                            "change those criteria first")
    return RemoveItem(rel, DELIVERABLES, int(path[-1]), (deliverable_id,), f"Remove final deliverable {deliverable_id}")


def acceptance_ids(documents: ProjectDocuments) -> list[str]:
    """The ids of the acceptance items, in file order (an item still written as plain text has none)."""
    return [str(item["id"]) for item in listed(documents, layout.PROJECT_FILE, ACCEPTANCE)
            if isinstance(item, dict) and "id" in item]


def next_acceptance_id(taken: list[str]) -> str:
    """AC1, AC2, ...: one past the highest ACn in use."""
    numbers = [int(match.group(1)) for ident in taken if (match := re.fullmatch(r"AC(\d+)", ident))]
    number = max(numbers, default=0) + 1
    while f"AC{number}" in taken:
        number += 1
    return f"AC{number}"


def add_acceptance(documents: ProjectDocuments, text: str, index: int | None = None,
                   item_id: str | None = None) -> InsertItem:
    """A new acceptance item of the delivery contract (last by default), with the next free id
    unless `item_id` is given."""
    if not text or not text.strip():
        raise DeliveryError("an acceptance requirement needs its text")
    size = len(documents.node(layout.PROJECT_FILE, ACCEPTANCE))
    place = size if index is None else index
    if not 0 <= place <= size:
        raise DeliveryError(f"{layout.PROJECT_FILE} has no place {place} among the acceptance requirements "
                            f"(it has {size})")
    taken = acceptance_ids(documents)
    new_id = item_id if item_id is not None else next_acceptance_id(taken)
    check_new_id(new_id, {ident: "an acceptance item in project.yaml" for ident in taken}, "acceptance item")
    return InsertItem(layout.PROJECT_FILE, ACCEPTANCE, place, {"id": new_id, "text": text.strip()}, ids=(new_id,),
                      label=f"Add acceptance item {new_id}")


def remove_acceptance(documents: ProjectDocuments, index: int) -> Command:
    """Remove acceptance item `index`; final criteria that test it stop naming it (undone together)."""
    items = documents.node(layout.PROJECT_FILE, ACCEPTANCE)
    size = len(items)
    if not 0 <= index < size:
        raise DeliveryError(f"{layout.PROJECT_FILE} has no acceptance requirement {index} (it has {size})")
    item = items[index]
    item_id = str(item["id"]) if isinstance(item, dict) and "id" in item else None
    if item_id is None:
        return RemoveItem(layout.PROJECT_FILE, ACCEPTANCE, index, label="Remove acceptance requirement")
    edits: list[Command] = [RemoveItem(layout.PROJECT_FILE, ACCEPTANCE, index, (item_id,),
                                       f"Remove acceptance item {item_id}")]
    edits += _untested(documents, item_id)
    return Compound(f"Remove acceptance item {item_id}", edits)


def _untested(documents: ProjectDocuments, item_id: str) -> list[Command]:
    """Edits taking `item_id` out of every criterion's `tests` (the key goes when it empties)."""
    edits: list[Command] = []
    for rel in rubric_files(documents):
        for index, criterion in enumerate(listed(documents, rel, CRITERIA)):
            tests = criterion.get("tests") if isinstance(criterion, dict) else None
            if not isinstance(tests, list) or item_id not in tests:
                continue
            key = str(criterion.get("id") or criterion.get("reuse_of") or "")
            if tests == [item_id]:
                edits.append(RemoveKey(rel, (*CRITERIA, index, "tests"), (key,)))
            else:
                edits.append(RemoveItem(rel, (*CRITERIA, index, "tests"), tests.index(item_id), (key,)))
    return edits


def number_acceptance(documents: ProjectDocuments) -> Command | None:
    """Give every acceptance item still written as plain text an id (AC1, AC2, ... after the ids
    in use) and a `text`, in place: the migration of projects written before items had ids.
    None when there is nothing to migrate."""
    items = listed(documents, layout.PROJECT_FILE, ACCEPTANCE)
    taken = acceptance_ids(documents)
    edits: list[Command] = []
    for index, item in enumerate(items):
        if isinstance(item, str):
            new_id = next_acceptance_id(taken)
            taken.append(new_id)
            edits.append(SetValue(layout.PROJECT_FILE, (*ACCEPTANCE, index), {"id": new_id, "text": item},
                                  (new_id,), f"Number acceptance item {new_id}"))
    if not edits:
        return None
    return Compound(f"Number {len(edits)} acceptance item{'s' if len(edits) != 1 else ''}", edits)
