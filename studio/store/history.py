"""Git history of a project folder: save with a message, list revisions, restore (object diffs: object_diff.py).

A project folder is either the root of its own repository or a folder inside an enclosing one
(the bundled sample lives in this application's repository). Every operation is limited to the
project's folder, so other projects in the same repository are never touched. A save checks
everything it can before staging, and stages in a private copy of the index that replaces the
real one only once the commit is made: a refused save leaves the index as it was.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import git

from studio.errors import StudioError
from studio.store.atomic import write_atomic
from studio.store.history_errors import HistoryError
from studio.store.repository_state import (
    IDENTITY_COMMANDS,
    detached_head,
    git_message,
    identity_problem,
    interruption,
    interruption_message,
)

SYMLINK_MODE = "120000"
EXECUTABLE_MODE = "100755"
# Porcelain status codes of a path with unresolved merge conflicts.
_CONFLICT_CODES = {"DD", "AU", "UD", "UA", "DU", "AA", "UU"}


class MissingIdentityError(HistoryError):
    """git has no author name and email to record a save with."""


def identity_message(problem: str, repository_folder: Path | None) -> str:
    """The refusal for a save without an author, with the commands that fix it."""
    local = ""
    if repository_folder is not None:
        folder = shlex.quote(str(repository_folder))
        local = (f"\nor only for this project's repository:\n  git -C {folder} config user.name \"Your Name\""
                 f"\n  git -C {folder} config user.email \"you@example.com\"")
    return (f"git does not know who is saving ({problem}), and every save records its author. "
            f"Set your name and email once:\n  {IDENTITY_COMMANDS}{local}\n"
            "(or set GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL), "
            "then try again. Nothing was staged or saved.")


@dataclass(frozen=True)
class Revision:
    sha: str
    short: str
    author: str
    date: datetime
    message: str
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileStatus:
    path: str  # relative to the project folder
    change: str  # modified, added, deleted, untracked, conflict


@dataclass(frozen=True)
class RestoreResult:
    """What a restore changed in the project folder (nothing is committed)."""

    path: str  # the file or folder restored, relative to the project folder ("" for all of it)
    revision: str  # full commit id
    written: tuple[str, ...]  # files put back with their bytes at the revision
    removed: tuple[str, ...]  # saved, unchanged files absent at the revision (still in history)
    kept: tuple[str, ...]  # files absent at the revision with unsaved work: left in place


@dataclass(frozen=True)
class _TreeEntry:
    mode: str
    kind: str  # blob, tree or commit (a submodule)
    sha: str


class ProjectRepository:
    """The git view of one project folder."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise HistoryError(f"{root} is not a folder: give the path of a project folder")
        try:
            self.repo = git.Repo(self.root, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise HistoryError(
                f"{self.root} is not under git version control: create it with `dbstudio new`, "
                "or run `git init` in the project folder"
            ) from None
        if self.repo.working_tree_dir is None:
            raise HistoryError(f"{self.root} is inside a bare git repository: clone it to get a project folder")
        work_tree = Path(self.repo.working_tree_dir).resolve()
        self.prefix = self.root.relative_to(work_tree).as_posix()
        if self.prefix == ".":
            self.prefix = ""
        # File names given by a user are names, never patterns (`*.md` must not stage every file).
        self.repo.git.update_environment(GIT_LITERAL_PATHSPECS="1")

    @classmethod
    def init(cls, root: Path) -> ProjectRepository:
        """Make `root` a repository of its own."""
        git.Repo.init(Path(root), initial_branch="main")
        return cls(root)

    # -- paths -----------------------------------------------------------------------------
    def project_relative(self, rel: str) -> str:
        """`rel` as a clean path inside the project folder ("" is the folder itself).

        Refuses what lies outside the folder (`..`, an absolute path elsewhere) and git's own
        files, so no operation reaches another project of an enclosing repository.
        """
        pure = PurePosixPath(rel)
        if pure.is_absolute():
            # As typed, or with the links in its folders resolved (the project root is resolved).
            spellings = [os.path.normpath(rel), os.path.join(os.path.realpath(os.path.dirname(rel)), pure.name)]
            for spelling in spellings:
                if PurePosixPath(spelling).is_relative_to(self.root):
                    pure = PurePosixPath(spelling).relative_to(self.root)
                    break
            else:
                raise self._outside(rel)
        parts = [part for part in pure.parts if part not in ("", ".")]
        if ".." in parts:
            raise self._outside(rel)
        if ".git" in parts:
            raise HistoryError(f"'{rel}' is inside git's own folder .git, not a project file")
        return "/".join(parts)

    def _outside(self, rel: str) -> HistoryError:
        return HistoryError(f"'{rel}' is outside the project folder {self.root}: name files relative to the "
                            "project folder, e.g. brief.md or subtasks/T01/rubric.yaml")

    def repo_path(self, rel: str) -> str:
        rel = rel.strip("/")
        if not self.prefix:
            return rel or "."
        return f"{self.prefix}/{rel}" if rel else self.prefix

    def project_path(self, repo_rel: str) -> str:
        if not self.prefix:
            return repo_rel
        return str(PurePosixPath(repo_rel).relative_to(self.prefix))

    def _inside(self, rel: str) -> Path:
        """The working-tree path of `rel`, refused when a symbolic link leads it out of the project."""
        path = self.root / rel
        real = Path(os.path.realpath(path))
        if real != self.root and self.root not in real.parents:
            raise HistoryError(f"'{rel}' leads outside the project folder through a symbolic link: "
                               "replace the link by the file itself")
        return path

    # -- state -----------------------------------------------------------------------------
    def has_commits(self) -> bool:
        try:
            return bool(self.repo.head.commit.hexsha)
        except ValueError:
            return False

    def status(self) -> list[FileStatus]:
        """Uncommitted changes inside the project folder (edits made anywhere, app or not)."""
        return self._status("")

    def _status(self, rel: str) -> list[FileStatus]:
        out = self.repo.git.status("--porcelain=v1", "-z", "--untracked-files=all", "--", self.repo_path(rel))
        result: list[FileStatus] = []
        entries = out.split("\0")
        index = 0
        while index < len(entries):
            entry = entries[index]
            index += 1
            if len(entry) < 4:
                continue
            code, path = entry[:2], entry[3:]
            if code[0] == "R" or code[1] == "R":
                index += 1  # the rename's source path follows
            result.append(FileStatus(self.project_path(path), _change_name(code)))
        return sorted(result, key=lambda s: s.path)

    def changed_files(self, paths: list[str] | None = None) -> list[str]:
        """Files a save of `paths` (all of the project for None) would commit, deleted ones left out."""
        scopes = [self.project_relative(p) for p in paths] if paths is not None else [""]
        return [status.path for status in self.status() if status.change != "deleted"
                and any(not scope or status.path == scope or status.path.startswith(scope + "/") for scope in scopes)]

    def is_dirty(self) -> bool:
        return bool(self.status())

    def warnings(self) -> list[str]:
        """What the user must know about the repository before saving (status, save and the app show it)."""
        notes = []
        detached = detached_head(self.repo)
        if detached:
            notes.append(
                f"HEAD is detached at {detached[:8]} (not on any branch): saves made now belong to no branch "
                "and can be lost when you switch branches; run `git switch -c NEW-BRANCH-NAME` in the "
                "project folder to keep them on a new branch, or `git switch BRANCH` to go back to one"
            )
        found = interruption(self.repo)
        if found:
            notes.append(interruption_message(found))
        return notes

    # -- saving ----------------------------------------------------------------------------
    def commit(self, message: str, paths: list[str] | None = None) -> Revision:
        """Commit the project folder, or only `paths` (relative to it), with `message`.

        Every check runs before anything is staged; staging happens in a private index, so a
        refused or failed commit leaves the repository's index untouched.
        """
        if not message.strip():
            raise HistoryError("a save needs a message saying what changed")
        if paths is None:
            rels = [""]
        else:
            rels = sorted({self.project_relative(p) for p in paths})
            if not rels:
                raise HistoryError("nothing to save: no file was changed")
            for rel in rels:
                self._require_known(rel)
        targets = [self.repo_path(rel) for rel in rels]
        self.require_committable()
        with self._private_index() as env:
            try:
                self.repo.git.add("--all", "--", *targets, env=env)
            except git.GitCommandError as exc:
                raise HistoryError(f"nothing was saved: git could not stage the files ({git_message(exc)})") from None
            if self.has_commits():
                staged = self.repo.git.diff("--cached", "--name-only", "--", *targets, env=env)
            else:
                staged = self.repo.git.ls_files("--", *targets, env=env)
            if not staged.strip():
                raise HistoryError("nothing to save: the project has no changes since the last save")
            try:
                # Naming the paths commits only them, even if other files of an enclosing repository are staged.
                self.repo.git.commit("--quiet", "-m", message, "--", *targets, env=env)
            except git.GitCommandError as exc:
                raise HistoryError(f"git refused the commit ({git_message(exc)}): nothing was saved "
                                   "and the index is unchanged") from None
        return self._revision(self.repo.head.commit)

    def _require_known(self, rel: str) -> None:
        if rel and not os.path.lexists(self.root / rel) and not self.repo.git.ls_files("--", self.repo_path(rel)):
            raise HistoryError(f"no file '{rel}' in the project folder {self.root}, now or in the last save: "
                               "name files relative to the project folder")

    def require_committable(self, new_repository: bool = False) -> None:
        """Refuse, before anything is staged, a save that git could not complete.

        `new_repository`: the repository is being created and will not survive a refusal, so
        the advice names only the user-wide settings.
        """
        found = interruption(self.repo)
        if found:
            raise HistoryError(interruption_message(found))
        problem = identity_problem(self.repo.git)
        if problem:
            folder = None if new_repository else Path(str(self.repo.working_tree_dir))
            raise MissingIdentityError(identity_message(problem, folder))

    @contextmanager
    def _private_index(self) -> Iterator[dict[str, str]]:
        """A copy of the index to stage and commit in; it replaces the real one only on success.

        git's own lock file keeps other git commands off the index meanwhile.
        """
        index = Path(self.repo.git_dir) / "index"
        lock = index.with_name("index.lock")
        try:
            os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            raise HistoryError(f"another git command is using this repository ({lock} exists): wait for it to "
                               "finish, or delete that file if no git command is running") from None
        except OSError as exc:
            raise HistoryError(f"cannot write in the repository's folder {lock.parent} ({exc.strerror}): "
                               "nothing was saved; check its permissions and the disk") from None
        private = index.with_name(f"index.dbstudio-{os.getpid()}")
        try:
            try:
                if index.exists():
                    shutil.copyfile(index, private)
            except OSError as exc:
                raise HistoryError(f"cannot copy the repository's index ({exc.strerror}): nothing was saved; "
                                   "check the disk") from None
            yield {"GIT_INDEX_FILE": str(private)}
            os.replace(private, index)
        finally:
            for leftover in (private, lock):
                leftover.unlink(missing_ok=True)

    # -- reading history -------------------------------------------------------------------
    def history(self, path: str | None = None, max_count: int | None = None) -> list[Revision]:
        """Revisions touching the project folder (or one file in it), newest first."""
        scope = self.repo_path(self.project_relative(path) if path else "")
        if not self.has_commits():
            return []
        kwargs: dict[str, Any] = {"paths": scope}
        if max_count:
            kwargs["max_count"] = max_count
        return [self._revision(commit) for commit in self.repo.iter_commits("HEAD", **kwargs)]

    def _revision(self, commit: git.Commit) -> Revision:
        files = tuple(sorted(
            self.project_path(str(f)) for f in commit.stats.files
            if not self.prefix or str(f).startswith(self.prefix + "/")
        ))
        message = commit.message if isinstance(commit.message, str) else commit.message.decode("utf-8", "replace")
        return Revision(sha=commit.hexsha, short=commit.hexsha[:8], author=str(commit.author.name),
                        date=commit.committed_datetime, message=message.strip(), files=files)

    def resolve(self, rev: str) -> str:
        """The full commit id of one revision (a commit id, HEAD~2, a branch or tag name)."""
        text = rev.strip()
        if ".." in text:
            raise HistoryError(f"'{rev}' is a range of revisions: give one revision, e.g. a commit id from "
                               "`dbstudio history`")
        if not text or text.startswith("-"):
            raise HistoryError(f"unknown revision '{rev}': use a commit id from `dbstudio history`")
        try:
            return str(self.repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{text}^{{commit}}"))
        except git.GitCommandError:
            raise HistoryError(f"unknown revision '{rev}': use a commit id from `dbstudio history`") from None

    def _entry(self, sha: str, rel: str) -> _TreeEntry | None:
        """What `rel` (a clean project path) was at commit `sha`: a file, a folder, or nothing."""
        repo_rel = self.repo_path(rel)
        if repo_rel == ".":
            return _TreeEntry("040000", "tree", self.repo.commit(sha).tree.hexsha)
        for name, entry in self._ls_tree(sha, repo_rel):
            if name == repo_rel:
                return entry
        return None

    def _ls_tree(self, sha: str, repo_rel: str, recursive: bool = False) -> Iterator[tuple[str, _TreeEntry]]:
        args = ["-z", "-r"] if recursive else ["-z"]
        scope = ["--", repo_rel] if repo_rel != "." else []
        out = self.repo.git.ls_tree(*args, sha, *scope)
        for record in out.split("\0"):
            if "\t" in record:
                meta, name = record.split("\t", 1)
                mode, kind, object_sha = meta.split()
                yield name, _TreeEntry(mode, kind, object_sha)

    def _blob(self, sha: str) -> bytes:
        return bytes(self.repo.odb.stream(bytes.fromhex(sha)).read())

    def read_at(self, rev: str, rel: str) -> bytes | None:
        """The bytes of a project file at a revision; None if it was no regular file there."""
        entry = self._entry(self.resolve(rev), self.project_relative(rel))
        if entry is None or entry.kind != "blob" or entry.mode == SYMLINK_MODE:
            return None
        return self._blob(entry.sha)

    def files_at(self, rev: str) -> list[str]:
        sha = self.resolve(rev)
        return [self.project_path(name) for name, entry in self._ls_tree(sha, self.repo_path(""), recursive=True)]

    # -- restoring -------------------------------------------------------------------------
    def restore(self, rel: str, rev: str) -> RestoreResult:
        """Put a file, or every file of a folder, back as it was at `rev` (not committed).

        For a folder: each file it held at `rev` gets those bytes; a file now in it that `rev`
        lacks is removed only if it is saved and unchanged (its bytes stay in history), and is
        otherwise kept and reported. Nothing is written until every check has passed.
        """
        rel = self.project_relative(rel)
        sha = self.resolve(rev)
        short = sha[:8]
        shown = rel or "the project folder"
        entry = self._entry(sha, rel)
        if entry is None:
            raise HistoryError(f"'{shown}' does not exist at revision {short}: "
                               f"`dbstudio history PROJECT --file {rel}` lists the revisions that have it")
        if entry.kind == "blob":
            files = [(rel, entry)]
        elif entry.kind == "tree":
            prefix = self.repo_path(rel)
            files = [(self.project_path(name), item) for name, item in self._ls_tree(sha, prefix, recursive=True)
                     if prefix == "." or name.startswith(prefix + "/")]
        else:
            files = [(rel, entry)]
        unusual = [name for name, item in files if item.kind != "blob" or item.mode == SYMLINK_MODE]
        if unusual:
            raise HistoryError(f"'{shown}' holds symbolic links or submodules at revision {short} "
                               f"({', '.join(unusual)}): restore brings back only regular files, so nothing was "
                               f"changed; use `git checkout {short} -- PATH` for the others if you mean it")
        for name, _ in files:
            self._check_destination(name, short)
        wanted = {name for name, _ in files}
        removed, kept = self._absent_at(rel, wanted) if entry.kind == "tree" else ([], [])
        done = 0
        try:
            for name, item in files:
                write_atomic(self.root / name, self._blob(item.sha))
                _set_executable(self.root / name, item.mode == EXECUTABLE_MODE)
                done += 1
            for name in removed:
                os.unlink(self.root / name)
                self._prune_empty_folders(name, rel)
        except OSError as exc:
            if isinstance(exc, StudioError):
                raise
            raise HistoryError(f"could not restore {exc.filename or shown} ({exc.strerror or exc}): {done} of "
                               f"{len(files)} files were written before that; fix the cause, then restore "
                               "again") from exc
        return RestoreResult(rel, sha, tuple(sorted(wanted)), tuple(removed), tuple(kept))

    def _check_destination(self, rel: str, short: str) -> None:
        """Refuse to write where a link could lead outside the project or a file/folder is in the way."""
        parts = rel.split("/")
        path = self.root
        for depth, part in enumerate(parts, start=1):
            path = path / part
            here = "/".join(parts[:depth])
            if path.is_symlink():
                raise HistoryError(f"'{here}' is a symbolic link: restore does not write through links, which "
                                   "could lead outside the project; nothing was changed (remove the link, then "
                                   "restore again)")
            if not path.exists():
                return
            if depth == len(parts) and path.is_dir():
                raise HistoryError(f"'{here}' is a folder now but was a file at revision {short}: nothing was "
                                   "changed; move the folder away, then restore again")
            if depth < len(parts) and not path.is_dir():
                raise HistoryError(f"'{here}' is a file now but was a folder at revision {short}: nothing was "
                                   "changed; move the file away, then restore again")

    def _absent_at(self, rel: str, wanted: set[str]) -> tuple[list[str], list[str]]:
        """Files now in folder `rel` that the revision lacks: (saved and unchanged, with unsaved work)."""
        unsaved = {status.path for status in self._status(rel)}
        listed = self.repo.git.ls_files("-z", "--", self.repo_path(rel)).split("\0")
        tracked = {self.project_path(p) for p in listed if p}
        present = {p for p in tracked | unsaved if os.path.lexists(self.root / p)}
        removed = sorted(p for p in present - wanted if p in tracked and p not in unsaved)
        kept = sorted(p for p in present - wanted if p in unsaved)
        return removed, kept

    def _prune_empty_folders(self, removed: str, restored: str) -> None:
        stop = self.root / restored
        folder = (self.root / removed).parent
        while folder != stop and stop in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                return  # not empty: it still holds other files
            folder = folder.parent

    def read_version(self, rev: str | None, rel: str) -> bytes | None:
        """A project file's bytes at a revision (None: the working tree); None if absent or outside."""
        try:
            rel = self.project_relative(rel)
            if rev is not None:
                return self.read_at(rev, rel)
            path = self._inside(rel)
        except HistoryError:
            return None  # a path out of the project is treated as absent, never read
        return path.read_bytes() if path.is_file() else None


def _set_executable(path: Path, executable: bool) -> None:
    """Give a restored file the executable bits it had at the revision (readers may run it)."""
    mode = path.stat().st_mode & 0o7777
    wanted = mode | ((mode & 0o444) >> 2) if executable else mode & ~0o111
    if wanted != mode:
        path.chmod(wanted)


def _change_name(code: str) -> str:
    if code in _CONFLICT_CODES:
        return "conflict"
    if code == "??":
        return "untracked"
    return "deleted" if "D" in code else "added" if "A" in code else "modified"
