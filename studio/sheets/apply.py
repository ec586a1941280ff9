"""Turn a SheetDiff into one compound edit of the rubric files, made of the rubric edits of
`studio.editing`: untouched criteria and keys keep their bytes and comments."""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.scalarstring import LiteralScalarString, ScalarString

from studio.editing.commands import Command, Compound, RemoveItem, SetValue
from studio.editing.comments import InsertKeyInOrder, RemoveKeyKeepingComments, inserted, removed
from studio.editing.documents import EditPathError, ProjectDocuments
from studio.editing.rubric import CRITERIA, add_criterion, remove_criterion, rubric_file, set_criterion_field
from studio.sheets.diff import AddedCriterion, FieldChange, SheetDiff

REVIEW = "review"
# The key order of docs/project-format.md: a key the sheet adds goes where an expert would write it.
KEY_ORDER = ("id", "reuse_of", "text", "covers", "target", "dimension", "weight", "gate", "requires", "propagates",
             REVIEW)
REVIEW_ORDER = ("status", "reviewer", "note")


def _items(documents: ProjectDocuments, rubric: str) -> list[Any]:
    return list(documents.node(rubric_file(rubric), CRITERIA))


def _key(item: Any) -> tuple[str, bool] | None:
    if not isinstance(item, dict):
        return None
    reused = item.get("reuse_of") is not None
    key = item.get("reuse_of") if reused else item.get("id")
    return (str(key), reused) if key is not None else None


def _position(documents: ProjectDocuments, rubric: str, key: str, reused: bool) -> int:
    for index, item in enumerate(_items(documents, rubric)):
        if _key(item) == (key, reused):
            return index
    raise EditPathError(f"{rubric_file(rubric)}: no criterion {key}: the file changed since the sheet was read; "
                        "read the sheet again")


def _styled(old: Any, new: Any) -> Any:
    """Text keeps the YAML style its old value had (a `|` block stays one); new multi-line text
    becomes a `|` block rather than one long quoted line."""
    if not isinstance(new, str):
        return new
    if isinstance(old, ScalarString):
        return type(old)(new)
    return LiteralScalarString(new) if "\n" in new else new


def _empty(value: Any) -> bool:
    return value is None or value == [] or value is False


def _remove_key(rel: str, mapping_path: tuple[str | int, ...], name: str, key: str, label: str) -> Command:
    return RemoveKeyKeepingComments(rel, (*mapping_path, name), (key,), label)


def _field_edits(documents: ProjectDocuments, rubric: str, key: str, changes: list[FieldChange],
                 reused: bool) -> list[Command]:
    index = _position(documents, rubric, key, reused)
    item: CommentedMap = _items(documents, rubric)[index]
    rel = rubric_file(rubric)
    here = (*CRITERIA, index)
    edits: list[Command] = []
    review_changes = {c.field.removeprefix(REVIEW + "."): c.new for c in changes if c.field.startswith(REVIEW + ".")}
    for change in changes:
        name = change.field
        if name.startswith(REVIEW + "."):
            continue
        if _empty(change.new):
            if name in item:
                edits.append(_remove_key(rel, here, name, key, f"Clear {name} of {key}"))
        elif name not in item:
            edits.append(InsertKeyInOrder(rel, (*here, name), _styled(None, change.new), KEY_ORDER, (key,),
                                          f"Set {name} of {key}"))
        elif reused:  # a reused criterion has no id of its own to find it by
            edits.append(SetValue(rel, (*here, name), change.new, (key,), f"Set {name} of {key}"))
        else:
            edits.append(set_criterion_field(documents, rubric, key, name, _styled(item.get(name), change.new)))
    if review_changes:
        edits += _review_edits(documents, rel, here, item, key, review_changes)
    return edits


