"""Where each part of a project lives inside its folder. The one place that knows file names."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from studio.errors import StudioError

PROJECT_FILE = "project.yaml"
STAGES_FILE = "stages.yaml"
MATERIALS_FILE = "materials.yaml"
DEPENDENCIES_FILE = "dependencies.yaml"
SUBTASKS_DIR = "subtasks"
SUBTASK_FILE = "subtask.yaml"
CHECKPOINT_RUBRIC_FILE = "rubric.yaml"
FINAL_RUBRIC_FILE = "final/rubric.yaml"
MATERIALS_DIR = "materials"
EVALUATOR_DIR = "evaluator"
REFERENCES_FILE = "evaluator/references.yaml"
# The expert's own deliverables, evaluator-only like everything under evaluator/: one folder per scope
# (a subtask id, or final) holding the files as that scope's submission holds them (studio.mutation).
REFERENCE_PACKAGE_DIR = "evaluator/reference"
REFERENCE_PACKAGE_FILE = "evaluator/reference/reference.yaml"
# What mutation testing built and found: submissions, the judge's verdicts on them, the last report.
# A cache under .dbstudio/ (never committed): `dbstudio mutate` builds it again.
MUTATION_DIR = ".dbstudio/mutation"
SCRIPTS_DIR = "scripts"
RUNS_DIR = "runs"
# Judge and expert verdicts, one file per submission and rater: kept under git, never ignored.
VERDICTS_DIR = "verdicts"
# Project files merge by object, Markdown as text without conflict markers: the merge driver
# `dbstudio` (studio/collab/driver.py, installed in each clone's git config by `dbstudio sync`).
MERGE_DRIVER = "dbstudio"
GITATTRIBUTES = f"""\
# DeliverBench Studio merges project files by object (docs/collaboration.md)
*.yaml merge={MERGE_DRIVER}
*.yml merge={MERGE_DRIVER}
*.md merge={MERGE_DRIVER}
"""
# Review work (studio.judging.assignments, studio.judging.double_coding): kept under git with the project.
REVIEW_DIR = "review"
ASSIGNMENTS_FILE = "review/assignments.yaml"
DOUBLE_CODING_FILE = "review/double-coding.yaml"
# Comment threads on subtasks and criteria, one file per thread (comments/<thread-id>.yaml): under git.
COMMENTS_DIR = "comments"
GITIGNORE = """\
# Run outputs, judge caches and editor leftovers never enter the project's history.
runs/
.cache/
.dbstudio/
__pycache__/
*.pyc
.*.tmp
~$*
.DS_Store
"""


class NotAProjectError(StudioError):
    """The path is not a project folder at all (exit code 2 territory)."""


def is_project_folder(folder: Path | str) -> bool:
    """The one test of a project folder: it holds a project.yaml."""
    return (Path(folder) / PROJECT_FILE).is_file()


def not_a_project(folder: Path | str) -> str | None:
    """Why `folder` is no project folder, with what to give instead; None for a project folder.
    Every shell (the CLI's commands, the app's Open) says it in these words."""
    folder = Path(folder)
    if is_project_folder(folder):
        return None
    if not folder.exists():
        return f"{folder}: no such folder (give the project folder, which holds {PROJECT_FILE})"
    if not folder.is_dir():
        return f"{folder}: not a folder (give the project folder, which holds {PROJECT_FILE})"
    return (f"{folder}: not a project folder (it has no {PROJECT_FILE}): choose the folder that holds "
            f"{PROJECT_FILE}, or create a project (File > New, or `dbstudio new`)")


def project_folder(folder: Path | str) -> Path:
    """`folder` as a Path when it is a project folder; NotAProjectError saying why not otherwise."""
    if (problem := not_a_project(folder)) is not None:
        raise NotAProjectError(problem)
    return Path(folder)


def subtask_dir(root: Path, subtask_id: str) -> Path:
    return Path(root) / SUBTASKS_DIR / subtask_id


def subtask_file(root: Path, subtask_id: str) -> Path:
    return subtask_dir(root, subtask_id) / SUBTASK_FILE


def checkpoint_rubric_file(root: Path, subtask_id: str) -> Path:
    return subtask_dir(root, subtask_id) / CHECKPOINT_RUBRIC_FILE


def verdicts_dir(root: Path) -> Path:
    return Path(root) / VERDICTS_DIR


def comments_dir(root: Path) -> Path:
    return Path(root) / COMMENTS_DIR


def comment_file(root: Path, thread_id: str) -> Path:
    return comments_dir(root) / f"{thread_id}.yaml"


def comment_files(root: Path) -> list[Path]:
    """The comment threads' files (comments/*.yaml), sorted by name."""
    base = comments_dir(root)
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.suffix == ".yaml" and p.is_file())


def subtask_folders(root: Path) -> list[Path]:
    """Folders under subtasks/ that hold a subtask.yaml, sorted by name."""
    base = Path(root) / SUBTASKS_DIR
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if (p / SUBTASK_FILE).is_file())


def yaml_files(root: Path) -> list[Path]:
    """Every YAML file that is part of the project definition, in a stable order."""
    root = Path(root)
    files = [root / PROJECT_FILE, root / STAGES_FILE, root / MATERIALS_FILE, root / DEPENDENCIES_FILE]
    for folder in subtask_folders(root):
        files.append(folder / SUBTASK_FILE)
        files.append(folder / CHECKPOINT_RUBRIC_FILE)
    files += [root / FINAL_RUBRIC_FILE, root / REFERENCES_FILE]
    return [f for f in files if f.is_file()]


def is_project_yaml(rel: str) -> bool:
    """Whether `rel` (relative to the project folder) is one of the YAML files the project model is read from."""
    if rel in (PROJECT_FILE, STAGES_FILE, MATERIALS_FILE, DEPENDENCIES_FILE, FINAL_RUBRIC_FILE, REFERENCES_FILE):
        return True
    parts = rel.split("/")
    return len(parts) == 3 and parts[0] == SUBTASKS_DIR and parts[2] in (SUBTASK_FILE, CHECKPOINT_RUBRIC_FILE)


def scope_of_file(rel: str) -> str | None:
    """The rubric scope a project file holds ('final', a subtask id), or None if not a rubric."""
    from studio.model.vocabulary import FINAL_SCOPE

    if rel == FINAL_RUBRIC_FILE:
        return FINAL_SCOPE
    parts = rel.split("/")
    if len(parts) == 3 and parts[0] == SUBTASKS_DIR and parts[2] == CHECKPOINT_RUBRIC_FILE:
        return parts[1]
    return None


def touched_scopes(files: Iterable[str]) -> set[str]:
    """The rubric scopes whose files are among `files` (an edit's changed files)."""
    return {scope for scope in map(scope_of_file, files) if scope is not None}
