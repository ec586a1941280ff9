"""Creating projects from templates, and the user's workspace copy of the bundled sample."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from studio import bundled
from studio.errors import StudioError
from studio.store import layout
from studio.store.history import HistoryError, ProjectRepository
from studio.store.yamlfile import YamlDocument

TEMPLATES_DIR = bundled.templates_dir()
SAMPLES_DIR = bundled.samples_dir()
SAMPLE_PROJECT = "kestrel-refinancing"


class WorkspaceError(StudioError):
    """A project cannot be created or copied; the message says why."""


def templates() -> list[str]:
    return sorted(p.name for p in TEMPLATES_DIR.iterdir() if layout.is_project_folder(p)) if TEMPLATES_DIR.is_dir() else []


def default_workspace() -> Path:
    """Where the app keeps the user's projects (DBSTUDIO_WORKSPACE overrides)."""
    env = os.environ.get("DBSTUDIO_WORKSPACE")
    return Path(env) if env else Path.home() / "DeliverBench"


def create_project(dest: Path, project_id: str, title: str, template: str = "blank",
                   source: Path | None = None, message: str | None = None,
                   own_repository: bool | None = None) -> ProjectRepository:
    """Copy a template (or `source` project) to `dest`, set its id and title, and commit it.

    With `own_repository` None, `dest` becomes a repository of its own unless it lies inside
    an existing one; True always gives it its own.
    """
    dest = Path(dest)
    origin = Path(source) if source is not None else TEMPLATES_DIR / template
    if not layout.is_project_folder(origin):
        raise WorkspaceError(f"no project template '{template}' (available: {', '.join(templates()) or 'none'})")
    if dest.exists() and any(dest.iterdir()):
        raise WorkspaceError(f"{dest} already exists and is not empty: choose a new folder")
    shutil.copytree(origin, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("runs", ".cache", "__pycache__"))
    gitignore = dest / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text(layout.GITIGNORE)
    document = YamlDocument.load(dest / layout.PROJECT_FILE)
    document.data["id"] = project_id
    document.data["title"] = title
    document.save()
    if own_repository or (own_repository is None and not _inside_repository(dest)):
        repo = ProjectRepository.init(dest)
    else:
        repo = ProjectRepository(dest)
    repo.commit(message or f"Create project {project_id} from {'the sample ' + origin.name if source else 'template ' + template}")
    return repo


def _inside_repository(folder: Path) -> bool:
    try:
        ProjectRepository(folder)
    except HistoryError:
        return False
    return True


def sample_project() -> Path:
    return SAMPLES_DIR / SAMPLE_PROJECT


def ensure_workspace_sample(workspace: Path | None = None) -> Path:
    """The user's own copy of the sample project, created with its own repository on first use."""
    workspace = Path(workspace) if workspace is not None else default_workspace()
    target = workspace / SAMPLE_PROJECT
    if layout.is_project_folder(target):
        return target
    source = sample_project()
    if not layout.is_project_folder(source):
        raise WorkspaceError(f"the bundled sample project is missing ({source}); reinstall DeliverBench Studio")
    workspace.mkdir(parents=True, exist_ok=True)
    document = YamlDocument.load(source / layout.PROJECT_FILE)
    create_project(target, str(document.data["id"]), str(document.data["title"]), source=source,
                   message="Start from the bundled sample project", own_repository=True)
    return target
