"""Creating projects from templates, and the user's workspace copy of the bundled sample."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from studio import bundled
from studio.errors import StudioError
from studio.store import layout
from studio.store.history import HistoryError, ProjectRepository
from studio.store.yamlfile import YamlDocument

TEMPLATES_DIR = bundled.templates_dir()
SAMPLES_DIR = bundled.samples_dir()
SAMPLE_PROJECT = "kestrel-refinancing"
# The template a new project starts from unless another is chosen: listed first everywhere.
DEFAULT_TEMPLATE = "blank"
# Beside a template's project files: what the template is for. Not a project file, never copied.
TEMPLATE_FILE = "template.yaml"


class WorkspaceError(StudioError):
    """A project cannot be created or copied; the message says why."""


@dataclass(frozen=True)
class ProjectTemplate:
    """A bundled template: its name (the folder's) and the one-paragraph description of what it holds."""

    name: str
    description: str
    folder: Path


def project_templates() -> list[ProjectTemplate]:
    """The bundled templates, the default (blank) first, then by name."""
    if not TEMPLATES_DIR.is_dir():
        return []
    folders = sorted((p for p in TEMPLATES_DIR.iterdir() if layout.is_project_folder(p)),
                     key=lambda p: (p.name != DEFAULT_TEMPLATE, p.name))
    return [ProjectTemplate(p.name, template_description(p), p) for p in folders]


def templates() -> list[str]:
    """The names of the bundled templates, the default first."""
    return [template.name for template in project_templates()]


def template_description(folder: Path) -> str:
    """The `description` of a template's template.yaml, on one line ('' when it has none)."""
    path = Path(folder) / TEMPLATE_FILE
    if not path.is_file():
        return ""
    described = YamlDocument.load(path).data
    text = described.get("description") if isinstance(described, Mapping) else None
    return " ".join(str(text).split()) if text else ""


def default_workspace() -> Path:
    """Where the app keeps the user's projects (DBSTUDIO_WORKSPACE overrides)."""
    env = os.environ.get("DBSTUDIO_WORKSPACE")
    return Path(env) if env else Path.home() / "DeliverBench"


def create_project(dest: Path, project_id: str, title: str, template: str = DEFAULT_TEMPLATE,
                   source: Path | None = None, message: str | None = None,
                   own_repository: bool | None = None, details: Mapping[str, str] | None = None) -> ProjectRepository:
    """Copy a template (or `source` project) to `dest`, set its id and title (and the other
    project.yaml `details` given, e.g. domain and role), and commit it.

    With `own_repository` None, `dest` becomes a repository of its own unless it lies inside
    an existing one; True always gives it its own. What can be checked is checked before
    anything is created, and a failure removes every file and folder this call created.
    """
    dest = Path(dest)
    origin = Path(source) if source is not None else TEMPLATES_DIR / template
    if not layout.is_project_folder(origin):
        raise WorkspaceError(f"no project template '{template}' (available: {', '.join(templates()) or 'none'})")
    if dest.exists() and not dest.is_dir():
        raise WorkspaceError(f"{dest} is a file: choose a new folder for the project")
    if dest.is_dir() and any(dest.iterdir()):
        raise WorkspaceError(f"{dest} already exists and is not empty: choose a new folder")
    enclosing = None if own_repository else enclosing_repository_folder(dest)
    created = first_missing(dest)
    try:
        if enclosing is not None:
            ProjectRepository(enclosing).require_committable()  # reads only: nothing exists yet
        dest.mkdir(parents=True, exist_ok=True)
        if enclosing is None:
            # The identity check needs the new repository: its location can select a git identity.
            ProjectRepository.init(dest).require_committable(new_repository=True)
        shutil.copytree(origin, dest, dirs_exist_ok=True,
                        ignore=_not_copied(origin, template_folder=source is None))
        gitignore = dest / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text(layout.GITIGNORE)
        attributes = dest / ".gitattributes"
        if not attributes.exists():
            attributes.write_text(layout.GITATTRIBUTES)
        document = YamlDocument.load(dest / layout.PROJECT_FILE)
        document.data["id"] = project_id
        document.data["title"] = title
        for key, value in (details or {}).items():
            document.data[key] = value
        document.save()
        repo = ProjectRepository(dest)
        origin_name = f"the sample {origin.name}" if source else f"template {template}"
        repo.commit(message or f"Create project {project_id} from {origin_name}")
    except BaseException as exc:
        _remove_created(dest, created)
        if isinstance(exc, HistoryError):
            raise WorkspaceError(f"{dest} was not created: {exc}") from exc
        if isinstance(exc, OSError) and not isinstance(exc, StudioError):
            raise WorkspaceError(f"{dest} was not created: {exc.strerror or exc} ({exc.filename or dest}); "
                                 "check the folder's permissions and the disk") from exc
        raise
    return repo


def _not_copied(origin: Path, template_folder: bool):
    """copytree's filter: run outputs and caches never, and a template's own description file."""
    caches = shutil.ignore_patterns(layout.RUNS_DIR, ".cache", "__pycache__")

    def ignored(folder: str, names: list[str]) -> set[str]:
        left_out = set(caches(folder, names))
        if template_folder and Path(folder) == origin and TEMPLATE_FILE in names:
            left_out.add(TEMPLATE_FILE)
        return left_out
    return ignored


def first_missing(dest: Path) -> Path | None:
    """The outermost folder of `dest`'s path that does not exist yet (None if `dest` exists)."""
    missing = None
    for folder in [dest, *dest.parents]:
        if folder.exists():
            break
        missing = folder
    return missing


def enclosing_repository_folder(dest: Path) -> Path | None:
    """The nearest existing folder above `dest` if it lies inside a git repository, else None."""
    existing = next((folder for folder in [dest, *dest.parents] if folder.is_dir()), None)
    if existing is None:
        return None
    try:
        ProjectRepository(existing)
    except HistoryError:
        return None
    return existing


def _remove_created(dest: Path, created: Path | None) -> None:
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)
        return
    # `dest` was an empty folder given by the user: empty it again, keep the folder.
    for child in dest.iterdir() if dest.is_dir() else []:
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


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
    document = YamlDocument.load(source / layout.PROJECT_FILE)
    create_project(target, str(document.data["id"]), str(document.data["title"]), source=source,
                   message="Start from the bundled sample project", own_repository=True)
    return target
