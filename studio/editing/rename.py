"""Rename any id, and every reference to it follows, as one undoable compound. What refers to what
is in `usages.py` (the same cross-references validation checks); a subtask's folder moves with it."""

from __future__ import annotations

from pathlib import Path

from studio.editing.catalog import taken_ids
from studio.editing.commands import Command, Compound, SetValue
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import object_location
from studio.editing.files import MoveFile
from studio.editing.ids import IdError, check_new_id
from studio.editing.rubric import rename_criterion
from studio.editing.usages import usages
from studio.store import layout

RENAMABLE = ("project", "stage", "subtask", "material", "reference", "deliverable", "criterion")
_WORDS = {"reference": "evaluator reference", "deliverable": "final deliverable"}


def rename(documents: ProjectDocuments, kind: str, old: str, new: str) -> Compound:
    """Give object `old` of `kind` the id `new`; every place that names it follows. Refused for a
    malformed id, an id another object of that kind (or, for materials and references, of the
    other) already has, and an unknown `old`."""
    if kind == "criterion":
        return rename_criterion(documents, old, new)
    if kind not in RENAMABLE:
        raise IdError(f"'{kind}' objects have no id to rename: rename one of {', '.join(RENAMABLE)}")
    what = _WORDS.get(kind, kind)
    rel, path = object_location(documents, kind, old)
    if new == old:
        raise IdError(f"{what} {old} already has the id '{new}'")
    check_new_id(new, {} if kind == "project" else taken_ids(documents, kind), what)
    ids = (old, new)
    edits: list[Command] = [SetValue(rel, (*path, "id"), new, ids)]
    edits += [SetValue(usage.rel, usage.path, usage.renamed(new), ids) for usage in usages(documents, kind, old)]
    if kind == "subtask":
        source = layout.subtask_dir(Path(), old).as_posix()
        target = layout.subtask_dir(Path(), new).as_posix()
        if documents.files_under(target):
            raise IdError(f"the folder {target} already holds files: remove it or pick another subtask id")
        edits += [MoveFile(name, target + name[len(source):], ids) for name in documents.files_under(source)]
    return Compound(f"Rename {what} {old} to {new}", edits)