def _review_edits(documents: ProjectDocuments, rel: str, here: tuple[str | int, ...], item: CommentedMap, key: str,
                  new: dict[str, Any]) -> list[Command]:
    label = f"Set review of {key}"
    review = item.get(REVIEW)
    path = (*here, REVIEW)
    if not isinstance(review, dict):
        fresh = {name: _styled(None, value) for name, value in new.items() if not _empty(value)}
        if not fresh:
            return []
        if REVIEW in item:
            return [SetValue(rel, path, fresh, (key,), label)]
        return [InsertKeyInOrder(rel, path, fresh, KEY_ORDER, (key,), label)]
    remaining = {name for name in review if not (name in new and _empty(new[name]))}
    if not remaining and all(_empty(value) for value in new.values()):
        return [_remove_key(rel, here, REVIEW, key, label)]
    edits: list[Command] = []
    for name, value in new.items():
        if _empty(value):
            if name in review:
                edits.append(_remove_key(rel, path, name, key, label))
        elif name in review:
            edits.append(SetValue(rel, (*path, name), _styled(review.get(name), value), (key,), label))
        else:
            edits.append(InsertKeyInOrder(rel, (*path, name), _styled(None, value), REVIEW_ORDER, (key,), label))
    return edits


def criterion_mapping(added: AddedCriterion) -> dict[str, Any]:
    """A new criterion as it is written: the format's key order, the review as a mapping."""
    mapping: dict[str, Any] = {}
    review: dict[str, Any] = {}
    for name, value in added.values.items():
        value = _styled(None, value)
        if name.startswith(REVIEW + "."):
            review[name.removeprefix(REVIEW + ".")] = value
        else:
            mapping[name] = value
    if review:
        mapping[REVIEW] = review
    return mapping


def diff_to_command(documents: ProjectDocuments, diff: SheetDiff, label: str = "Import rubric sheet") -> Compound:
    """One compound edit that makes the rubric files say what the sheet says: field edits first
    (at the criteria's current places), then removals from the end of each file, then new
    criteria, each after the row it follows in the sheet."""
    edits: list[Command] = []
    for (rubric, key), changes in diff.by_criterion().items():
        edits += _field_edits(documents, rubric, key, changes, changes[0].reused)
    removals: list[RemoveItem] = []
    for gone in diff.removed:
        if gone.reused:
            index = _position(documents, gone.rubric, gone.criterion, True)
            removals.append(RemoveItem(rubric_file(gone.rubric), CRITERIA, index, (gone.criterion,),
                                       f"Remove criterion {gone.criterion}"))
        else:
            removals.append(remove_criterion(documents, gone.rubric, gone.criterion))
    # From the end of each file, so that every index is still right when its removal is made.
    for removal in sorted(removals, key=lambda edit: (edit.rel, -edit.index)):
        edits += removed(documents, removal.rel, CRITERIA, removal.index, removal.index, removal)
    edits += _insertions(documents, diff)
    return Compound(label, edits)


def _insertions(documents: ProjectDocuments, diff: SheetDiff) -> list[Command]:
    gone = {(r.rubric, r.criterion, r.reused) for r in diff.removed}
    # Each touched rubric's entries as the file holds them once the removals are made (None for
    # an entry the sheet cannot name), so that every insertion lands at the right index.
    files: dict[str, list[str | None]] = {}
    edits: list[Command] = []
    for added in diff.added:
        if added.rubric not in files:
            entries: list[str | None] = []
            for item in _items(documents, added.rubric):
                key = _key(item)
                if key is None or (added.rubric, *key) not in gone:
                    entries.append(key[0] if key is not None else None)
            files[added.rubric] = entries
        entries = files[added.rubric]
        if added.after is None:
            place = 0
        elif added.after in entries:
            place = entries.index(added.after) + 1
        else:
            place = len(entries)
        entries.insert(place, added.criterion)
        edits += inserted(documents, rubric_file(added.rubric), CRITERIA, place, place,
                          add_criterion(documents, added.rubric, criterion_mapping(added), place))
    return edits
