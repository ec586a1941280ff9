"""Atomic file replacement: a reader sees the old bytes or the new bytes, never a mix.

The new bytes go to a temporary file beside the target (`.NAME.XXXXXXXX.tmp`, hidden and
matched by the project's `.*.tmp` ignore rule), are flushed, and replace the target by a
rename; the folder is then flushed so the rename itself survives a crash.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from pathlib import Path

from studio.errors import StudioError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows, where an open file cannot be deleted anyway
    fcntl = None  # type: ignore[assignment]

TEMPORARY_SUFFIX = ".tmp"
# Longer names get a short temporary name: NAME_MAX is 255 bytes on common file systems.
_LONGEST_PLAIN_NAME = 200
_TOKEN_LENGTH = 8
# mkstemp's alphabet, so temporaries left by earlier versions are recognised too.
_TOKEN_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


class AtomicWriteError(StudioError, OSError):
    """A file could not be written safely; the message says why and what to do."""


class NotDurableError(AtomicWriteError):
    """The new bytes replaced the file, but the folder could not be flushed to disk."""


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new file.

    A new file gets the mode the umask gives any new file; an existing file keeps its mode.
    A symbolic link is written through (its target changes, the link stays). Temporaries left
    by an earlier write of the same file that was killed are removed first.
    """
    target = _real_target(Path(path))
    folder = target.parent
    _remove_abandoned_temporaries(target)
    descriptor, temporary = _create_temporary(target)
    try:
        try:
            with open(descriptor, "wb", closefd=False) as handle:
                handle.write(data)
            mode = _existing_mode(target)
            if mode is not None:
                os.chmod(descriptor, mode)
            os.fsync(descriptor)
            # Rename while still holding the temporary's lock, so no cleaner can take it.
            os.replace(temporary, target)
        finally:
            os.close(descriptor)
    except BaseException:
        _unlink_quietly(temporary)
        raise
    _flush_folder(folder, target)


def temporary_prefix(name: str) -> str:
    """The start of every temporary name used while writing the file called `name`."""
    if len(os.fsencode(name)) <= _LONGEST_PLAIN_NAME:
        return f".{name}."
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:12]
    return f".{name[:32]}~{digest}."


def _real_target(path: Path) -> Path:
    if not path.is_symlink():
        path.parent.mkdir(parents=True, exist_ok=True)
        return path
    # Write the file the link points to, as `open(path, "w")` would, and keep the link.
    resolved = Path(os.path.realpath(path))
    if resolved.is_symlink():
        raise AtomicWriteError(f"{path} is a symbolic link that loops back on itself: fix or remove the link")
    return resolved


def _existing_mode(target: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return None


def _create_temporary(target: Path) -> tuple[int, Path]:
    prefix = temporary_prefix(target.name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = target.parent / f"{prefix}{secrets.token_hex(_TOKEN_LENGTH // 2)}{TEMPORARY_SUFFIX}"
        try:
            # 0o666: the kernel applies the umask (and default ACLs) exactly as for any new file.
            descriptor = os.open(temporary, flags, 0o666)
        except FileExistsError:
            continue
        if _lock(descriptor) and _same_file(descriptor, temporary):
            return descriptor, temporary
        # A cleaner took this fresh file for an abandoned one between creation and lock.
        os.close(descriptor)
    raise AtomicWriteError(f"could not create a temporary file beside {target}: remove the stray "
                           f"'{prefix}*{TEMPORARY_SUFFIX}' files in {target.parent}")


def _lock(descriptor: int) -> bool:
    """Mark a temporary as in use; the lock dies with its process, so a killed write's does too."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return True  # a file system without locks: write anyway, cleaners will then skip it
    return True


def _same_file(descriptor: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    opened = os.fstat(descriptor)
    return (on_disk.st_dev, on_disk.st_ino) == (opened.st_dev, opened.st_ino)


def _remove_abandoned_temporaries(target: Path) -> None:
    """Delete temporaries of `target` whose writer died (a killed save); never a live one."""
    prefix = temporary_prefix(target.name)
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(TEMPORARY_SUFFIX)):
            continue
        token = name[len(prefix):-len(TEMPORARY_SUFFIX)]
        if len(token) != _TOKEN_LENGTH or not set(token) <= _TOKEN_CHARACTERS:
            continue  # another file's temporary, e.g. of `NAME.more` when writing `NAME`
        if entry.is_file(follow_symlinks=False):
            _remove_if_abandoned(Path(entry.path))


def _remove_if_abandoned(temporary: Path) -> None:
    if fcntl is None:
        _unlink_quietly(temporary)  # fails while its writer still has it open
        return
    try:
        descriptor = os.open(temporary, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # a live writer holds it (or locks are unsupported: leave it alone)
        if _same_file(descriptor, temporary):
            _unlink_quietly(temporary)
    finally:
        os.close(descriptor)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _flush_folder(folder: Path, target: Path) -> None:
    # The rename is durable only once the folder's entry is flushed. Windows cannot open a
    # folder for flushing; everywhere else a failure means the new version may be lost.
    if os.name == "nt":  # pragma: no cover
        return
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except OSError as exc:
        raise NotDurableError(
            f"{target} was written, but its folder could not be flushed to disk ({exc.strerror or exc}): "
            "the new version may not be on disk and could be lost in a crash; check the disk, then save again"
        ) from exc


class ExportError(StudioError):
    """An export (a chart, a table, a report) could not be written: a folder that is not
    writable, a full disk."""


def write_export(path: Path, data: bytes) -> Path:
    """Write an exported file atomically; ExportError naming the file and the fix if it cannot be."""
    try:
        write_atomic(path, data)
    except (AtomicWriteError, OSError) as exc:
        raise ExportError(f"{path}: cannot write it ({getattr(exc, 'strerror', None) or exc}): "
                          "pick another folder or file name") from None
    return Path(path)
