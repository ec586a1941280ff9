"""The history of a project, of one file or of one subtask or criterion, and what changed in it
between two revisions (or a revision and the working copy with its unsaved edits), field by field
with the object diff of `dbstudio diff` (studio.store.object_diff). The app's Versions panel draws it."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from studio.store import layout
from studio.store.history_errors import HistoryError
from studio.store.object_diff import field_changes, shown, yaml_data

if TYPE_CHECKING:
    from studio.store.history import ProjectRepository  # gitpython: the caller opens the repository

WORKING = None  # the working copy, in place of a revision
Reader = Callable[[str], bytes | None]


# -- the log ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class LogEntry:
    sha: str
    author: str
    date: datetime
    message: str

    @property
    def short(self) -> str:
        return self.sha[:8]


def read_log(repo: ProjectRepository, rels: list[str]) -> list[LogEntry]:
    """Revisions touching the project folder (`rels` empty) or any of `rels`, newest first. One
    `git log` call with no per-commit work: fast on long histories."""
    if not repo.has_commits():
        return []
    scopes = [repo.repo_path(repo.project_relative(rel)) for rel in rels] or [repo.repo_path("")]
    out = repo.repo.git.log("--format=%H%x1f%an%x1f%aI%x1f%s%x1e", "HEAD", "--", *scopes)
    entries = []
    for record in out.split("\x1e"):
        fields = record.strip().split("\x1f")
        if len(fields) == 4:
            entries.append(LogEntry(fields[0], fields[1], datetime.fromisoformat(fields[2]), fields[3]))
    return entries


# -- snapshots of what is compared ------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def _parsed(data: bytes) -> Any:
    """A file's data, parsed once however many revisions hold the same bytes (a rubric unchanged over
    hundreds of commits). Shared between snapshots: nothing here changes the data it is given."""
    return yaml_data(data)


def _yaml(data: bytes | None) -> Any:
    if data is None:
        return None
    parsed = _parsed(data)
    return parsed if parsed is not None else {"(unreadable)": data.decode("utf-8", "replace")}


def file_snapshot(rel: str, data: bytes | None) -> Any:
    if data is None:
        return None
    if rel.endswith((".yaml", ".yml")):
        return _yaml(data)
    return {"text": data.decode("utf-8", "replace")}


def subtask_snapshot(read: Reader, subtask_id: str) -> Any:
    """A subtask with its instruction text and its rubric's criteria (None: not there)."""
    rel = layout.subtask_file(Path(), subtask_id).as_posix()
    data = _yaml(read(rel))
    if not isinstance(data, dict):
        return None
    name = str(data.get("instruction") or "instruction.md")
    instruction = read((PurePosixPath(rel).parent / name).as_posix())
    rubric = _yaml(read(layout.checkpoint_rubric_file(Path(), subtask_id).as_posix()))
    criteria = rubric.get("criteria") if isinstance(rubric, dict) else None
    return {**data, "instruction text": (instruction or b"").decode("utf-8", "replace"),
            "rubric": criteria if isinstance(criteria, list) else []}


def criterion_snapshot(read: Reader, criterion_id: str, files: list[str]) -> Any:
    for rel in files:
        rubric = _yaml(read(rel))
        for item in rubric.get("criteria") or [] if isinstance(rubric, dict) else []:
            if isinstance(item, dict) and item.get("id") == criterion_id:
                return item
    return None


# -- the diff ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class DiffRow:
    field: str
    old: str
    new: str


ABSENT_TEXT = "(absent)"


def diff_rows(old: Any, new: Any) -> list[DiffRow]:
    """Field-by-field changes from `old` to `new`, as the object diff names them (`rubric.T03-C02.weight`);
    a long text gives one row per changed block of lines."""
    rows = []
    for change in field_changes(old, new):
        if isinstance(change.old, str) and isinstance(change.new, str) and ("\n" in change.old or "\n" in change.new):
            rows += _text_rows(change.field, change.old, change.new)
        else:
            rows.append(DiffRow(change.field, shown(change.old), shown(change.new)))
    return rows


def _text_rows(field: str, old: str, new: str) -> list[DiffRow]:
    a, b = old.splitlines(), new.splitlines()
    rows = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            rows.append(DiffRow(f"{field} (line {j1 + 1})", "\n".join(a[i1:i2]) or "—", "\n".join(b[j1:j2]) or "—"))
    return rows


