"""Project-relative paths that findings name, built by `studio.store.layout` (given an empty
root) so that file and folder names are spelled in one place. Cached: review asks for the same
few thousand paths over and over."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

_HERE = Path()


@lru_cache(maxsize=65536)
def subtask_yaml(subtask_id: str) -> str:
    """subtasks/ID/subtask.yaml"""
    return layout.subtask_file(_HERE, subtask_id).as_posix()


@lru_cache(maxsize=65536)
def subtask_path(subtask_id: str, name: str) -> str:
    """A file beside a subtask's subtask.yaml (its instruction, say)."""
    return (layout.subtask_dir(_HERE, subtask_id) / name).as_posix()


@lru_cache(maxsize=65536)
def material_path(file: str) -> str:
    """A material's file, under materials/."""
    return (_HERE / layout.MATERIALS_DIR / file).as_posix()


@lru_cache(maxsize=65536)
def evaluator_path(file: str) -> str:
    """An evaluator-only reference's file, under evaluator/."""
    return (_HERE / layout.EVALUATOR_DIR / file).as_posix()


@lru_cache(maxsize=65536)
def rubric_file(scope: str) -> str:
    """The final rubric for scope 'final', else the checkpoint rubric of that subtask."""
    if scope == FINAL_SCOPE:
        return layout.FINAL_RUBRIC_FILE
    return layout.checkpoint_rubric_file(_HERE, scope).as_posix()
