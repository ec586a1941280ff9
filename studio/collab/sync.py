"""Sync with a shared repository: fetch, merge (object by object, through the project's driver),
push; and where the clone stands against its remote (ahead / behind) for the app's status bar.

Authentication is the user's own git: an ssh agent, a credential helper. Git runs here with
`GIT_TERMINAL_PROMPT=0`, so a remote that wants a password it has no helper for fails at once with
a message naming the fix, instead of waiting for an answer nobody can type. Nothing here stores a
credential.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import git

from studio.collab import conflicts as recorded
from studio.collab.conflicts import Conflict
from studio.collab.driver import ensure_driver
from studio.errors import StudioError
from studio.store.history import ProjectRepository
from studio.store.repository_state import git_message, interruption, interruption_message, merge_head, unmerged_paths

NO_PROMPT = {"GIT_TERMINAL_PROMPT": "0"}
_LOGIN_WORDS = ("authentication failed", "could not read username", "could not read password",
                "permission denied", "terminal prompts disabled", "host key verification failed")
_REJECTED_WORDS = ("rejected", "fetch first", "non-fast-forward", "failed to push some refs")


class CollabError(StudioError):
    """Sync, a remote or a conflict cannot be handled as asked; the message names the fix."""


@dataclass(frozen=True)
class SyncStatus:
    """Where the clone stands: its branch, the remote it syncs with (None: none set up), and how
    many commits it has that the remote lacks (ahead) and the other way round (behind), as of the
    last fetch."""

    branch: str | None
    remote: str | None
    ahead: int = 0
    behind: int = 0
    merging: bool = False
    conflicts: int = 0

    def text(self) -> str:
        if self.merging:
            return f"merge: {self.conflicts} conflict(s) to resolve"
        if self.remote is None:
            return "no remote"
        return f"{self.remote}: ↑{self.ahead} ↓{self.behind}"


@dataclass
class SyncResult:
    """What one sync did."""

    remote: str
    branch: str
    fetched: bool = False
    merged: int = 0  # commits taken from the remote
    pushed: int = 0  # commits sent to it
    conflicts: list[Conflict] = field(default_factory=list)  # files git could not merge itself among them
    notes: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.conflicts

    def summary(self) -> str:
        if not self.clean:
            return (f"merged {self.remote}/{self.branch} with {len(self.conflicts)} conflict(s) to resolve: nothing pushed; "
                    "settle each (the conflict view, or `dbstudio resolve`) and the merge is committed")
        parts = []
        if self.merged:
            parts.append(f"took {self.merged} commit(s) from {self.remote}")
        if self.pushed:
            parts.append(f"sent {self.pushed} commit(s) to {self.remote}")
        return "; ".join(parts) if parts else f"already in step with {self.remote}/{self.branch}"


@contextmanager
def _no_prompt(repo: git.Repo) -> Iterator[None]:
    previous = {name: os.environ.get(name) for name in NO_PROMPT}
    repo.git.update_environment(**NO_PROMPT)
    try:
        yield
    finally:
        repo.git.update_environment(**{name: value for name, value in previous.items()})


def _open(folder: Path) -> ProjectRepository:
    try:
        return ProjectRepository(Path(folder))
    except StudioError as error:
        raise CollabError(str(error)) from None


def _branch(repo: git.Repo) -> str:
    try:
        return repo.active_branch.name
    except TypeError:
        raise CollabError("the clone is on no branch (a detached HEAD): check out a branch "
                          "(`git switch main`) before syncing") from None


def remote_name(repo: git.Repo, wanted: str | None = None) -> str | None:
    """The remote to sync with: the one asked for, the branch's own, `origin`, else the only one."""
    names = [remote.name for remote in repo.remotes]
    if wanted is not None:
        if wanted not in names:
            known = ", ".join(names) or "none"
            raise CollabError(f"no remote '{wanted}' (remotes: {known}): add it with "
                              f"`dbstudio remote PROJECT add {wanted} URL`")
        return wanted
    try:
        tracking = repo.active_branch.tracking_branch()
    except TypeError:
        tracking = None
    if tracking is not None and tracking.remote_name in names:
        return tracking.remote_name
    if "origin" in names:
        return "origin"
    return names[0] if len(names) == 1 else None


def status(folder: Path, remote: str | None = None) -> SyncStatus:
    """Ahead / behind against the remote as last fetched (no network)."""
    project = _open(folder)
    repo = project.repo
    merging = merge_head(repo) is not None
    open_conflicts = len(current_conflicts(project)) if merging else 0
    try:
        branch: str | None = repo.active_branch.name
    except TypeError:
        branch = None
    name = remote_name(repo, remote)
    if name is None or branch is None:
        return SyncStatus(branch, name, merging=merging, conflicts=open_conflicts)
    ahead, behind = _counts(repo, f"{name}/{branch}")
    return SyncStatus(branch, name, ahead, behind, merging, open_conflicts)


def _counts(repo: git.Repo, upstream: str) -> tuple[int, int]:
    try:
        repo.git.rev_parse("--verify", "--quiet", f"refs/remotes/{upstream}")
    except git.GitCommandError:
        return (len(list(repo.iter_commits("HEAD"))) if repo.head.is_valid() else 0), 0
    if not repo.head.is_valid():
        return 0, len(list(repo.iter_commits(upstream)))
    out = repo.git.rev_list("--left-right", "--count", f"HEAD...{upstream}")
    ahead, behind = (int(value) for value in out.split())
    return ahead, behind


