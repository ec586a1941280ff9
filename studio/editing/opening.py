"""Opening a project for editing, as the app's File > Open does it off the UI thread: the folder
checked by the one project-folder rule, and its editing session. The repository's state is read
after the window shows the project (studio.store.git_state): GitPython is not needed to edit."""

from __future__ import annotations

from pathlib import Path

from studio.editing.session import ProjectSession
from studio.store.layout import project_folder


def open_project(folder: Path) -> ProjectSession:
    """The editing session of the project at `folder`; NotAProjectError saying why not."""
    return ProjectSession(project_folder(folder))