# -- the scope followed -----------------------------------------------------------------------
@dataclass(frozen=True)
class Scope:
    """What the history follows: the project (kind None), a file, or a subtask or criterion."""

    kind: str | None = None  # None, "file", "subtask", "criterion"
    key: str = ""  # the file, or the object id
    files: tuple[str, ...] = ()  # the files whose log is read

    @property
    def label(self) -> str:
        if self.kind is None:
            return "History of the project"
        if self.kind == "file":
            return f"History of {self.key}"
        return f"History of {self.kind} {self.key}"

    def snapshot(self, read: Reader, changed: list[str] | None = None) -> Any:
        if self.kind == "subtask":
            return subtask_snapshot(read, self.key)
        if self.kind == "criterion":
            return criterion_snapshot(read, self.key, list(self.files))
        if self.kind == "file":
            return file_snapshot(self.key, read(self.key))
        return {rel: file_snapshot(rel, read(rel)) for rel in changed or []}


def object_revisions(repo: ProjectRepository, scope: Scope) -> list[tuple[LogEntry, Any, Any]]:
    """(revision, the object before it, the object after it) for each revision where a subtask or
    criterion changed (not merely its file), newest first; None for an object not there."""
    entries = read_log(repo, list(scope.files))
    snapshots: dict[str, Any] = {}  # by commit: in a straight history a parent is the next entry

    def snapshot(sha: str) -> Any:
        if sha not in snapshots:
            snapshots[sha] = scope.snapshot(_tree_reader(repo, sha))
        return snapshots[sha]

    changed = []
    for entry in entries:
        parents = repo.repo.commit(entry.sha).parents
        old = snapshot(parents[0].hexsha) if parents else None
        new = snapshot(entry.sha)
        if old != new:
            changed.append((entry, old, new))
    return changed


def object_log(repo: ProjectRepository, scope: Scope) -> list[LogEntry]:
    """The revisions where a subtask or criterion changed (not merely its file)."""
    return [entry for entry, _, _ in object_revisions(repo, scope)]


def scope_log(repo: ProjectRepository, scope: Scope) -> list[LogEntry]:
    """The revisions of the scope: where its object changed, or that touched its files."""
    if scope.kind in ("subtask", "criterion"):
        return object_log(repo, scope)
    return read_log(repo, list(scope.files))


def _tree_reader(repo: ProjectRepository, sha: str) -> Reader:
    """Reads files of one commit through git's object database (one long-lived git process,
    not one per file: an object's history reads many files at many revisions)."""
    tree = repo.repo.commit(sha).tree

    def read(rel: str) -> bytes | None:
        try:
            item = tree / repo.repo_path(repo.project_relative(rel))
        except (KeyError, HistoryError):
            return None
        if item.type != "blob" or item.mode == 0o120000:  # a symbolic link is no file here
            return None
        return bytes(item.data_stream.read())
    return read


def _reader(repo: ProjectRepository, rev: str | None, overlay: dict[str, bytes | None] | None = None) -> Reader:
    """Reads files at a revision, or (WORKING) the working copy: unsaved edits first, then the disk."""
    if rev is not None:
        return _tree_reader(repo, repo.resolve(rev))

    def read(rel: str) -> bytes | None:
        if overlay is not None and rel in overlay:
            return overlay[rel]
        return repo.read_version(None, rel)
    return read


def compare(repo: ProjectRepository, scope: Scope, old: str, new: str | None,
            overlay: dict[str, bytes | None]) -> list[DiffRow]:
    """The field-by-field diff of the scope from revision `old` to `new` (None: the working copy,
    `overlay` holding the unsaved edits)."""
    changed: list[str] | None = None
    if scope.kind is None:
        names = repo.repo.git.diff("--name-only", old, *([new] if new else []), "--", repo.repo_path(""))
        changed = sorted({repo.project_path(name) for name in names.splitlines() if name}
                         | (set(overlay) if new is None else set()))
    before = scope.snapshot(_reader(repo, old), changed)
    after = scope.snapshot(_reader(repo, new, overlay), changed)
    if scope.kind is not None:
        return diff_rows(before, after)
    rows = []
    for rel in changed or []:  # the project: each changed file's fields, named with the file
        if before[rel] is None or after[rel] is None:
            added = before[rel] is None
            rows.append(DiffRow(rel, ABSENT_TEXT if added else "(file)", "(file added)" if added else "(file removed)"))
            continue
        rows += [DiffRow(f"{rel}: {row.field}", row.old, row.new) for row in diff_rows(before[rel], after[rel])]
    return rows
