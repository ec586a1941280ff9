"""Rename any id (or a subtask's output path), and every reference to it follows, as one undoable
compound. What refers to what is in `usages.py` (the same cross-references validation checks); the brief
and the instructions that name it follow too (`text_refs.py`), and a subtask's folder moves with it.
`rename_preview` lists every change a rename makes before anything is applied."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.editing.catalog import taken_ids
from studio.editing.commands import Command, Compound, SetValue
from studio.editing.documents import Path_, ProjectDocuments
from studio.editing.fields import object_location, subtask_file
from studio.editing.files import MoveFile, PutFile
from studio.editing.ids import IdError, check_new_id
from studio.editing.rubric import CRITERIA, rename_criterion, rubric_files
from studio.editing.text_refs import id_pattern, path_pattern, text_renames
from studio.editing.usages import ARTIFACT, usages
from studio.store import layout

RENAMABLE = ("project", "stage", "subtask", "material", "reference", "deliverable", "criterion")
# Ids a Markdown text names as they are: the instructions and the brief follow a rename of these.
IN_TEXT = ("subtask", "material", "reference", "deliverable", "stage")
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
    if kind in IN_TEXT:  # before a subtask's folder moves: the edited instruction moves with it
        edits += text_renames(documents, id_pattern(old), new, ids)[0]
    if kind == "subtask":
        source = layout.subtask_dir(Path(), old).as_posix()
        target = layout.subtask_dir(Path(), new).as_posix()
        if documents.files_under(target):
            raise IdError(f"the folder {target} already holds files: remove it or pick another subtask id")
        edits += [MoveFile(name, target + name[len(source):], ids) for name in documents.files_under(source)]
    return Compound(f"Rename {what} {old} to {new}", edits)


def rename_output(documents: ProjectDocuments, subtask: str, old: str, new: str) -> Compound:
    """Give output `old` of `subtask` the path `new`: every SUBTASK:PATH that names it (handoffs, final
    deliverables' produced_by, criteria's covers, generated releases), the programmatic checks of the
    checkpoint rubrics from that subtask on that look at it, and the brief and instructions that name the
    path follow."""
    rel = subtask_file(subtask)
    if not documents.exists(rel):
        raise IdError(f"there is no subtask '{subtask}' ({rel} does not exist)")
    outputs = documents.node(rel, ("outputs",))
    paths = [item.get("path") for item in outputs if isinstance(item, dict)]
    if old not in paths:
        raise IdError(f"subtask {subtask} has no output '{old}' (its outputs: {', '.join(map(str, paths))})")
    new = new.strip()
    if not new or new.startswith("/") or ".." in new.split("/") or "\\" in new:
        raise IdError(f"'{new}' is not a path inside the workspace: give a relative path such as outputs/memo.md")
    if new == old:
        raise IdError(f"output {subtask}:{old} already has the path '{new}'")
    if new in paths:
        raise IdError(f"subtask {subtask} already has an output '{new}': pick another path")
    ids = (subtask, f"{subtask}:{old}", f"{subtask}:{new}")
    edits: list[Command] = [SetValue(rel, ("outputs", paths.index(old), "path"), new, ids)]
    target = f"{subtask}:{old}"
    edits += [SetValue(usage.rel, usage.path, f"{subtask}:{new}", ids)
              for usage in usages(documents, "subtask", subtask) if usage.form == ARTIFACT and usage.text == target]
    stages = documents.node(layout.STAGES_FILE, ("stages",)) if documents.exists(layout.STAGES_FILE) else []
    timeline = [str(sid) for stage in stages or [] if isinstance(stage, dict) for sid in stage.get("subtasks") or []]
    later = set(timeline[timeline.index(subtask):]) if subtask in timeline else {subtask}
    for rubric in rubric_files(documents):
        scope = rubric.split("/")[1] if rubric.startswith(layout.SUBTASKS_DIR + "/") else None
        if scope not in later:
            continue  # the final rubric's checks look at the final package's paths
        for index, item in enumerate(documents.node(rubric, CRITERIA) or []):
            check = item.get("check") if isinstance(item, dict) else None
            if isinstance(check, dict) and check.get("path") == old:
                edits.append(SetValue(rubric, (*CRITERIA, index, "check", "path"), new, ids))
    edits += text_renames(documents, path_pattern(old), new, ids)[0]
    return Compound(f"Rename output {subtask}:{old} to {new}", edits)


@dataclass(frozen=True)
class PlannedChange:
    """One change a rename would make: the file, where in it (a YAML path, a line, or 'file'), before, after."""

    rel: str
    where: str
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.rel} {self.where}: {self.before} -> {self.after}"


def rename_preview(documents: ProjectDocuments, command: Compound) -> list[PlannedChange]:
    """Every change `command` (a rename built above) would make, read before it is applied."""
    from studio.editing.text_refs import TextChange

    found: list[PlannedChange] = []
    for edit in command.commands:
        if isinstance(edit, SetValue):
            found.append(PlannedChange(edit.rel, _where(edit.path), _text(_value_at(documents, edit.rel, edit.path)),
                                       _text(edit.value)))
        elif isinstance(edit, MoveFile):
            found.append(PlannedChange(edit.source, "file", edit.source, edit.target))
        elif isinstance(edit, PutFile):
            before = (documents.read_bytes(edit.rel) or b"").decode("utf-8", errors="replace").splitlines()
            after = (edit.data or b"").decode("utf-8", errors="replace").splitlines()
            lines = [TextChange(edit.rel, n, a, b) for n, (a, b) in enumerate(zip(before, after, strict=False), 1)
                     if a != b]
            found += [PlannedChange(c.rel, f"line {c.line}", c.before.strip(), c.after.strip()) for c in lines]
    return found


def _value_at(documents: ProjectDocuments, rel: str, path: Path_) -> Any:
    *parent, key = path
    try:
        node = documents.node(rel, tuple(parent))
        return node[key]
    except (KeyError, IndexError, TypeError):
        return None


def _where(path: Path_) -> str:
    return ".".join(str(step) for step in path)


def _text(value: Any) -> str:
    return "" if value is None else str(value)
