"""`validate`: load a project folder and report every schema and reference problem, located."""

from __future__ import annotations

from pathlib import Path

from studio.collector import collector_paused
from studio.store import layout
from studio.store.layout import NotAProjectError  # raised from the one project-folder rule; named here too
from studio.store.loader import LoadedProject, load_project
from studio.validation.comments import check_comments
from studio.validation.findings import Finding
from studio.validation.references import check_references

__all__ = ["NotAProjectError", "load_folder", "summary", "validate_loaded", "validate_project"]


def validate_loaded(loaded: LoadedProject) -> list[Finding]:
    with collector_paused():
        problems = list(loaded.problems) + check_references(loaded)
        findings = []
        for problem in problems:
            line, column = loaded.locate(problem)
            findings.append(Finding(problem.file, line, column, problem.message, problem.code,
                                    object_id=problem.object_id))
        return sorted(set(findings) | set(check_comments(loaded)))


def load_folder(path: Path) -> LoadedProject:
    """The project folder at `path`, loaded; raises NotAProjectError if there is none."""
    return load_project(layout.project_folder(path))


def validate_project(path: Path) -> list[Finding]:
    """All findings for the project folder at `path`; raises NotAProjectError if there is none."""
    return validate_loaded(load_folder(path))


def summary(loaded: LoadedProject) -> str:
    """What a clean validation covered, in one line: `OK: 10 subtasks, 97 criteria`."""
    project = loaded.project
    subtasks = len(project.subtasks)
    criteria = len(project.all_criteria())  # every rubric line, reused ones included: each gets a verdict
    return f"OK: {subtasks} subtask{'s' if subtasks != 1 else ''}, {criteria} criteri{'a' if criteria != 1 else 'on'}"
