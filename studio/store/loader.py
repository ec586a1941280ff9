"""Read a project folder into models, collecting located problems instead of raising."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from studio.model import (
    CommentThread,
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
from studio.store.fileview import DiskFiles
from studio.store.schema_messages import clean_loc, describe
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
    # The files beside the YAML (brief, instructions, materials, ...) as validation and review
    # should see them: the disk, unless an open session lays its unsaved files over it.
    files: DiskFiles = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.files = DiskFiles(self.root)

    def locate(self, problem: Problem) -> tuple[int, int]:
        if problem.line is not None:
            return problem.line, problem.column or 1
        document = self.documents.get(problem.file)
        if document is None:
            return 1, 1
        return document.locate(problem.loc)


def _read_model(
    loaded: LoadedProject, path: Path, model: type[M], on_ok: Callable[[M], None] | None = None,
    text: str | None = None,
) -> M | None:
    """The file's model (from `text` instead of the disk when given), or None with its problems."""
    rel = path.relative_to(loaded.root).as_posix()
    try:
        document, data = fastyaml.load(path) if text is None else fastyaml.parse(path, text)
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
            message, object_id = describe(error, data)
            loaded.problems.append(Problem(rel, clean_loc(error["loc"]), message, "schema", object_id))
        return None
    if on_ok is not None:
        on_ok(value)
    return value


_REQUIRED_FILES = (layout.PROJECT_FILE, layout.STAGES_FILE, layout.MATERIALS_FILE, layout.FINAL_RUBRIC_FILE)


def _missing_file(name: str) -> Problem:
    return Problem(name, (), f"missing file {name}: every project has one", "missing-file")


def load_project(root: Path) -> LoadedProject:
    """Load every project file under `root`. Never raises for bad content; see `.problems`."""
    root = Path(root).resolve()
    loaded = LoadedProject(root=root, project=Project())
    project = loaded.project
    for name in _REQUIRED_FILES:
        if not (root / name).is_file():
            loaded.problems.append(_missing_file(name))

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
    _read_comments(loaded)
    return loaded


def _read_comments(loaded: LoadedProject) -> None:
    """Every comment thread of comments/, each checked against its file's name."""
    for path in layout.comment_files(loaded.root):
        thread = _read_model(loaded, path, CommentThread)
        if thread is None:
            continue
        rel = path.relative_to(loaded.root).as_posix()
        if thread.id != path.stem:
            loaded.problems.append(Problem(rel, ("id",), f"thread id '{thread.id}' differs from the file's name: "
                                           f"set id to '{path.stem}' or name the file {thread.id}.yaml",
                                           "schema", thread.id))
            continue
        loaded.project.comments[thread.id] = thread


# The project-wide files and where their model goes in `Project`.
_PROJECT_FILES: dict[str, tuple[str, type[BaseModel]]] = {
    layout.PROJECT_FILE: ("info", ProjectInfo),
    layout.STAGES_FILE: ("stages", StagesFile),
    layout.MATERIALS_FILE: ("materials", MaterialsFile),
    layout.DEPENDENCIES_FILE: ("dependencies", DependenciesFile),
    layout.FINAL_RUBRIC_FILE: ("final_rubric", Rubric),
    layout.REFERENCES_FILE: ("references", ReferencesFile),
}


def reload_files(loaded: LoadedProject, texts: Mapping[str, str | None]) -> LoadedProject:
    """The project with the files in `texts` read from those texts (edited documents not yet
    saved; None for a file an edit deleted), every other file's model, document and problems
    kept as they were: after an edit only the files it touched are parsed and validated again.
    `loaded` itself is not changed."""
    project = dataclasses.replace(loaded.project, subtasks=dict(loaded.project.subtasks),
                                  checkpoint_rubrics=dict(loaded.project.checkpoint_rubrics))
    gone = {rel for rel, text in texts.items() if text is None}
    # load_project reads a folder's rubric only beside a subtask.yaml: a deleted subtask.yaml takes
    # its rubric's model, document and problems with it.
    for rel in list(gone):
        parts = PurePosixPath(rel).parts
        if len(parts) == 3 and parts[0] == layout.SUBTASKS_DIR and parts[2] == layout.SUBTASK_FILE:
            gone.add(PurePosixPath(*parts[:2], layout.CHECKPOINT_RUBRIC_FILE).as_posix())
    result = LoadedProject(loaded.root, project, dict(loaded.documents),
                           [problem for problem in loaded.problems if problem.file not in texts and problem.file
                            not in gone])
    result.files = loaded.files
    for rel in sorted(set(texts) | gone):
        text = None if rel in gone else texts[rel]
        result.documents.pop(rel, None)
        path = loaded.root / rel
        if rel in _PROJECT_FILES:
            attribute, model = _PROJECT_FILES[rel]
            if text is None:
                setattr(project, attribute, None)
                if rel in _REQUIRED_FILES:
                    result.problems.append(_missing_file(rel))
            else:
                setattr(project, attribute, _read_model(result, path, model, text=text))
            continue
        parts = PurePosixPath(rel).parts
        if len(parts) != 3 or parts[0] != layout.SUBTASKS_DIR or parts[2] not in (layout.SUBTASK_FILE,
                                                                                 layout.CHECKPOINT_RUBRIC_FILE):
            raise ValueError(f"{rel} is not a project YAML file")
        is_subtask = parts[2] == layout.SUBTASK_FILE
        found: dict[str, Any] = project.subtasks if is_subtask else project.checkpoint_rubrics
        beside = PurePosixPath(*parts[:2], layout.SUBTASK_FILE).as_posix()
        if text is None or (not is_subtask and not _subtask_file_kept(result, beside, texts)):
            found.pop(parts[1], None)
            continue
        value = _read_model(result, path, Subtask if is_subtask else Rubric, text=text)
        if value is None:
            found.pop(parts[1], None)
        else:
            found[parts[1]] = value
    # The order load_project gives: subtask folders by name.
    project.subtasks = dict(sorted(project.subtasks.items()))
    project.checkpoint_rubrics = dict(sorted(project.checkpoint_rubrics.items()))
    return result


def _subtask_file_kept(result: LoadedProject, rel: str, texts: Mapping[str, str | None]) -> bool:
    """Whether the subtask.yaml `rel` is there after the edit (read, or failed to read)."""
    if rel in texts:
        return texts[rel] is not None
    return rel in result.documents or any(problem.file == rel for problem in result.problems) \
        or result.files.is_file(rel)
