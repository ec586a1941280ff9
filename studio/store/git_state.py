"""What the app's status bar says of a project's repository: versioned or not, the branch, how
many changes are not committed, and git's warnings (a detached HEAD, a merge left half done)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class GitState:
    """What the status bar says about the project's repository (read off the UI thread)."""

    versioned: bool
    branch: str | None = None
    uncommitted: int = 0
    warnings: list[str] = field(default_factory=list)

    def text(self) -> str:
        if not self.versioned:
            return "git: not versioned"
        parts = [f"git: {self.uncommitted} unsaved change(s)" if self.uncommitted else "git: saved"]
        parts += [f"warning: {w.split(': ')[0]}" for w in self.warnings]
        return "; ".join(parts)


def read_git_state(root: Path) -> GitState:
    from studio.store.history import HistoryError, ProjectRepository  # gitpython: on the TaskRunner

    try:
        repository = ProjectRepository(root)
        changes = repository.status()
        warnings = repository.warnings()  # a detached HEAD, a merge left half-done
        try:
            branch: str | None = repository.repo.active_branch.name
        except (TypeError, ValueError):  # detached HEAD, or no commit yet
            branch = None
    except HistoryError:
        return GitState(False)
    return GitState(True, branch, len(changes), warnings)
