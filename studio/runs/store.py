"""The content-addressed checkpoint store: each distinct file content kept once, a manifest per checkpoint.

Layout under the store's root (docs/runs.md, "Checkpoint store"):

    objects/ab/cdef...    one read-only file per distinct content, named by its sha256
    manifests/<id>.json   one manifest per checkpoint; <id> is the sha256 of the manifest's bytes,
                          which are its canonical JSON (sorted keys, no whitespace)

Both kinds of file are written to a temporary name and renamed, so a killed snapshot leaves
either nothing or a whole file; a manifest is written only after every object it names is in
place (and, when durable, flushed), so a manifest id once returned always reads back whole.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from studio.errors import StudioError
from studio.runs import store_files as files
from studio.runs.store_export import export_folder, export_tar
from studio.runs.store_restore import restore_tree
from studio.store.atomic import AtomicWriteError, write_atomic
from studio.untrusted import Limits, UntrustedFileError, shown
from studio.untrusted.limits import DEFAULT_LIMITS
from studio.untrusted.tree import Member, check_tree

MANIFEST_FORMAT = 1
_HEX64 = re.compile(r"[0-9a-f]{64}")
# Larger texts are shown as binary: difflib's cost grows faster than linearly with their length.
TEXT_DIFF_LIMIT = 8 << 20
_ATTEMPTS = 3


class CheckpointError(StudioError):
    """A checkpoint could not be taken, read, restored or exported; the message names the file."""


@dataclass(frozen=True)
class Entry:
    """One path of a checkpoint."""

    kind: Literal["file", "link", "dir"]  # "dir" only for empty folders: the others are implied by their files
    sha256: str | None  # the content's hash (files only)
    size: int  # bytes (0 for links and folders)
    executable: bool  # the file's mode had an x bit
    target: str | None  # what a symbolic link points to (links only)


@dataclass(frozen=True, eq=False)
class Manifest:
    """A checkpoint: every path of the workspace, sorted. Equal manifests have equal ids."""

    entries: Mapping[str, Entry]
    id: str

    @classmethod
    def build(cls, entries: Mapping[str, Entry]) -> Manifest:
        ordered = {path: entries[path] for path in sorted(entries)}
        return cls(MappingProxyType(ordered), hashlib.sha256(_canonical(ordered)).hexdigest())

    def canonical_json(self) -> bytes:
        return _canonical(self.entries)

    def files(self) -> list[str]:
        return [path for path, entry in self.entries.items() if entry.kind == "file"]

    def total_bytes(self) -> int:
        return sum(entry.size for entry in self.entries.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Manifest) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)


@dataclass(frozen=True)
class CheckpointDiff:
    added: list[str]
    removed: list[str]
    changed: list[str]  # in both, with other content, kind, link target or x bit

    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


class CheckpointStore:
    """The checkpoints of every run in one runs folder (`root` = <runs_dir>/store, made on first use).

    `durable` (the default) flushes each new object and manifest to disk before the checkpoint
    counts as taken, so a power cut cannot lose a checkpoint a run record already names.
    """

    def __init__(self, root: Path, *, durable: bool = True) -> None:
        self.root = Path(root)
        self.durable = durable
        self._objects = self.root / "objects"
        self._manifests = self.root / "manifests"
        self._read: dict[str, Manifest] = {}  # manifests never change once written

    # -- taking a checkpoint ---------------------------------------------------------------------
    def snapshot(
        self,
        folder: Path,
        *,
        exclude: Callable[[str], bool] | None = None,
        stat_cache: Path | None = None,
        limits: Limits = DEFAULT_LIMITS,
        tree: str = "the workspace",
    ) -> Manifest:
        """Store every file under `folder` and return the checkpoint's manifest.

        A file whose (size, mtime_ns, ino, ctime_ns) match `stat_cache` is neither read nor copied;
        others are hashed and, if their content is new to the store, copied into it. The whole tree is
        checked against `limits` before anything is copied (studio.untrusted): a file over the limit
        per file (apparent size or on disk), a total over the limit per tree, or a file hard-linked
        outside `folder` is a CheckpointError naming it, and the store is left as it was.
        """
        folder = Path(folder)
        if not folder.is_dir():
            raise CheckpointError(f"Cannot checkpoint {folder}: it is not a folder")
        cache = files.StatCache(stat_cache)
        entries: dict[str, Entry] = {}
        touched: set[Path] = set()
        with _naming(folder, "checkpoint"):
            found_all = list(files.walk(str(folder), exclude))
            try:
                check_tree(
                    (Member(f.path, f.kind, f.full, f.info) for f in found_all if f.info is not None), limits, tree
                )
            except UntrustedFileError as refused:
                raise CheckpointError(
                    f"Cannot checkpoint {folder}: {refused}; remove it from {tree} "
                    "(or make it smaller) and take the checkpoint again"
                ) from None
            for found in found_all:
                if found.kind == "link":
                    entries[found.path] = Entry("link", None, 0, False, found.target)
                elif found.kind == "dir":
                    entries[found.path] = Entry("dir", None, 0, False, None)
                else:
                    entries[found.path] = self._file_entry(found, cache, touched)
        manifest = Manifest.build(entries)
        self._write_manifest(manifest, touched)
        with _naming(stat_cache or folder, "write the stat cache"):
            cache.save()
        return manifest

    def put_manifest(self, entries: Mapping[str, Entry]) -> Manifest:
        """A checkpoint made of files already in the store (a final package picked from a
        checkpoint, say): CheckpointError when one of them is not."""
        for path, entry in entries.items():
            if entry.kind == "file" and not self.object_path(entry.sha256 or "").is_file():
                raise CheckpointError(
                    f"Cannot record {path}: its content {entry.sha256} is not in the store {self.root}"
                )
        try:
            for path in entries:
                _check_path(path)
            _check_parents(entries)
        except ValueError as exc:
            raise CheckpointError(f"Cannot record this checkpoint: {exc}") from None
        manifest = Manifest.build(entries)
        self._write_manifest(manifest, set())
        return manifest

    def _file_entry(self, found: files.Found, cache: files.StatCache, touched: set[Path]) -> Entry:
        assert found.info is not None
        key = files.stat_key(found.info)
        info = found.info
        digest = cache.lookup(found.path, key)
        if digest is None or not self.object_path(digest).exists():
            digest, info = self._store_file(found, touched)
            key = files.stat_key(info)
        cache.record(found.path, key, digest)
        return Entry("file", digest, info.st_size, files.is_executable(info), None)

    def _store_file(self, found: files.Found, touched: set[Path]) -> tuple[str, os.stat_result]:
        """Hash the file and copy it in if its content is new: (sha256, its stat while read)."""
        for _ in range(_ATTEMPTS):
            descriptor = files.open_for_reading(found.full)
            try:
                before = os.fstat(descriptor)
                digest = files.hash_descriptor(descriptor)
                if files.same_state(before, os.fstat(descriptor)) and self._keep_object(
                    descriptor, digest, before, touched
                ):
                    return digest, before
            finally:
                os.close(descriptor)
        raise CheckpointError(
            f"{found.full} kept changing while it was checkpointed: stop whatever is "
            "writing to the workspace, then take the checkpoint again"
        )

    def _keep_object(self, descriptor: int, digest: str, before: os.stat_result, touched: set[Path]) -> bool:
        """Copy the content in under its hash unless it is there already; False if the file changed meanwhile."""
        target = self.object_path(digest)
        if target.exists():
            return True
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = files.temporary_path(target.parent, target.name)
        try:
            written = files.create_exclusive(temporary, 0o444)
            try:
                files.copy_descriptor(descriptor, written)
                unchanged = files.same_state(before, os.fstat(descriptor))
                if unchanged and self.durable:
                    os.fsync(written)
            finally:
                os.close(written)
            if not unchanged:  # a writer got in between: the copied bytes may not be the ones hashed
                temporary.unlink()
                return False
            os.replace(temporary, target)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        touched.add(target.parent)
        return True

    def _write_manifest(self, manifest: Manifest, touched: set[Path]) -> None:
        path = self._manifest_path(manifest.id)
        if path.exists():
            self._read[manifest.id] = manifest
            return
        with _naming(self.root, "write to the checkpoint store"):
            if self.durable:  # the objects' names must be on disk before a manifest can name them
                for folder in sorted(touched | ({self._objects} if touched else set())):
                    files.flush_folder(folder)
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                write_atomic(path, manifest.canonical_json())
            except AtomicWriteError as exc:
                raise CheckpointError(str(exc)) from exc
        self._read[manifest.id] = manifest

    # -- reading ---------------------------------------------------------------------------------
    def manifest(self, manifest_id: str) -> Manifest:
        """The checkpoint with this id; CheckpointError if the store has no such manifest or it is damaged."""
        known = self._read.get(manifest_id)
        if known is not None:
            return known
        if not _HEX64.fullmatch(manifest_id):
            raise CheckpointError(f"'{manifest_id}' is not a checkpoint id (64 lowercase hex digits)")
        path = self._manifest_path(manifest_id)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CheckpointError(
                f"Checkpoint {manifest_id} is not in the store {self.root}: its manifest "
                f"{path} is missing; check the runs folder (--runs-dir)"
            ) from None
        except OSError as exc:
            raise CheckpointError(f"Cannot read the manifest {path}: {exc.strerror or exc}") from exc
        if hashlib.sha256(data).hexdigest() != manifest_id:
            raise CheckpointError(
                f"The manifest {path} is damaged (its content no longer matches its name): "
                "this checkpoint cannot be read; rerun the subtask that made it"
            )
        try:  # the bytes hash to the id, so they are canonical JSON: entries come sorted, the id is known
            manifest = Manifest(MappingProxyType(_decode(json.loads(data))), manifest_id)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise CheckpointError(
                f"The manifest {path} is not a checkpoint manifest ({exc}): rerun the subtask that made it"
            ) from exc
        self._read[manifest_id] = manifest
        return manifest

    def has(self, manifest_id: str) -> bool:
        return manifest_id in self._read or (
            bool(_HEX64.fullmatch(manifest_id)) and self._manifest_path(manifest_id).is_file()
        )

    def object_path(self, sha256: str) -> Path:
        return self._objects / sha256[:2] / sha256[2:]

    def read_bytes(self, manifest: Manifest, path: str) -> bytes:
        entry = _entry(manifest, path)
        if entry.kind != "file" or entry.sha256 is None:
            what = f"a symbolic link to {entry.target}" if entry.kind == "link" else "an empty folder"
            raise CheckpointError(f"{path} in checkpoint {manifest.id[:12]} is {what}, not a file")
        source = self.object_path(entry.sha256)
        with _naming(source, "read the stored content of " + path + " from"):
            data = source.read_bytes()
        if len(data) != entry.size:
            raise CheckpointError(
                f"The stored content of {path} ({source}) is damaged: it has {len(data)} bytes, "
                f"not {entry.size}; rerun the subtask that made this checkpoint"
            )
        return data

    # -- restoring and exporting -----------------------------------------------------------------
    def restore(self, manifest: Manifest, folder: Path, *, stat_cache: Path | None = None) -> None:
        """Make `folder` exactly the checkpoint: extra paths removed, differing files rewritten, x bits set.

        Files already right are left untouched (with `stat_cache`, not even read); the cache then
        knows every restored file, so the next snapshot reads none of them.
        """
        folder = Path(folder)
        cache = files.StatCache(stat_cache)
        with _naming(folder, "restore a checkpoint into"):
            restore_tree(manifest.entries, folder, self.object_path, cache)
            cache.save()

    def export_folder(self, manifest: Manifest, out: Path) -> None:
        """Write the checkpoint as a new folder `out` (which must not exist, or be empty); all or nothing."""
        out = Path(out)
        if out.is_symlink() or out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise CheckpointError(
                f"Cannot export to {out}: it exists and is not an empty folder; choose a new name or empty it first"
            )
        with _naming(out, "export the checkpoint to"):
            export_folder(manifest.entries, out, self.object_path)

    def export_tar(self, manifest: Manifest, out: Path) -> None:
        """Write the checkpoint as the gzip-compressed tar `out` (paths relative to the workspace); atomic."""
        with _naming(Path(out), "export the checkpoint to"):
            export_tar(manifest.entries, Path(out), self.object_path)

    # -- comparing -------------------------------------------------------------------------------
    def diff(self, a: Manifest, b: Manifest) -> CheckpointDiff:
        before, after = a.entries, b.entries
        return CheckpointDiff(
            added=sorted(after.keys() - before.keys()),
            removed=sorted(before.keys() - after.keys()),
            changed=sorted(path for path in before.keys() & after.keys() if before[path] != after[path]),
        )

    def text_diff(self, a: Manifest, b: Manifest, path: str, context: int = 3) -> str | None:
        """The unified diff of `path` from `a` to `b`; None when either side is binary (or over 8 MiB).

        A side without the path reads as empty; a symbolic link reads as the line "-> TARGET". Names and
        link targets are the agent's: they are shown escaped (studio.untrusted.shown), never raw.
        """
        if path not in a.entries and path not in b.entries:
            raise CheckpointError(f"{path} is in neither checkpoint {a.id[:12]} nor {b.id[:12]}")
        texts = [self._text(manifest, path) for manifest in (a, b)]
        if texts[0] is None or texts[1] is None:
            return None
        return "".join(
            difflib.unified_diff(
                texts[0].splitlines(keepends=True),
                texts[1].splitlines(keepends=True),
                fromfile=f"a/{shown(path)}",
                tofile=f"b/{shown(path)}",
                n=context,
            )
        )

    def _text(self, manifest: Manifest, path: str) -> str | None:
        entry = manifest.entries.get(path)
        if entry is None or entry.kind == "dir":
            return ""
        if entry.kind == "link":
            return f"-> {shown(entry.target or '')}\n"
        if entry.size > TEXT_DIFF_LIMIT:
            return None
        data = self.read_bytes(manifest, path)
        if b"\0" in data:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    # -- sizes -----------------------------------------------------------------------------------
    def unique_bytes(self) -> int:
        """The sizes of the stored contents added up: what the workspaces held once duplicates are dropped."""
        return sum(entry.stat().st_size for entry in self._object_files())

    def disk_bytes(self) -> int:
        """What the store takes on disk, as `du` counts it: objects, manifests and their folders."""
        total = 0
        for top, folders, names in os.walk(self.root):
            for name in [*folders, *names]:
                total += os.lstat(os.path.join(top, name)).st_blocks * 512
        return total

    def _object_files(self) -> Iterator[os.DirEntry[str]]:
        if not self._objects.is_dir():
            return
        with os.scandir(self._objects) as prefixes:
            for prefix in prefixes:
                if len(prefix.name) == 2 and prefix.is_dir(follow_symlinks=False):
                    with os.scandir(prefix.path) as objects:
                        yield from (entry for entry in objects if not files.is_temporary(entry.name))

    def _manifest_path(self, manifest_id: str) -> Path:
        return self._manifests / f"{manifest_id}.json"


def _entry(manifest: Manifest, path: str) -> Entry:
    entry = manifest.entries.get(path)
    if entry is None:
        raise CheckpointError(f"{path} is not in checkpoint {manifest.id[:12]}")
    return entry


@contextmanager
def _naming(subject: Path | str, action: str) -> Iterator[None]:
    """Turn the OSError of a file operation into a CheckpointError naming the file."""
    try:
        yield
    except OSError as exc:
        if isinstance(exc, StudioError):
            raise
        name = exc.filename if exc.filename is not None else subject
        raise CheckpointError(
            f"{name}: {exc.strerror or exc}, while trying to {action} {subject}: check that it "
            "exists and can be read and written, and that the disk has room, then try again"
        ) from exc


# -- the manifest's JSON -------------------------------------------------------------------------
def _canonical(entries: Mapping[str, Entry]) -> bytes:
    # ASCII escapes keep names that are not UTF-8 (surrogate-escaped by os.fsdecode) exact.
    return json.dumps(
        {"format": MANIFEST_FORMAT, "entries": {path: _encode(entry) for path, entry in entries.items()}},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    ).encode("ascii")


def _encode(entry: Entry) -> dict[str, Any]:
    if entry.kind == "file":
        return {"kind": "file", "sha256": entry.sha256, "size": entry.size, "executable": entry.executable}
    if entry.kind == "link":
        return {"kind": "link", "target": entry.target}
    return {"kind": "dir"}


def _decode(data: Any) -> dict[str, Entry]:
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT or not isinstance(data.get("entries"), dict):
        raise ValueError(f"no 'entries' of format {MANIFEST_FORMAT}")
    entries: dict[str, Entry] = {}
    for path, raw in data["entries"].items():
        _check_path(path)
        kind = raw["kind"]
        if kind == "file":
            digest, size, executable = raw["sha256"], raw["size"], raw["executable"]
            if not (
                isinstance(digest, str)
                and _HEX64.fullmatch(digest)
                and type(size) is int
                and size >= 0
                and isinstance(executable, bool)
            ):
                raise ValueError(f"the file entry of {path!r} is malformed")
            entries[path] = Entry("file", digest, size, executable, None)
        elif kind == "link" and isinstance(raw["target"], str) and raw["target"]:
            entries[path] = Entry("link", None, 0, False, raw["target"])
        elif kind == "dir":
            entries[path] = Entry("dir", None, 0, False, None)
        else:
            raise ValueError(f"the entry of {path!r} is malformed")
    _check_parents(entries)
    return entries


def _check_path(path: object) -> None:
    if (
        not isinstance(path, str)
        or not path
        or path.startswith("/")
        or "\0" in path
        or any(part in ("", ".", "..") for part in path.split("/"))
    ):
        raise ValueError(f"{path!r} is not a relative path inside the workspace")


def _check_parents(entries: Mapping[str, Entry]) -> None:
    """No path may lie under a file or a link: restoring it would write through the link."""
    for path in entries:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent in entries:  # a file, a link, or a folder recorded as empty
                raise ValueError(f"{path!r} lies under {parent!r}, which is not a folder with files")
