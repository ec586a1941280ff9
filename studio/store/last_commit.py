"""The last committed version of one project file, and putting it back: what the app offers when a
file on disk does not load. The restore is `dbstudio restore PROJECT FILE HEAD`'s, not a second one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.errors import StudioError
from studio.store.history import ProjectRepository, RestoreResult


@dataclass(frozen=True)
class CommittedVersion:
    """A file as the last commit that has it holds it."""

    path: str  # relative to the project folder
    revision: str  # full commit id
    short: str
    subject: str  # the first line of that commit's message


def committed_version(root: Path, rel: str) -> CommittedVersion | None:
    """The version of `rel` in HEAD when restoring it would change the file on disk; None when there
    is nothing to put back (no git, no commit yet, a file never committed, or the same bytes)."""
    try:
        repository = ProjectRepository(root)
        if not repository.has_commits():
            return None
        committed = repository.read_at("HEAD", rel)
        if committed is None or committed == repository.read_version(None, rel):
            return None
        last = repository.history(rel, max_count=1)
    except StudioError:
        return None
    if not last:
        return None
    # The last commit that changed the file holds the same bytes as HEAD, and names the change.
    subject = last[0].message.splitlines()[0] if last[0].message else ""
    return CommittedVersion(rel, last[0].sha, last[0].short, subject)


def restore_committed(root: Path, version: CommittedVersion) -> RestoreResult:
    """Write `version` back over the file on disk (not committed); a HistoryError says why not."""
    return ProjectRepository(root).restore(version.path, version.revision)
