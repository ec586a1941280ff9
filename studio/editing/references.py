"""Evaluator-only references in the domain's words: add one (optionally importing its file under
evaluator/), remove one. Kept apart from materials: nothing here ever reaches the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.editing.catalog import taken_ids
from studio.editing.commands import Command, Compound, InsertItem, RemoveItem
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import REFERENCES, listed, object_location
from studio.editing.files import PutFile, yaml_text
from studio.editing.ids import check_new_id
from studio.editing.materials import MaterialError, import_file
from studio.store import layout

REFERENCES_COMMENT = "Evaluator-only references: judges read these, agents never do. Files live under evaluator/."


def add_reference(documents: ProjectDocuments, reference: dict[str, Any], source: Path | None = None,
                  index: int | None = None) -> Compound:
    """A new evaluator reference (`id`, `file` under evaluator/, `title`, `for`: subtask ids or
    'final'). With `source`, that file is copied under evaluator/ (as `file` when given, else by
    its own name or the first free variant) and `file` set to where it went."""
    reference_id = str(reference.get("id", ""))
    check_new_id(reference_id, taken_ids(documents, "reference"), "evaluator reference")
    entry = dict(reference)
    edits: list[Command] = []
    if source is not None:
        name, copy = import_file(documents, layout.EVALUATOR_DIR, source, entry.get("file"), reference_id)
        entry["file"] = name
        edits.append(copy)
    rel = layout.REFERENCES_FILE
    label = f"Add evaluator reference {reference_id}"
    if not documents.exists(rel):
        edits.append(PutFile(rel, yaml_text({"references": [entry]}, REFERENCES_COMMENT), (reference_id,), label))
        return Compound(label, edits)
    size = len(listed(documents, rel, REFERENCES))
    place = size if index is None else index
    if not 0 <= place <= size:
        raise MaterialError(f"{rel} has no place {place} (it has {size} references)")
    edits.append(InsertItem(rel, REFERENCES, place, entry, ids=(reference_id,), label=label))
    return Compound(label, edits)


def remove_reference(documents: ProjectDocuments, reference_id: str, *, delete_file: bool = True) -> Compound:
    """Remove an evaluator reference, and its file under evaluator/ unless another reference lists it."""
    rel, path = object_location(documents, "reference", reference_id)
    edits: list[Command] = [RemoveItem(rel, REFERENCES, int(path[-1]), (reference_id,))]
    name = documents.node(rel, path).get("file")
    others = [item.get("file") for item in listed(documents, rel, REFERENCES)
              if isinstance(item, dict) and item.get("id") != reference_id]
    stored = f"{layout.EVALUATOR_DIR}/{name}"
    if delete_file and isinstance(name, str) and name not in others and documents.exists(stored):
        edits.append(PutFile(stored, None, (reference_id,)))
    return Compound(f"Remove evaluator reference {reference_id}", edits)
