"""Read a project folder into models, collecting located problems instead of raising."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from studio.model import (
    DependenciesFile,
    MaterialsFile,
    Project,
    ProjectInfo,
    ReferencesFile,
    Rubric,
    StagesFile,
    Subtask,
)
from studio.store import fastyaml, layout
from studio.store.yamlfile import YamlSyntaxError

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    """A problem at a node of one project file (path relative to the project folder)."""

    file: str
    loc: tuple[str | int, ...]
    message: str
    code: str = "invalid"
    object_id: str | None = None
    line: int | None = None
    column: int | None = None


@dataclass
class LoadedProject:
    """A project with the documents it was read from, and what went wrong reading it."""

    root: Path
    project: Project
    documents: dict[str, fastyaml.Document] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def locate(self, problem: Problem) -> tuple[int, int]:
        if problem.line is not None:
            return problem.line, problem.column or 1
        document = self.documents.get(problem.file)
        if document is None:
            return 1, 1
        return document.locate(problem.loc)


def _describe(error: ErrorDetails) -> str:
    """A pydantic error as a sentence that says what to do."""
    loc = [str(p) for p in error["loc"] if not str(p).startswith("function-after")]
    where = ".".join(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        return f"unknown key '{loc[-1]}': remove it or check its spelling"
    if kind == "missing":
        return f"missing required key '{loc[-1]}'"
    message = error["msg"]
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    if kind == "string_pattern_mismatch":
        message = f"'{error.get('input')}' is not a valid id or path here"
    return f"{where}: {message}" if where else message


def _read_model(
    loaded: LoadedProject, path: Path, model: type[M], on_ok: Callable[[M], None] | None = None
) -> M | None:
    rel = path.relative_to(loaded.root).as_posix()
    try:
        document, data = fastyaml.load(path)
    except YamlSyntaxError as exc:
        loaded.problems.append(Problem(rel, (), exc.message, exc.code, line=exc.line, column=exc.column))
        return None
    except OSError as exc:
        loaded.problems.append(Problem(rel, (), f"cannot read file: {exc.strerror}", "unreadable"))
        return None
    loaded.documents[rel] = document
    if data is None:
        loaded.problems.append(Problem(rel, (), "file is empty: it must hold a YAML mapping", "schema"))
        return None
    if not isinstance(data, dict):
        loaded.problems.append(Problem(rel, (), "top level must be a mapping of keys to values", "schema"))
        return None
    try:
        value = model.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-")))
            loaded.problems.append(Problem(rel, loc, _describe(error), "schema"))
        return None
    if on_ok is not None:
        on_ok(value)
    return value


def load_project(root: Path) -> LoadedProject:
    """Load every project file under `root`. Never raises for bad content; see `.problems`."""
    root = Path(root).resolve()
    loaded = LoadedProject(root=root, project=Project())
    project = loaded.project
    required = [layout.PROJECT_FILE, layout.STAGES_FILE, layout.MATERIALS_FILE, layout.FINAL_RUBRIC_FILE]
    for name in required:
        if not (root / name).is_file():
            loaded.problems.append(Problem(name, (), f"missing file {name}: every project has one", "missing-file"))

    def maybe(name: str, model: type[M]) -> M | None:
        path = root / name
        return _read_model(loaded, path, model) if path.is_file() else None

    project.info = maybe(layout.PROJECT_FILE, ProjectInfo)
    project.stages = maybe(layout.STAGES_FILE, StagesFile)
    project.materials = maybe(layout.MATERIALS_FILE, MaterialsFile)
    project.dependencies = maybe(layout.DEPENDENCIES_FILE, DependenciesFile)
    project.final_rubric = maybe(layout.FINAL_RUBRIC_FILE, Rubric)
    project.references = maybe(layout.REFERENCES_FILE, ReferencesFile)

    for folder in layout.subtask_folders(root):
        subtask = _read_model(loaded, folder / layout.SUBTASK_FILE, Subtask)
        key = folder.name
        if subtask is not None:
            project.subtasks[key] = subtask
        rubric_path = folder / layout.CHECKPOINT_RUBRIC_FILE
        if rubric_path.is_file():
            rubric = _read_model(loaded, rubric_path, Rubric)
            if rubric is not None:
                project.checkpoint_rubrics[key] = rubric
    return loaded
