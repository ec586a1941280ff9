"""What a save checks first: a changed project file that does not parse (YAML syntax, schema)
would be committed as a revision nobody can open, so a save refuses it unless forced. The one
save both shells make: `dbstudio save` and the app's Commit call `save_revision`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from studio.errors import StudioError
from studio.store import layout
from studio.store.history import ProjectRepository, Revision
from studio.store.loader import load_project
from studio.validation.findings import Finding
from studio.validation.validate import validate_loaded

if TYPE_CHECKING:
    from studio.editing.session import ProjectSession

# The one loader problem that is about the project (a required file is absent), not about a file
# that fails to parse: it does not stop a save.
_MISSING_FILE = "missing-file"


class SaveRefusedError(StudioError):
    """A save refused because a file it would record does not load; nothing was committed."""

    def __init__(self, blocking: list[Finding]):
        self.blocking = blocking
        self.files = sorted({finding.file for finding in blocking})
        self.summary = refusal(self.files)
        super().__init__(self.summary + ":\n" + "\n".join(f"  {finding.render()}" for finding in blocking))


def refusal(files: list[str]) -> str:
    """Why a save was refused, for the files that do not load (the CLI adds its --force hint)."""
    return (f"nothing was saved: {', '.join(files)} {'has' if len(files) == 1 else 'have'} YAML or schema "
            "errors, so the saved project would not load; fix them and save again")


@dataclass(frozen=True)
class SaveResult:
    revision: Revision
    forced: list[Finding] = field(default_factory=list)
    """Findings on saved files that do not parse (saved because the save was forced)."""
    others: list[Finding] = field(default_factory=list)
    """Every other validation finding of the project: worth a warning, no reason to refuse."""


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


def save_revision(root: Path, message: str, paths: list[str] | None = None, force: bool = False) -> SaveResult:
    """Commit the project folder (or only `paths`) with `message`, after checking that every file it
    records loads: SaveRefusedError (nothing committed) when one does not, unless `force`."""
    repo = ProjectRepository(Path(root))
    blocking, others = save_findings(repo.root, repo.changed_files(paths))
    if blocking and not force:
        repo.require_committable()  # a refusal git would give (a merge half-done, no identity) comes first
        raise SaveRefusedError(blocking)
    return SaveResult(repo.commit(message, paths=paths), blocking, others)


def app_commit_paths(session: ProjectSession) -> list[str]:
    """What a commit from the app records: the files it wrote since the last commit, and the verdict
    store's and the comment threads' files (written by their stores, not by the documents)."""
    repo = ProjectRepository(session.root)
    stores = [folder for folder in (layout.VERDICTS_DIR, layout.COMMENTS_DIR) if (session.root / folder).is_dir()]
    written = repo.changed_files(stores) if stores else []
    return sorted(set(session.documents.editor.unrecorded()) | set(written))


def commit_session(session: ProjectSession, message: str) -> SaveResult:
    """The app's commit of a saved session: `save_revision` over `app_commit_paths`."""
    paths = app_commit_paths(session)
    result = save_revision(session.root, message, paths)
    session.documents.editor.recorded(paths)
    return result
