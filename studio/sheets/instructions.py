"""Each subtask's title and instruction text, in timeline order: the reference sheet of the export."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from studio.editing.documents import ProjectDocuments
from studio.sheets.current import file_data
from studio.store import layout


@dataclass(frozen=True)
class SubtaskInstruction:
    subtask: str
    stage: str | None
    title: str | None
    text: str
    file: str  # the instruction file, relative to the project folder


def _stage_of(documents: ProjectDocuments) -> dict[str, str]:
    """Subtask id -> stage id, in the order stages.yaml lists them."""
    data = file_data(documents, layout.STAGES_FILE)
    found: dict[str, str] = {}
    for stage in (data.get("stages") if isinstance(data, dict) else None) or []:
        if isinstance(stage, dict):
            for subtask in stage.get("subtasks") or []:
                found.setdefault(str(subtask), str(stage.get("id")))
    return found


def _read(root: Path, rel: str) -> str:
    path = PurePosixPath(rel)
    if path.is_absolute() or ".." in path.parts:
        return f"(the instruction file {rel} lies outside its subtask folder: fix `instruction` in subtask.yaml)"
    try:
        return (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"(the instruction file {rel} cannot be read: {exc})"


def subtask_instructions(documents: ProjectDocuments) -> list[SubtaskInstruction]:
    """Every subtask folder's instruction, in timeline order (subtasks in no stage last)."""
    stage_of = _stage_of(documents)
    folders = [folder.name for folder in layout.subtask_folders(documents.root)]
    order = {subtask: place for place, subtask in enumerate(stage_of)}
    entries = []
    for subtask in sorted(folders, key=lambda s: (order.get(s, len(order)), s)):
        rel = PurePosixPath(layout.subtask_file(Path(), subtask).as_posix())
        data: Any = file_data(documents, rel.as_posix())
        data = data if isinstance(data, dict) else {}
        instruction = str(data.get("instruction") or "instruction.md")
        file = (rel.parent / instruction).as_posix()
        title = data.get("title")
        entries.append(SubtaskInstruction(subtask, stage_of.get(subtask), None if title is None else str(title),
                                          _read(documents.root, file), file))
    return entries
