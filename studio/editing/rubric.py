"""Edits of rubrics in the domain's words: a criterion's field, a new criterion, removing or
moving one. Each builds an elementary command against the right file and list position."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from studio.editing.commands import Command, Compound, InsertItem, InsertKey, MoveItem, RemoveItem, RemoveKey, SetValue
from studio.editing.documents import EditPathError, ProjectDocuments
from studio.errors import StudioError
from studio.model.base import ID_PATTERN
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

CRITERIA = ("criteria",)


class RenameError(StudioError):
    """A criterion cannot take the new id (malformed, or already another criterion's)."""


def rubric_file(scope: str) -> str:
    """The rubric file of a scope: a subtask id, or 'final'."""
    if scope == FINAL_SCOPE:
        return layout.FINAL_RUBRIC_FILE
    return layout.checkpoint_rubric_file(Path(), scope).as_posix()


def criterion_field(column: str) -> str:
    """The key of a criterion's entry that a rubric table's column edits (review fields sit under `review`)."""
    return f"review.{column}" if column in ("status", "reviewer") else column


def gate_fields(gate: bool, weight: int | None) -> dict[str, Any]:
    """A gate has weight 0; a criterion that stops being one gets weight 1 (the expert sets the rest)."""
    if gate:
        return {"gate": True, "weight": 0}
    return {"gate": False, "weight": weight or 1}


def criterion_position(documents: ProjectDocuments, scope: str, criterion_id: str) -> int:
    criteria = documents.node(rubric_file(scope), CRITERIA)
    for index, item in enumerate(criteria):
        if isinstance(item, dict) and item.get("id") == criterion_id:
            return index
    raise EditPathError(f"{rubric_file(scope)}: no criterion {criterion_id}")


def set_criterion_field(documents: ProjectDocuments, scope: str, criterion_id: str, field: str,
                        value: Any) -> SetValue:
    index = criterion_position(documents, scope, criterion_id)
    return SetValue(rubric_file(scope), (*CRITERIA, index, field), value, (criterion_id,),
                    f"Set {field} of {criterion_id}")


def add_criterion(documents: ProjectDocuments, scope: str, criterion: dict[str, Any],
                  index: int | None = None) -> InsertItem:
    criteria = documents.node(rubric_file(scope), CRITERIA)
    place = len(criteria) if index is None else index
    return InsertItem(rubric_file(scope), CRITERIA, place, criterion, ids=(str(criterion.get("id", "")),),
                      label=f"Add criterion {criterion.get('id', '')}")


def remove_criterion(documents: ProjectDocuments, scope: str, criterion_id: str) -> RemoveItem:
    index = criterion_position(documents, scope, criterion_id)
    return RemoveItem(rubric_file(scope), CRITERIA, index, (criterion_id,), f"Remove criterion {criterion_id}")


def move_criterion(documents: ProjectDocuments, scope: str, criterion_id: str, target: int) -> MoveItem:
    index = criterion_position(documents, scope, criterion_id)
    return MoveItem(rubric_file(scope), CRITERIA, index, target, (criterion_id,), f"Move criterion {criterion_id}")


def rubric_files(documents: ProjectDocuments) -> list[str]:
    """Every rubric file of the project: the checkpoint rubrics in subtask order, then the final one.
    Unsaved edits count: a subtask added or removed by an edit is in or out already."""
    rels = [rubric_file(subtask_id) for subtask_id in documents.subtask_ids()]
    rels.append(layout.FINAL_RUBRIC_FILE)
    return [rel for rel in rels if documents.exists(rel)]


def rename_criterion(documents: ProjectDocuments, old: str, new: str) -> Compound:
    """Give a criterion a new id, and every `requires` and `reuse_of` that names it follows."""
    if not re.fullmatch(ID_PATTERN, new) or len(new) > 64:
        raise RenameError(f"'{new}' is not a valid id: use letters, digits, '.', '-' and '_', starting with a "
                          "letter or digit, at most 64 characters")
    edits: list[Command] = []
    found = False
    for rel in rubric_files(documents):
        for index, item in enumerate(documents.node(rel, CRITERIA)):
            if not isinstance(item, dict):
                continue
            if new in (item.get("id"), item.get("reuse_of")) and new != old:
                raise RenameError(f"{rel}: '{new}' is already the id of a criterion: pick another id")
            for key in ("id", "reuse_of"):
                if item.get(key) == old:
                    found = found or key == "id" and "reuse_of" not in item
                    edits.append(SetValue(rel, (*CRITERIA, index, key), new, (old, new)))
            for position, required in enumerate(item.get("requires") or []):
                if required == old:
                    edits.append(SetValue(rel, (*CRITERIA, index, "requires", position), new, (old, new)))
    if not found:
        raise RenameError(f"no criterion has the id '{old}'")
    return Compound(f"Rename criterion {old} to {new}", edits)


# The order `dbstudio` writes a criterion's keys in; a key an edit adds goes to its place here.
CRITERION_KEYS = ("id", "reuse_of", "text", "covers", "target", "dimension", "weight", "gate", "requires",
                  "propagates", "tests", "review")
REVIEW_KEYS = ("status", "reviewer", "note")
# Values that mean the same as leaving the key out: an edit to one of them removes the key.
_DEFAULTS: dict[str, Any] = {"gate": False, "requires": [], "propagates": [], "tests": [], "reviewer": None,
                             "note": None}


def criterion_index(documents: ProjectDocuments, scope: str, key: str, hint: int | None = None) -> int:
    """Place in its rubric of the criterion whose effective id is `key` (its `id`, or `reuse_of`
    for a reused final criterion). `hint`, the place a view believes it at, is tried first so that
    duplicated ids (a problem validation reports) still edit the row the expert pointed at."""
    criteria = documents.node(rubric_file(scope), CRITERIA)

    def key_of(item: Any) -> str | None:
        return (item.get("id") or item.get("reuse_of")) if isinstance(item, dict) else None

    if hint is not None and 0 <= hint < len(criteria) and key_of(criteria[hint]) == key:
        return hint
    for index, item in enumerate(criteria):
        if key_of(item) == key:
            return index
    raise EditPathError(f"{rubric_file(scope)}: no criterion {key}")


def _put(rel: str, mapping: Any, path: tuple[str | int, ...], key: str, value: Any, order: tuple[str, ...],
         ids: tuple[str, ...], label: str) -> Command | None:
    """The edit that gives `key` of `mapping` (at `path`) the value: set it, add it at its place in
    `order`, or remove it when the value is the default. None when nothing would change."""
    default = key in _DEFAULTS and value == _DEFAULTS[key]
    if key in mapping:
        if default:
            return RemoveKey(rel, (*path, key), ids, label)
        return None if mapping[key] == value else SetValue(rel, (*path, key), value, ids, label)
    if default:
        return None
    rank = order.index(key) if key in order else len(order)
    position = next((place for place, existing in enumerate(mapping)
                     if (order.index(existing) if existing in order else len(order)) > rank), len(mapping))
    return InsertKey(rel, (*path, key), value, position, ids=ids, label=label)


def edit_criterion(documents: ProjectDocuments, scope: str, key: str, values: dict[str, Any],
                   hint: int | None = None, label: str | None = None) -> Compound:
    """Set fields of one criterion as one edit. Review fields are named `review.status`,
    `review.reviewer`, `review.note`. A key the file does not have yet is written at its place in
    the house order (`gate` after `weight`, not after `review`); a default value (gate false, an
    empty list, no reviewer) removes the key instead of writing it."""
    rel = rubric_file(scope)
    index = criterion_index(documents, scope, key, hint)
    item = documents.node(rel, (*CRITERIA, index))
    path = (*CRITERIA, index)
    names = ", ".join(sorted(values))
    label = label or f"Set {names} of {key}"
    edits: list[Command] = []
    review_values = {name.split(".", 1)[1]: value for name, value in values.items() if name.startswith("review.")}
    for name, value in values.items():
        if name.startswith("review."):
            continue
        edit = _put(rel, item, path, name, value, CRITERION_KEYS, (key,), label)
        if edit is not None:
            edits.append(edit)
    if review_values:
        review = item.get("review")
        if isinstance(review, dict):
            for name, value in review_values.items():
                edit = _put(rel, review, (*path, "review"), name, value, REVIEW_KEYS, (key,), label)
                if edit is not None:
                    edits.append(edit)
        else:
            record = {name: review_values[name] for name in REVIEW_KEYS
                      if review_values.get(name) not in (None, _DEFAULTS.get(name))}
            record.setdefault("status", "draft")
            edit = _put(rel, item, path, "review", record, CRITERION_KEYS, (key,), label)
            if edit is not None:
                edits.append(edit)
    return Compound(label, edits)


def remove_criteria(documents: ProjectDocuments, rows: list[tuple[str, str, int | None]]) -> Compound:
    """Remove several criteria, given as (scope, key, place hint), as one edit."""
    places = sorted(((rubric_file(scope), criterion_index(documents, scope, key, hint), key)
                     for scope, key, hint in rows), reverse=True)  # from the end, so places stay right
    keys = [key for _, _, key in places]
    label = f"Remove criterion {keys[0]}" if len(keys) == 1 else f"Remove {len(keys)} criteria"
    return Compound(label, [RemoveItem(rel, CRITERIA, index, (key,), label) for rel, index, key in places])


def move_criterion_within(documents: ProjectDocuments, scope: str, key: str, target: int,
                          hint: int | None = None) -> MoveItem:
    """Move a criterion (reused ones too) to place `target` of its rubric."""
    index = criterion_index(documents, scope, key, hint)
    return MoveItem(rubric_file(scope), CRITERIA, index, target, (key,), f"Move criterion {key}")


# The prefix of a new final criterion's id, by target (the sample's, P-01).
FINAL_PREFIXES = {"artifact": "A-", "cross-file": "X-", "package": "P-"}


def next_criterion_id(scope: str, taken: set[str], target: str | None = None) -> str:
    """The id a new criterion of `scope` is offered: T05-C07 after T05-C06 (the numbering of the
    ids already there, zero-padded as they are); in the final rubric A-, X- or P- by target."""
    prefix = FINAL_PREFIXES.get(target or "artifact", "A-") if scope == FINAL_SCOPE else f"{scope}-C"
    pattern = re.compile(re.escape(prefix) + r"(\d+)")
    numbers = [found.group(1) for found in map(pattern.fullmatch, taken) if found]
    width = max((len(digits) for digits in numbers), default=2)
    number = max((int(digits) for digits in numbers), default=0) + 1
    while f"{prefix}{number:0{width}d}" in taken:
        number += 1
    return f"{prefix}{number:0{width}d}"


def reuse_in_final(documents: ProjectDocuments, criterion_id: str, covers: list[str] | None = None,
                   index: int | None = None) -> InsertItem:
    """A final criterion that judges checkpoint criterion `criterion_id` again on the final version of its
    file (`reuse_of`). It covers `covers`, or by default the final deliverables its checkpoint files become
    (`produced_by`). Refused for a final criterion, a criterion reused already, or one whose files reach no
    final deliverable when none is given."""
    final = layout.FINAL_RUBRIC_FILE
    if not documents.exists(final):
        raise RenameError(f"the project has no final rubric ({final}): add one before reusing a criterion in it")
    source_rel, position = None, None
    for rel in rubric_files(documents):
        if rel == final:
            continue
        for number, item in enumerate(documents.node(rel, CRITERIA) or []):
            if isinstance(item, dict) and item.get("id") == criterion_id:
                source_rel, position = rel, number
    if source_rel is None or position is None:
        finals = [item.get("id") for item in documents.node(final, CRITERIA) or [] if isinstance(item, dict)]
        where = " (it is a final criterion: only a checkpoint criterion can be reused)" if criterion_id in finals \
            else ""
        raise RenameError(f"no checkpoint criterion has the id '{criterion_id}'{where}")
    for item in documents.node(final, CRITERIA) or []:
        if isinstance(item, dict) and criterion_id in (item.get("reuse_of"), item.get("id")):
            raise RenameError(f"{criterion_id} is already in the final rubric: edit what it covers there")
    if covers is None:
        criterion = documents.node(source_rel, (*CRITERIA, position))
        refs = set(criterion.get("covers") or [])
        project = documents.node("project.yaml", ()) if documents.exists("project.yaml") else {}
        deliverables = ((project.get("delivery") or {}).get("final_deliverables") or []) if isinstance(project,
                                                                                                     dict) else []
        covers = [str(d.get("id")) for d in deliverables if isinstance(d, dict) and d.get("produced_by") in refs]
        if not covers:
            raise RenameError(f"{criterion_id} covers no file that becomes a final deliverable "
                              f"({', '.join(sorted(refs)) or 'nothing'}): say which deliverables it judges")
    entry: dict[str, Any] = {"reuse_of": criterion_id, "covers": list(covers)}
    place = len(documents.node(final, CRITERIA) or []) if index is None else index
    return InsertItem(final, CRITERIA, place, entry, ids=(criterion_id,),
                      label=f"Judge {criterion_id} again on the final package")
