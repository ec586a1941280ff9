"""Settling a merge's conflicts one by one, then committing it: the CLI's `dbstudio resolve` and
the app's conflict view both come here.

A conflict is settled by taking a side (ours, theirs, base) or giving a value. The value is written
into the file as it stands after the merge (comments kept); once a file has no conflict left it is
staged; once none is left at all, the project is validated and the merge committed — one commit,
its message naming what was settled. A merge whose result does not validate is not committed: the
findings are reported and the expert fixes them (or settles differently) first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git

from studio.collab import conflicts as recorded
from studio.collab.conflicts import SIDES, Conflict
from studio.collab.merge import MISSING, MergeError, set_field
from studio.collab.sync import CollabError, _open, current_conflicts
from studio.store.atomic import write_atomic
from studio.store.repository_state import git_message, merge_head, unmerged_paths


@dataclass(frozen=True)
class Resolved:
    """What a resolve did: the conflicts still open, and the merge commit once there are none."""

    remaining: list[Conflict]
    commit: str | None = None
    problems: tuple[str, ...] = ()  # validation errors that kept the merge from being committed


def conflicts(folder: Path) -> list[Conflict]:
    """The open conflicts of the merge in progress (none if no merge is in progress)."""
    return current_conflicts(_open(folder))


def find(folder: Path, file: str, field: str = "(whole file)") -> Conflict:
    """The open conflict on `field` of `file`, or an error listing the ones there are."""
    found = conflicts(folder)
    for conflict in found:
        if conflict.file == file and conflict.field == field:
            return conflict
    if not found:
        raise CollabError(f"{folder}: no merge with conflicts is in progress: nothing to resolve")
    listed = "; ".join(f"{conflict.file} {conflict.field}" for conflict in found[:8])
    raise CollabError(f"no conflict on {field} in {file}: the open ones are {listed} "
                      "(`dbstudio conflicts PROJECT` lists them all)")


def resolve(folder: Path, conflict: Conflict, take: str | None = None, value: Any = MISSING,
            message: str | None = None) -> Resolved:
    """Settle `conflict` with a side (`take`) or a `value`; commit the merge when none is left."""
    project = _open(folder)
    if (take is None) == (value is MISSING):
        raise CollabError("settle a conflict with one side (ours, theirs or base) or one value, not both or neither")
    if take is not None and take not in SIDES:
        raise CollabError(f"no side '{take}': take ours, theirs or base")
    chosen = conflict.value(take) if take is not None else value
    path = project.root / conflict.file
    if conflict.kind == "file":
        _take_file(project.repo, project.repo_path(conflict.file), take or "ours")
    elif conflict.kind == "text":
        if chosen is MISSING:
            path.unlink(missing_ok=True)
        else:
            write_atomic(path, str(chosen).encode("utf-8"))
    else:
        try:
            text = set_field(path.read_text(encoding="utf-8"), conflict.path, chosen, conflict.file)
        except MergeError as error:
            raise CollabError(str(error)) from None
        write_atomic(path, text.encode("utf-8"))
    left = [other for other in recorded.read_all(project.root)
            if (other.file, other.field) != (conflict.file, conflict.field)]
    recorded.write_all(project.root, left)
    settled = _settled_note(project.root, conflict, take)
    if not any(other.file == conflict.file for other in left):
        _stage(project.repo, project.repo_path(conflict.file), path.exists())
    remaining = current_conflicts(project)
    if remaining:
        return Resolved(remaining)
    return _commit(folder, message, settled)


def _take_file(repo: git.Repo, repo_path: str, side: str) -> None:
    flag = {"ours": "--ours", "theirs": "--theirs"}.get(side)
    if flag is None:
        raise CollabError("a file git could not merge is settled by taking ours or theirs")
    try:
        repo.git.checkout(flag, "--", repo_path)
    except git.GitCommandError as error:
        raise CollabError(f"git could not take {side} of {repo_path} ({git_message(error)})") from None


def _stage(repo: git.Repo, repo_path: str, exists: bool) -> None:
    try:
        if exists:
            repo.git.add("--", repo_path)
        else:
            repo.git.rm("--cached", "--quiet", "--ignore-unmatch", "--", repo_path)
    except git.GitCommandError as error:
        raise CollabError(f"git could not stage {repo_path} ({git_message(error)})") from None


_NOTES = ".dbstudio/resolved.txt"


def _settled_note(root: Path, conflict: Conflict, take: str | None) -> list[str]:
    """The line for the merge commit's message, kept until the merge is committed."""
    note = root / _NOTES
    lines = note.read_text(encoding="utf-8").splitlines() if note.exists() else []
    lines.append(f"{conflict.file} {conflict.field}: {'took ' + take if take else 'set by hand'}")
    note.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(note, ("\n".join(lines) + "\n").encode("utf-8"))
    return lines


def _commit(folder: Path, message: str | None, settled: list[str]) -> Resolved:
    from studio.validation.findings import Severity
    from studio.validation.validate import load_folder, validate_loaded

    project = _open(folder)
    errors = [finding for finding in validate_loaded(load_folder(project.root)) if finding.severity == Severity.ERROR]
    if errors:
        shown = tuple(f"{finding.file}:{finding.line}:{finding.column}: {finding.message}" for finding in errors[:10])
        return Resolved([], None, shown)
    left = unmerged_paths(project.repo)
    if left:
        return Resolved([], None, tuple(f"{path}: still unmerged for git: settle it, or `git add` it"
                                        for path in left))
    merging = (merge_head(project.repo) or "")[:12]
    text = message or f"Sync: merge {merging}, conflicts settled\n\n" + "\n".join(settled)
    try:
        project.repo.git.commit("--quiet", "--no-verify", "-m", text)
    except git.GitCommandError as error:
        raise CollabError(f"git refused the merge commit ({git_message(error)})") from None
    (project.root / _NOTES).unlink(missing_ok=True)
    recorded.clear(project.root)
    return Resolved([], project.repo.head.commit.hexsha)


def finish(folder: Path, message: str | None = None) -> Resolved:
    """Commit a merge whose conflicts are all settled but whose result did not validate then, once
    the findings are fixed (validated again first)."""
    project = _open(folder)
    if merge_head(project.repo) is None:
        raise CollabError(f"{folder}: no merge is in progress: nothing to commit")
    left = current_conflicts(project)
    if left:
        raise CollabError(f"{len(left)} conflict(s) are not settled yet: settle them first (`dbstudio conflicts PROJECT`)")
    project.repo.git.add("--all", "--", project.repo_path("") or ".")
    note = project.root / _NOTES
    settled = note.read_text(encoding="utf-8").splitlines() if note.exists() else []
    return _commit(folder, message, settled)


def merging(folder: Path) -> bool:
    """Whether a merge is in progress (settled or not)."""
    return merge_head(_open(folder).repo) is not None


def abort(folder: Path) -> None:
    """Abandon the merge in progress: the clone goes back to what it was before it."""
    project = _open(folder)
    if merge_head(project.repo) is None:
        raise CollabError(f"{folder}: no merge is in progress: nothing to abort")
    try:
        project.repo.git.merge("--abort")
    except git.GitCommandError as error:
        raise CollabError(f"git could not abort the merge ({git_message(error)})") from None
    recorded.clear(project.root)
    (project.root / _NOTES).unlink(missing_ok=True)
