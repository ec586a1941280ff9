"""Where review findings point: YAML nodes of objects, and lines of Markdown files."""

from __future__ import annotations

from studio.store import layout
from studio.store.loader import LoadedProject, Problem


def rubric_file(scope: str) -> str:
    return layout.FINAL_RUBRIC_FILE if scope == "final" else f"{layout.SUBTASKS_DIR}/{scope}/{layout.CHECKPOINT_RUBRIC_FILE}"


def criterion_index(loaded: LoadedProject, scope: str, criterion_id: str) -> int | None:
    project = loaded.project
    rubric = project.final_rubric if scope == "final" else project.checkpoint_rubrics.get(scope)
    for index, criterion in enumerate(rubric.criteria if rubric else []):
        if criterion.key == criterion_id:
            return index
    return None


def criterion_location(loaded: LoadedProject, scope: str, criterion_id: str) -> tuple[str, int]:
    file = rubric_file(scope)
    index = criterion_index(loaded, scope, criterion_id)
    loc = ("criteria", index) if index is not None else ()
    line, _ = loaded.locate(Problem(file, loc, ""))
    return file, line


def node_line(loaded: LoadedProject, file: str, loc: tuple) -> tuple[int, int]:
    return loaded.locate(Problem(file, loc, ""))


def text_line(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset in a text."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
