"""Opening a project for editing, as the app's File > Open does it off the UI thread: the folder
checked by the one project-folder rule, its editing session, and its repository's state."""

from __future__ import annotations

from pathlib import Path

from studio.editing.session import ProjectSession
from studio.store.git_state import GitState, read_git_state
from studio.store.layout import project_folder


def open_project(folder: Path) -> tuple[ProjectSession, GitState]:
    """The session and git state of the project at `folder`; NotAProjectError saying why not."""
    session = ProjectSession(project_folder(folder))
    return session, read_git_state(session.root)
