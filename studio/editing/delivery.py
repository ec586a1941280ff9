"""The delivery contract in the domain's words: final deliverables and acceptance requirements."""

from __future__ import annotations

from typing import Any

from studio.editing.catalog import taken_ids
from studio.editing.commands import InsertItem, RemoveItem
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import ACCEPTANCE, DELIVERABLES, listed, object_location
from studio.editing.ids import check_new_id
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


def add_acceptance(documents: ProjectDocuments, text: str, index: int | None = None) -> InsertItem:
    """A new acceptance requirement of the delivery contract, last by default."""
    if not text or not text.strip():
        raise DeliveryError("an acceptance requirement needs its text")
    size = len(documents.node(layout.PROJECT_FILE, ACCEPTANCE))
    place = size if index is None else index
    if not 0 <= place <= size:
        raise DeliveryError(f"{layout.PROJECT_FILE} has no place {place} among the acceptance requirements "
                            f"(it has {size})")
    return InsertItem(layout.PROJECT_FILE, ACCEPTANCE, place, text.strip(), label="Add acceptance requirement")


def remove_acceptance(documents: ProjectDocuments, index: int) -> RemoveItem:
    size = len(documents.node(layout.PROJECT_FILE, ACCEPTANCE))
    if not 0 <= index < size:
        raise DeliveryError(f"{layout.PROJECT_FILE} has no acceptance requirement {index} (it has {size})")
    return RemoveItem(layout.PROJECT_FILE, ACCEPTANCE, index, label="Remove acceptance requirement")
