"""The timeline in the domain's words: add, remove and move stages and subtasks. A new subtask is
a folder of three files in house style (subtask.yaml, instruction.md, rubric.yaml) listed in its
stage; removing one deletes its folder's files, and undoing puts every byte back."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from studio.editing.catalog import stage_of, taken_ids, timeline
from studio.editing.commands import Command, Compound, InsertItem, MoveItem, RemoveItem, SetValue
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import DEFAULT_INSTRUCTION, STAGES, object_location, subtask_file
from studio.editing.files import PutFile, yaml_text
from studio.editing.ids import check_new_id, next_id
from studio.editing.rubric import rubric_file
from studio.editing.usages import describe, usages
from studio.errors import StudioError
from studio.store import layout

__all__ = ["add_stage", "add_subtask", "move_stage", "move_subtask", "next_id", "remove_stage", "remove_subtask"]

DEFAULT_TIME_LIMIT = 240


class TimelineError(StudioError):
    """A stage or subtask edit the timeline cannot take (a stage still holding subtasks, a subtask
    other files still refer to, a place out of range, an empty title)."""


def _title(title: str, what: str) -> str:
    if not title or not title.strip():
        raise TimelineError(f"a {what} needs a title: write a short name")
    return title.strip()


def _place(index: int | None, size: int, what: str) -> int:
    if index is None:
        return size
    if not 0 <= index <= size:
        raise TimelineError(f"{what} has no place {index} (it has {size} entries)")
    return index


def _stages(documents: ProjectDocuments) -> list[Any]:
    return list(documents.node(layout.STAGES_FILE, STAGES))


def add_stage(documents: ProjectDocuments, stage_id: str, title: str, index: int | None = None) -> InsertItem:
    """A new stage (with no subtask yet: add one before validating) at `index` (None: last)."""
    check_new_id(stage_id, taken_ids(documents, "stage"), "stage")
    place = _place(index, len(_stages(documents)), layout.STAGES_FILE)
    return InsertItem(layout.STAGES_FILE, STAGES, place, {"id": stage_id, "title": _title(title, "stage"),
                                                          "subtasks": []},
                      ids=(stage_id,), label=f"Add stage {stage_id}")


def remove_stage(documents: ProjectDocuments, stage_id: str) -> RemoveItem:
    """Remove an empty stage; one that still holds subtasks is refused."""
    rel, path = object_location(documents, "stage", stage_id)
    held = documents.node(rel, path).get("subtasks") or []
    if held:
        raise TimelineError(f"stage {stage_id} still holds {', '.join(map(str, held))}: move or remove its "
                            "subtasks first")
    return RemoveItem(rel, STAGES, int(path[-1]), (stage_id,), f"Remove stage {stage_id}")


def move_stage(documents: ProjectDocuments, stage_id: str, target: int) -> MoveItem:
    rel, path = object_location(documents, "stage", stage_id)
    size = len(_stages(documents))
    if not 0 <= target < size:
        raise TimelineError(f"{layout.STAGES_FILE} has no place {target} for stage {stage_id} (it has {size} stages)")
    return MoveItem(rel, STAGES, int(path[-1]), target, (stage_id,), f"Move stage {stage_id}")


def new_subtask_files(subtask_id: str, title: str, outputs: Sequence[str]) -> dict[str, bytes]:
    """The three files of a new subtask, in house style, by path relative to the project folder."""
    definition = {
        "id": subtask_id,
        "title": title,
        "instruction": DEFAULT_INSTRUCTION,
        "inputs": [],
        "outputs": [{"path": path} for path in outputs],
        "time_limit_minutes": DEFAULT_TIME_LIMIT,
    }
    folder = layout.subtask_dir(Path(), subtask_id).as_posix()
    instruction = (f"# {subtask_id}: {title}\n\nTell the agent what to do, which materials and earlier files to use, "
                   "and which files to write.\n")
    return {
        subtask_file(subtask_id): yaml_text(definition),
        f"{folder}/{DEFAULT_INSTRUCTION}": instruction.encode("utf-8"),
        rubric_file(subtask_id): yaml_text({"criteria": []}, f"Checkpoint rubric of {subtask_id}."),
    }


def add_subtask(documents: ProjectDocuments, stage_id: str, subtask_id: str, title: str, index: int | None = None,
                *, outputs: Sequence[str] | None = None) -> Compound:
    """A new subtask in stage `stage_id` at `index` (None: last): its folder with subtask.yaml (one
    required output, `outputs/<ID>.md` unless given), instruction.md and an empty rubric."""
    check_new_id(subtask_id, taken_ids(documents, "subtask"), "subtask")
    folder = layout.subtask_dir(Path(), subtask_id).as_posix()
    leftovers = documents.files_under(folder)
    if leftovers:
        raise TimelineError(f"the folder {folder} already holds {', '.join(leftovers)}: remove it or pick another id")
    title = _title(title, "subtask")
    rel, path = object_location(documents, "stage", stage_id)
    files = new_subtask_files(subtask_id, title, list(outputs or [f"outputs/{subtask_id}.md"]))
    edits: list[Command] = [PutFile(name, data, (subtask_id,), f"Add subtask {subtask_id}")
                            for name, data in files.items()]
    stage = documents.node(rel, path)
    listing = stage.get("subtasks")
    if isinstance(listing, list):
        place = _place(index, len(listing), f"stage {stage_id}")
        edits.append(InsertItem(rel, (*path, "subtasks"), place, subtask_id, ids=(subtask_id, stage_id)))
    else:
        edits.append(SetValue(rel, (*path, "subtasks"), [subtask_id], (subtask_id, stage_id)))
    return Compound(f"Add subtask {subtask_id}", edits)


def remove_subtask(documents: ProjectDocuments, subtask_id: str, *, force: bool = False) -> Compound:
    """Remove a subtask from its stage and delete its folder's files. Refused while other files name
    it (a release, a handoff, a final deliverable, an evaluator reference...) unless `force`, which
    leaves those for validation to report."""
    if not documents.exists(subtask_file(subtask_id)) and subtask_id in timeline(documents):
        # listed in a stage but without a folder: only the listing goes
        s_index, t_index = stage_of(documents, subtask_id)
        return Compound(f"Remove subtask {subtask_id}", [
            RemoveItem(layout.STAGES_FILE, (*STAGES, s_index, "subtasks"), t_index, (subtask_id,))])
    object_location(documents, "subtask", subtask_id)
    own = rubric_file(subtask_id)
    elsewhere = [u for u in usages(documents, "subtask", subtask_id)
                 if u.rel != own and not (u.rel == layout.STAGES_FILE and u.path[-2] == "subtasks")]
    if elsewhere and not force:
        raise TimelineError(f"subtask {subtask_id} is still named in {describe(elsewhere)}: change those first")
    edits: list[Command] = []
    try:
        s_index, t_index = stage_of(documents, subtask_id)
        edits.append(RemoveItem(layout.STAGES_FILE, (*STAGES, s_index, "subtasks"), t_index, (subtask_id,)))
    except StudioError:
        pass  # a folder in no stage: only its files go
    folder = layout.subtask_dir(Path(), subtask_id).as_posix()
    edits += [PutFile(name, None, (subtask_id,)) for name in documents.files_under(folder)]
    return Compound(f"Remove subtask {subtask_id}", edits)


def move_subtask(documents: ProjectDocuments, subtask_id: str, stage_id: str, index: int) -> Command:
    """Move a subtask to place `index` of stage `stage_id` (its place there once it has moved)."""
    s_index, t_index = stage_of(documents, subtask_id)
    _, path = object_location(documents, "stage", stage_id)
    target_stage = int(path[-1])
    label = f"Move subtask {subtask_id}"
    listing = documents.node(layout.STAGES_FILE, (*path,)).get("subtasks") or []
    if target_stage == s_index:
        if not 0 <= index < len(listing):
            raise TimelineError(f"stage {stage_id} has no place {index} (it has {len(listing)} subtasks)")
        return MoveItem(layout.STAGES_FILE, (*STAGES, s_index, "subtasks"), t_index, index, (subtask_id,), label)
    place = _place(index, len(listing), f"stage {stage_id}")
    edits: list[Command] = [RemoveItem(layout.STAGES_FILE, (*STAGES, s_index, "subtasks"), t_index, (subtask_id,))]
    if isinstance(documents.node(layout.STAGES_FILE, path).get("subtasks"), list):
        edits.append(InsertItem(layout.STAGES_FILE, (*path, "subtasks"), place, subtask_id, ids=(subtask_id,)))
    else:
        edits.append(SetValue(layout.STAGES_FILE, (*path, "subtasks"), [subtask_id], (subtask_id,)))
    return Compound(label, edits)


def stages_in_text(documents: ProjectDocuments) -> list[tuple[str, str, list[str]]]:
    """(id, title, subtasks) of each stage as stages.yaml's text has them, valid or not (the
    explorer draws the timeline an expert is still typing)."""
    try:
        stages = documents.node(layout.STAGES_FILE, ("stages",))
    except (StudioError, OSError):
        return []
    return [(str(s.get("id", "")), str(s.get("title", "")), [str(t) for t in s.get("subtasks") or []])
            for s in stages if isinstance(s, dict)] if isinstance(stages, list) else []
