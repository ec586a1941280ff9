"""Where review findings point: YAML nodes of objects, and lines of Markdown files."""

from __future__ import annotations

from studio.store.loader import LoadedProject, Problem
from studio.validation.paths import evaluator_path, material_path, rubric_file, subtask_path, subtask_yaml

__all__ = ["criterion_index", "criterion_location", "evaluator_path", "material_path", "node_line", "rubric_file",
           "subtask_path", "subtask_yaml", "text_line"]


def criterion_index(loaded: LoadedProject, scope: str, criterion_id: str) -> int | None:
    return loaded.project.criterion_row(scope, criterion_id)


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
