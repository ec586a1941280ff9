"""Shared checks of the edit tests: a copy of the sample, every file's bytes, and the model a
session rebuilt compared with a fresh load of the saved folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from studio.editing.commands import Command
from studio.editing.session import ProjectSession
from studio.store.loader import LoadedProject, load_project
from studio.store.workspace import sample_project
from studio.validation.validate import validate_loaded, validate_project


def copy_sample(dest: Path) -> Path:
    return Path(shutil.copytree(sample_project(), dest))


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the folder (but git's) by relative path."""
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file() and ".git" not in path.relative_to(root).parts}


def parts(loaded: LoadedProject) -> dict[str, object]:
    project = loaded.project
    dump: dict[str, object] = {
        name: getattr(project, name).model_dump() if getattr(project, name) is not None else None
        for name in ("info", "stages", "materials", "dependencies", "final_rubric", "references")}
    dump["subtasks"] = [(key, value.model_dump()) for key, value in project.subtasks.items()]
    dump["checkpoint_rubrics"] = [(key, value.model_dump()) for key, value in project.checkpoint_rubrics.items()]
    dump["problems"] = sorted((p.file, p.loc, p.message, p.code) for p in loaded.problems)
    dump["documents"] = sorted(loaded.documents)
    return dump


def save_and_compare(session: ProjectSession) -> LoadedProject:
    """Save, then check the session's model equals a fresh load of the folder; the fresh load."""
    session.save()
    fresh = load_project(session.root)
    assert parts(session.loaded) == parts(fresh)
    assert validate_loaded(session.loaded) == validate_loaded(fresh)
    return fresh


def round_trip(root: Path, make: object, valid: bool = True) -> ProjectSession:
    """Apply the command `make(documents)` builds, save and compare; then undo, save, and find every
    file as it was. Returns the session (after the undo)."""
    before = snapshot(root)
    session = ProjectSession(root)
    command: Command = make(session.documents)  # type: ignore[operator]
    undo, changes = session.apply(command)
    assert changes.files
    save_and_compare(session)
    if valid:
        assert validate_project(root) == []
    assert snapshot(root) != before
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(root) == before
    return session