def current_conflicts(project: ProjectRepository) -> list[Conflict]:
    """The recorded conflicts of the merge in progress (none once it is committed or aborted)."""
    repo = project.repo
    if merge_head(repo) is None:
        return []
    head = repo.head.commit.hexsha
    return [conflict for conflict in recorded.read_all(project.root) if conflict.head in ("", head)]


def sync(folder: Path, remote: str | None = None, push: bool = True) -> SyncResult:
    """Fetch, merge the remote's branch into this one, push what the remote lacks."""
    project = _open(folder)
    repo = project.repo
    found = interruption(repo)
    if found is not None:
        if merge_head(repo) is not None:
            raise CollabError("a merge is in progress: settle its conflicts first (`dbstudio conflicts PROJECT`, "
                              "then `dbstudio resolve`, or the app's conflict view), or abandon it with "
                              "`dbstudio resolve PROJECT --abort`")
        raise CollabError(interruption_message(found))
    install_driver(project)
    if project.is_dirty():
        changed = ", ".join(project.changed_files()[:5])
        raise CollabError(f"the project has unsaved changes ({changed}): save them first (`dbstudio save PROJECT "
                          "-m MESSAGE`, or Save and Commit in the app), then sync")
    branch = _branch(repo)
    name = remote_name(repo, remote)
    if name is None:
        raise CollabError("the project has no remote to sync with: add one with "
                          "`dbstudio remote PROJECT add origin URL` (a shared bare repository or a hosted one)")
    result = SyncResult(name, branch)
    with _no_prompt(repo):
        for _attempt in range(2):
            _fetch(repo, name)
            result.fetched = True
            upstream = f"{name}/{branch}"
            ahead, behind = _counts(repo, upstream)
            if behind:
                recorded.clear(project.root)
                if not _merge(repo, upstream, ahead, result):
                    known = {project.repo_path(conflict.file) for conflict in current_conflicts(project)}
                    _record_unmerged(project, [path for path in unmerged_paths(repo) if path not in known])
                    result.conflicts = current_conflicts(project)
                    return result
                result.merged += behind
            ahead, _ = _counts(repo, upstream)
            if not push or not ahead:
                return result
            if _push(repo, name, branch):
                result.pushed = ahead
                return result
            result.notes.append(f"{name} moved while syncing: fetched and merged again")
    raise CollabError(f"{name} kept moving while syncing: nothing more was pushed; sync again")


def install_driver(project: ProjectRepository) -> bool:
    """The merge driver in the clone's config, and `.gitattributes` written and committed on its own
    if the project lacks it (True then)."""
    if not ensure_driver(project.repo, project.root):
        return False
    project.commit("Merge project files by object (.gitattributes naming DeliverBench Studio's merge driver)",
                   [".gitattributes"])
    return True


def _fetch(repo: git.Repo, name: str) -> None:
    try:
        repo.git.fetch("--quiet", name)
    except git.GitCommandError as error:
        raise _network_error("fetch from", name, repo, error) from None


def _merge(repo: git.Repo, upstream: str, ahead: int, result: SyncResult) -> bool:
    """Merge `upstream` into HEAD; False if it stopped with conflicts."""
    try:
        if ahead == 0 and repo.head.is_valid():
            repo.git.merge("--ff-only", "--quiet", upstream)
        elif not repo.head.is_valid():
            repo.git.reset("--hard", upstream)
        else:
            repo.git.merge("--no-edit", "--quiet", "-m", f"Sync: merge {upstream}", upstream)
    except git.GitCommandError as error:
        if merge_head(repo) is not None:
            return False
        raise CollabError(f"git could not merge {upstream} ({git_message(error)}): nothing was changed") from None
    return True


def _push(repo: git.Repo, name: str, branch: str) -> bool:
    """Push; False if the remote has moved since the fetch (rejected as not a fast-forward)."""
    try:
        repo.git.push("--quiet", "--set-upstream", name, f"HEAD:refs/heads/{branch}")
    except git.GitCommandError as error:
        text = f"{error.stderr}".lower()
        if any(word in text for word in _REJECTED_WORDS) and not any(word in text for word in _LOGIN_WORDS):
            return False
        raise _network_error("push to", name, repo, error) from None
    return True


def _network_error(what: str, name: str, repo: git.Repo, error: git.GitCommandError) -> CollabError:
    url = next((remote.url for remote in repo.remotes if remote.name == name), name)
    message = git_message(error)
    if any(word in f"{error.stderr}".lower() for word in _LOGIN_WORDS):
        return CollabError(f"git could not log in to {name} ({url}) to {what.split()[0]}: {message}. Set up your own "
                           "git credentials for it — an ssh key in your ssh agent, or a credential helper "
                           "(`git config --global credential.helper ...`); DeliverBench Studio never stores them")
    return CollabError(f"git could not {what} {name} ({url}): {message}. Check the address "
                       f"(`dbstudio remote PROJECT list`) and the network, then sync again")


def _record_unmerged(project: ProjectRepository, paths: list[str]) -> None:
    """Files git could not merge itself (no driver: a binary material changed on both sides)."""
    head = project.repo.head.commit.hexsha
    for path in paths:
        file = project.project_path(path)
        recorded.record(project.root, file, [Conflict(file, "(whole file)", "file", head=head)])
