"""The file work under the checkpoint store: walking a workspace, hashing, copying, the stat cache.

Plain functions over paths and descriptors. They raise OSError (with the file's name) or
ValueError; studio/runs/store.py turns those into CheckpointErrors that name the file and
the fix, so this module needs nothing of the store's.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from studio.untrusted.tree import walk as untrusted_walk

TEMPORARY_SUFFIX = ".tmp"
# An unchanged file is recognised by these four numbers; ctime moves on every write and chmod, so
# a file rewritten with the same size and its old mtime put back (cp -p, rsync -t) is still seen.
StatKey = tuple[int, int, int, int]

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
# copy_file_range / sendfile refuse some pairs of file systems or old kernels: copy by hand then.
_NOT_SUPPORTED = {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EBADF}
_STAT_CACHE_FORMAT = 1


def stat_key(info: os.stat_result) -> StatKey:
    return (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


def is_executable(info: os.stat_result) -> bool:
    return bool(info.st_mode & 0o111)


@dataclass(frozen=True)
class Found:
    """One path met while walking a workspace (`path` is posix and relative to the root)."""

    path: str
    kind: Literal["file", "link", "dir"]
    full: str
    info: os.stat_result | None = None  # files only
    target: str | None = None  # links only


def walk(root: str, exclude: Callable[[str], bool] | None) -> Iterator[Found]:
    """Every file, symbolic link and empty folder under `root`, never following a link (the walk of
    studio.untrusted). Sockets, pipes and devices hold no content and are left out."""
    for member in untrusted_walk(root, exclude):
        if member.kind == "file":
            yield Found(member.path, "file", member.full, info=member.info)
        elif member.kind == "link":
            yield Found(member.path, "link", member.full, target=member.target)
        elif member.kind == "dir":
            yield Found(member.path, "dir", member.full)


def open_for_reading(path: str) -> int:
    """A descriptor on the regular file at `path`; OSError if it is gone or is no longer a file."""
    descriptor = os.open(path, _READ_FLAGS)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(errno.EINVAL, "is no longer a regular file", path)
    return descriptor


def hash_descriptor(descriptor: int) -> str:
    """The sha256 (hex) of the whole file behind `descriptor`, read from its start."""
    os.lseek(descriptor, 0, os.SEEK_SET)
    with open(descriptor, "rb", buffering=0, closefd=False) as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def hash_file(path: str) -> str:
    descriptor = open_for_reading(path)
    try:
        return hash_descriptor(descriptor)
    finally:
        os.close(descriptor)


def same_state(before: os.stat_result, after: os.stat_result) -> bool:
    """True if nothing wrote to the file between the two stats."""
    return (before.st_size, before.st_mtime_ns, before.st_ctime_ns) == (
        after.st_size,
        after.st_mtime_ns,
        after.st_ctime_ns,
    )


def temporary_path(folder: Path, stem: str) -> Path:
    """A fresh hidden name in `folder` for a file being written (`.STEM.<token>.tmp`)."""
    return folder / f".{stem[:64]}.{secrets.token_hex(4)}{TEMPORARY_SUFFIX}"


def is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)


def create_exclusive(path: Path, mode: int = 0o666) -> int:
    return os.open(path, _WRITE_FLAGS, mode)


def copy_descriptor(source: int, target: int) -> None:
    """Copy the whole file behind `source` into the empty file behind `target`, in the kernel when it can
    (copy_file_range shares blocks on file systems that can, sendfile otherwise)."""
    size = os.fstat(source).st_size
    for method in (_copy_file_range, _sendfile, _read_write):
        os.lseek(source, 0, os.SEEK_SET)
        os.lseek(target, 0, os.SEEK_SET)
        os.ftruncate(target, 0)
        try:
            method(source, target)
        except OSError as exc:
            if exc.errno not in _NOT_SUPPORTED or method is _read_write:
                raise
            continue
        # Some kernels report success copying 0 bytes between unlike file systems: check, then fall back.
        if os.fstat(target).st_size == size:
            return
    raise OSError(errno.EIO, "the copy came out short", None)


def _copy_file_range(source: int, target: int) -> None:
    copy = getattr(os, "copy_file_range", None)
    if copy is None:
        raise OSError(errno.ENOSYS, "copy_file_range is not available")
    while copy(source, target, 1 << 30):
        pass


def _sendfile(source: int, target: int) -> None:
    while os.sendfile(target, source, None, 1 << 30):
        pass


def _read_write(source: int, target: int) -> None:
    while chunk := os.read(source, 1 << 20):
        view = memoryview(chunk)
        while view:
            view = view[os.write(target, view) :]


def flush_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class StatCache:
    """(size, mtime_ns, ino, ctime_ns) -> sha256 of a workspace's files, so unchanged files are not read.

    Kept as one JSON file. A missing or damaged cache is an empty one: it only ever saves work.
    An entry is trusted only if its file's mtime is older than the cache file itself (git's
    "racily clean" rule): a file rewritten within the clock tick in which it was hashed has the
    same mtime, so it is hashed again rather than trusted.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._old: dict[str, list[int | str]] = {}
        self._new: dict[str, list[int | str]] = {}
        self._written_ns = 0
        if path is None:
            return
        try:
            self._written_ns = os.stat(path).st_mtime_ns
            data = json.loads(path.read_bytes())
            files = data["files"] if data.get("format") == _STAT_CACHE_FORMAT else {}
            self._old = files if isinstance(files, dict) else {}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            self._old = {}

    def lookup(self, path: str, key: StatKey) -> str | None:
        row = self._old.get(path)
        if not isinstance(row, list) or len(row) != 5 or tuple(row[:4]) != key or key[1] >= self._written_ns:
            return None
        digest = row[4]
        return digest if isinstance(digest, str) else None

    def record(self, path: str, key: StatKey, digest: str) -> None:
        self._new[path] = [*key, digest]

    def save(self) -> None:
        """Replace the cache with what this pass recorded (no fsync: a lost cache costs one rehash)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = temporary_path(self.path.parent, self.path.name)
        try:
            temporary.write_bytes(
                json.dumps({"format": _STAT_CACHE_FORMAT, "files": self._new}, separators=(",", ":")).encode("ascii")
            )
            os.replace(temporary, self.path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
