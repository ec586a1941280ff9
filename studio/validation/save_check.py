"""What a save checks first: a changed project file that does not parse (YAML syntax, schema)
would be committed as a revision nobody can open, so `dbstudio save` refuses it unless forced."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from studio.store import layout
from studio.store.loader import load_project
from studio.validation.findings import Finding
from studio.validation.validate import validate_loaded

# The one loader problem that is about the project (a required file is absent), not about a file
# that fails to parse: it does not stop a save.
_MISSING_FILE = "missing-file"


def save_findings(root: Path, changed: Iterable[str]) -> tuple[list[Finding], list[Finding]]:
    """(findings on changed files that do not parse, every other validation finding) for a save
    of the `changed` files (project-relative paths). Nothing for a folder that is no project."""
    if not layout.is_project_folder(root):
        return [], []
    loaded = load_project(root)
    changed = set(changed)
    blocking = []
    for problem in loaded.problems:
        if problem.code != _MISSING_FILE and problem.file in changed:
            line, column = loaded.locate(problem)
            blocking.append(Finding(problem.file, line, column, problem.message, problem.code,
                                    object_id=problem.object_id))
    blocking = sorted(set(blocking))
    others = [finding for finding in validate_loaded(loaded) if finding not in blocking]
    return blocking, others
