"""Git history of a project folder: save with a message, list revisions, compare and restore.

A project folder is either the root of its own repository or a folder inside an enclosing one
(the bundled sample lives in this application's repository). Every operation is limited to the
project's folder, so other projects in the same repository are never touched.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import git

from studio.errors import StudioError
from studio.store import layout
from studio.store.atomic import write_atomic
from studio.store.yamlfile import YamlDocument, YamlSyntaxError, plain


class HistoryError(StudioError):
    """A history operation that cannot be done; the message says why and what to do."""


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
    change: str  # modified, added, deleted, untracked


@dataclass
class FieldChange:
    field: str
    old: Any
    new: Any


@dataclass
class ObjectDiff:
    """What changed in one subtask or criterion between two revisions."""

    object_id: str
    kind: str  # "criterion" or "subtask"
    old_file: str | None
    new_file: str | None
    changes: list[FieldChange] = field(default_factory=list)
    text_diff: list[str] = field(default_factory=list)

    @property
    def added(self) -> bool:
        return self.old_file is None and self.new_file is not None

    @property
    def removed(self) -> bool:
        return self.old_file is not None and self.new_file is None

    def render(self) -> str:
        if self.old_file is None and self.new_file is None:
            return f"{self.kind} {self.object_id}: not present in either revision"
        if self.added:
            return f"{self.kind} {self.object_id}: added in {self.new_file}"
        if self.removed:
            return f"{self.kind} {self.object_id}: removed from {self.old_file}"
        lines = [f"{self.kind} {self.object_id} ({self.new_file})"]
        if not self.changes and not self.text_diff:
            lines.append("  no changes")
        for change in self.changes:
            lines.append(f"  {change.field}: {_show(change.old)} -> {_show(change.new)}")
        lines += [f"  {line}" for line in self.text_diff]
        return "\n".join(lines)


def _show(value: Any) -> str:
    return "(absent)" if value is _ABSENT else repr(value)


_ABSENT = object()


class ProjectRepository:
    """The git view of one project folder."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        try:
            self.repo = git.Repo(self.root, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise HistoryError(
                f"{self.root} is not under git version control: create it with `dbstudio new`, "
                "or run `git init` in the project folder"
            ) from None
        work_tree = Path(self.repo.working_tree_dir).resolve()
        self.prefix = self.root.relative_to(work_tree).as_posix()
        if self.prefix == ".":
            self.prefix = ""

    @classmethod
    def init(cls, root: Path) -> "ProjectRepository":
        """Make `root` a repository of its own."""
        git.Repo.init(Path(root), initial_branch="main")
        return cls(root)

    # -- paths -----------------------------------------------------------------------------
    def repo_path(self, rel: str) -> str:
        return str(PurePosixPath(self.prefix) / rel) if self.prefix else rel

    def project_path(self, repo_rel: str) -> str:
        if not self.prefix:
            return repo_rel
        return str(PurePosixPath(repo_rel).relative_to(self.prefix))

    # -- state -----------------------------------------------------------------------------
    def has_commits(self) -> bool:
        try:
            self.repo.head.commit
        except ValueError:
            return False
        return True

    def status(self) -> list[FileStatus]:
        """Uncommitted changes inside the project folder (edits made anywhere, app or not)."""
        scope = self.prefix or "."
        out = self.repo.git.status("--porcelain=v1", "-z", "--untracked-files=all", "--", scope)
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
            change = {"??": "untracked"}.get(code) or ("deleted" if "D" in code else "added" if "A" in code else "modified")
            result.append(FileStatus(self.project_path(path), change))
        return sorted(result, key=lambda s: s.path)

    def is_dirty(self) -> bool:
        return bool(self.status())

    # -- saving ----------------------------------------------------------------------------
    def commit(self, message: str, paths: list[str] | None = None) -> Revision:
        """Commit the project folder, or only `paths` (relative to it), with `message`."""
        if not message.strip():
            raise HistoryError("a save needs a message saying what changed")
        targets = [self.repo_path(p) for p in paths] if paths is not None else [self.prefix or "."]
        work_tree = Path(self.repo.working_tree_dir)
        known = [t for t in targets if (work_tree / t).exists() or self.repo.git.ls_files("--", t)]
        if known:
            self.repo.git.add("--all", "--", *known)
        if self.has_commits():
            staged = self.repo.git.diff("--cached", "--name-only", "--", *targets)
        else:
            staged = self.repo.git.ls_files("--", *targets)
        if not staged.strip():
            raise HistoryError("nothing to save: the project has no changes since the last save")
        # Commit only our paths, even if other files in an enclosing repository are staged.
        self.repo.git.commit("-m", message, "--", *targets)
        return self.history(max_count=1)[0]

    # -- reading history -------------------------------------------------------------------
    def history(self, path: str | None = None, max_count: int | None = None) -> list[Revision]:
        """Revisions touching the project folder (or one file in it), newest first."""
        if not self.has_commits():
            return []
        scope = self.repo_path(path) if path else (self.prefix or ".")
        kwargs: dict[str, Any] = {"paths": scope}
        if max_count:
            kwargs["max_count"] = max_count
        revisions = []
        for commit in self.repo.iter_commits("HEAD", **kwargs):
            files = tuple(sorted(
                self.project_path(f) for f in commit.stats.files
                if not self.prefix or f.startswith(self.prefix + "/")
            ))
            revisions.append(Revision(
                sha=commit.hexsha, short=commit.hexsha[:8], author=str(commit.author.name),
                date=commit.committed_datetime, message=commit.message.strip(), files=files,
            ))
        return revisions

    def resolve(self, rev: str) -> str:
        try:
            return self.repo.commit(rev).hexsha
        except (git.BadName, ValueError, git.GitCommandError):
            raise HistoryError(f"unknown revision '{rev}': use a commit id from `dbstudio history`") from None

    def read_at(self, rev: str, rel: str) -> bytes | None:
        """The bytes of a project file at a revision; None if it did not exist there."""
        commit = self.repo.commit(self.resolve(rev))
        try:
            blob = commit.tree / self.repo_path(rel)
        except KeyError:
            return None
        return blob.data_stream.read()

    def files_at(self, rev: str) -> list[str]:
        sha = self.resolve(rev)
        out = self.repo.git.ls_tree("-r", "--name-only", sha, "--", self.prefix or ".")
        return [self.project_path(p) for p in out.splitlines() if p]

    def restore(self, rel: str, rev: str) -> None:
        """Put a file back as it was at `rev` (not committed; the next save records it)."""
        data = self.read_at(rev, rel)
        if data is None:
            raise HistoryError(f"'{rel}' does not exist at revision {rev[:8]}")
        write_atomic(self.root / rel, data)

    # -- comparing one object ----------------------------------------------------------------
    def diff_object(self, object_id: str, old_rev: str, new_rev: str | None = None) -> ObjectDiff:
        """What changed in one subtask or criterion between two revisions (new: working tree)."""
        old = self._find_object(object_id, old_rev)
        new = self._find_object(object_id, new_rev)
        if old is None and new is None:
            raise HistoryError(f"no subtask or criterion '{object_id}' in either revision")
        kind = (new or old)[0]
        result = ObjectDiff(object_id, kind, old[1] if old else None, new[1] if new else None)
        if old and new:
            result.changes = _field_changes(old[2], new[2])
            if kind == "subtask":
                result.text_diff = list(difflib.unified_diff(
                    old[3].splitlines(), new[3].splitlines(), "instruction (old)", "instruction (new)", lineterm="", n=1
                ))
        return result

    def _read(self, rev: str | None, rel: str) -> bytes | None:
        if rev is None:
            path = self.root / rel
            return path.read_bytes() if path.is_file() else None
        return self.read_at(rev, rel)

    def _rubric_files(self, rev: str | None) -> list[str]:
        if rev is None:
            return [p.relative_to(self.root).as_posix() for p in layout.yaml_files(self.root)]
        return self.files_at(rev)

    def _find_object(self, object_id: str, rev: str | None):
        subtask_rel = f"{layout.SUBTASKS_DIR}/{object_id}/{layout.SUBTASK_FILE}"
        data = _parse(self._read(rev, subtask_rel))
        if isinstance(data, dict):
            instruction = str(data.get("instruction", "instruction.md"))
            text = self._read(rev, f"{layout.SUBTASKS_DIR}/{object_id}/{instruction}") or b""
            return "subtask", subtask_rel, data, text.decode("utf-8", "replace")
        for rel in self._rubric_files(rev):
            if not (rel.endswith("/" + layout.CHECKPOINT_RUBRIC_FILE) or rel == layout.FINAL_RUBRIC_FILE):
                continue
            rubric = _parse(self._read(rev, rel))
            criteria = rubric.get("criteria") if isinstance(rubric, dict) else None
            for item in criteria if isinstance(criteria, list) else []:
                if isinstance(item, dict) and object_id in (item.get("id"), item.get("reuse_of")) and "reuse_of" not in item:
                    return "criterion", rel, item, ""
        return None


def _parse(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return plain(YamlDocument.parse(Path("<rev>"), data.decode("utf-8")).data)
    except (YamlSyntaxError, UnicodeDecodeError):
        return None


def _field_changes(old: Any, new: Any, prefix: str = "") -> list[FieldChange]:
    if isinstance(old, dict) and isinstance(new, dict):
        changes = []
        for key in list(old) + [k for k in new if k not in old]:
            name = f"{prefix}.{key}" if prefix else str(key)
            changes += _field_changes(old.get(key, _ABSENT), new.get(key, _ABSENT), name)
        return changes
    if old != new:
        return [FieldChange(prefix, old, new)]
    return []
