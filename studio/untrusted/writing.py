"""Writing into an agent's tree (a released material, a generated release, the brief): never through a link.

Each folder on the way is opened from its parent's descriptor with O_NOFOLLOW, so a link the agent
planted where a folder belongs is met, not followed; the file is written under a fresh name in
its folder and renamed over its place, so a link, a hard link or a FIFO standing there is replaced,
never written through. What had to be replaced is returned as a repair, said in words.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from pathlib import Path

from studio.untrusted.names import shown
from studio.untrusted.problems import UntrustedFileError, kind_text

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | _CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | _CLOEXEC
FILE_MODE = 0o644
FOLDER_MODE = 0o755


def write_file(root: Path, rel: str, source: Path, *, tree: str = "the workspace") -> list[str]:
    """Put a copy of `source` (a file of ours) at `rel` under `root` (a folder an agent writes in); the
    repairs made on the way, such as "materials was a symbolic link to /etc: replaced by a folder"."""
    parts = [part for part in rel.split("/") if part not in ("", ".")]
    if not parts or ".." in parts or rel.startswith("/"):
        raise UntrustedFileError(f"{shown(rel)} is not a relative path inside {tree}")
    repairs: list[str] = []
    try:
        folder = os.open(root, _FOLDER_FLAGS)
    except OSError as error:
        raise UntrustedFileError(
            f"{root}: cannot be opened as a folder ({error.strerror}); it must be a real folder, not a link"
        ) from None
    try:
        for depth, part in enumerate(parts[:-1], start=1):
            inner = _enter(folder, part, "/".join(parts[:depth]), repairs, tree)
            os.close(folder)
            folder = inner
        _replace(folder, parts[-1], rel, source, repairs, tree)
    finally:
        os.close(folder)
    return repairs


def _enter(folder: int, name: str, rel: str, repairs: list[str], tree: str) -> int:
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=folder)
    except FileNotFoundError:
        pass
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        repairs.append(f"{_what(folder, name, rel, info, tree)}: replaced by a folder")
        _remove(folder, name, info)
    os.mkdir(name, FOLDER_MODE, dir_fd=folder)
    return os.open(name, _FOLDER_FLAGS, dir_fd=folder)


def _replace(folder: int, name: str, rel: str, source: Path, repairs: list[str], tree: str) -> None:
    temporary = f".{name[:64]}.{secrets.token_hex(4)}.tmp"
    written = os.open(temporary, _NEW_FILE_FLAGS, FILE_MODE, dir_fd=folder)
    try:
        try:
            with open(source, "rb") as reading, open(written, "wb", closefd=False) as out:
                shutil.copyfileobj(reading, out, 1 << 20)
            os.fchmod(written, FILE_MODE)
        finally:
            os.close(written)
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        if info is not None and not stat.S_ISREG(info.st_mode):
            repairs.append(f"{_what(folder, name, rel, info, tree)}: replaced by the released file")
            if stat.S_ISDIR(info.st_mode):
                _remove(folder, name, info)
        os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)  # replaces a link, never follows it
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=folder)
        except OSError:
            pass
        raise


def _what(folder: int, name: str, rel: str, info: os.stat_result, tree: str) -> str:
    if stat.S_ISLNK(info.st_mode):
        return f"{shown(rel)} in {tree} was a symbolic link to {shown(os.readlink(name, dir_fd=folder))}"
    return f"{shown(rel)} in {tree} was {kind_text(info.st_mode)}"


def _remove(folder: int, name: str, info: os.stat_result) -> None:
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=folder)  # the descriptor-based rmtree never follows a link inside
    else:
        os.unlink(name, dir_fd=folder)
