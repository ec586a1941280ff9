"""Project-relative paths that findings name, built by `studio.store.layout` (given an empty
root) so that file and folder names are spelled in one place."""

from __future__ import annotations

from pathlib import Path

from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

_HERE = Path()


def subtask_yaml(subtask_id: str) -> str:
    """subtasks/ID/subtask.yaml"""
    return layout.subtask_file(_HERE, subtask_id).as_posix()


def subtask_path(subtask_id: str, name: str) -> str:
    """A file beside a subtask's subtask.yaml (its instruction, say)."""
    return (layout.subtask_dir(_HERE, subtask_id) / name).as_posix()


def material_path(file: str) -> str:
    """A material's file, under materials/."""
    return (_HERE / layout.MATERIALS_DIR / file).as_posix()


def evaluator_path(file: str) -> str:
    """An evaluator-only reference's file, under evaluator/."""
    return (_HERE / layout.EVALUATOR_DIR / file).as_posix()


def rubric_file(scope: str) -> str:
    """The final rubric for scope 'final', else the checkpoint rubric of that subtask."""
    if scope == FINAL_SCOPE:
        return layout.FINAL_RUBRIC_FILE
    return layout.checkpoint_rubric_file(_HERE, scope).as_posix()
