"""Making a folder exactly a checkpoint, touching only what differs.

Used by CheckpointStore.restore (a run resumed from its last checkpoint) and by the folder
export. Raises OSError naming the file; the store turns it into a CheckpointError.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from studio.runs import store_files as files

if TYPE_CHECKING:
    from studio.runs.store import Entry

FILE_MODE = 0o644
EXECUTABLE_MODE = 0o755


def restore_tree(entries: Mapping[str, Entry], folder: Path, object_path: Callable[[str], Path],
                 cache: files.StatCache) -> None:
    """Remove what the checkpoint lacks, keep what matches, write the rest (each file atomically)."""
    folder.mkdir(parents=True, exist_ok=True)
    folders = needed_folders(entries)
    kept = _prune(str(folder), entries, folders, cache)
    for path in sorted(folders):  # parents sort before their children
        try:
            os.mkdir(folder / path)
        except FileExistsError:
            pass
    for path, entry in entries.items():
        if path in kept or entry.kind == "dir":
            continue
        target = folder / path
        if entry.kind == "link":
            assert entry.target is not None
            os.symlink(entry.target, target)
        else:
            assert entry.sha256 is not None
            _write_file(target, entry, object_path(entry.sha256))
            cache.record(path, files.stat_key(os.lstat(target)), entry.sha256)


def needed_folders(entries: Mapping[str, Entry]) -> set[str]:
    """Every folder the checkpoint has: the empty ones it lists and the parents of every path."""
    folders = {path for path, entry in entries.items() if entry.kind == "dir"}
    for path in entries:
        while "/" in path:
            path = path.rsplit("/", 1)[0]
            if path in folders:
                break
            folders.add(path)
    return folders


def _prune(root: str, entries: Mapping[str, Entry], folders: set[str], cache: files.StatCache) -> set[str]:
    """Delete every path under `root` the checkpoint does not have as it is; return the paths kept."""
    kept: set[str] = set()
    _make_writable(root)
    stack = [("", root)]
    while stack:
        prefix, folder = stack.pop()
        with os.scandir(folder) as listing:
            children = list(listing)
        for child in children:
            path = prefix + child.name
            wanted = entries.get(path)
            if child.is_symlink():
                if wanted is not None and wanted.kind == "link" and os.readlink(child.path) == wanted.target:
                    kept.add(path)
                else:
                    os.unlink(child.path)
            elif child.is_dir(follow_symlinks=False):
                if path in folders:
                    _make_writable(child.path)
                    stack.append((path + "/", child.path))
                else:
                    remove_folder(child.path)
            elif (child.is_file(follow_symlinks=False) and wanted is not None and wanted.kind == "file"
                  and _holds(child, path, wanted, cache)):
                kept.add(path)
            else:  # a file with other content, or a socket, pipe or device the checkpoint cannot hold
                os.unlink(child.path)
    return kept


def _holds(child: os.DirEntry[str], path: str, wanted: Entry, cache: files.StatCache) -> bool:
    """True if the file has the wanted content (x bit set right if not); read only if the cache misses."""
    info = child.stat(follow_symlinks=False)
    if info.st_size != wanted.size:
        return False
    digest = cache.lookup(path, files.stat_key(info))
    if digest is None:
        try:
            digest = files.hash_file(child.path)
        except PermissionError:
            return False  # unreadable: it is replaced by the stored content
    if digest != wanted.sha256:
        return False
    if files.is_executable(info) != wanted.executable:
        mode = info.st_mode & 0o7777
        os.chmod(child.path, mode | 0o111 if wanted.executable else mode & ~0o111)
        info = os.lstat(child.path)
    cache.record(path, files.stat_key(info), digest)
    return True


def _write_file(target: Path, entry: Entry, source: Path) -> None:
    temporary = files.temporary_path(target.parent, target.name)
    reading = files.open_for_reading(str(source))
    try:
        if os.fstat(reading).st_size != entry.size:
            raise OSError(errno.EIO, f"the stored content of {target.name} is damaged (wrong size)", str(source))
        writing = files.create_exclusive(temporary)
        try:
            files.copy_descriptor(reading, writing)
            os.fchmod(writing, EXECUTABLE_MODE if entry.executable else FILE_MODE)
        finally:
            os.close(writing)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    finally:
        os.close(reading)


def _make_writable(folder: str) -> None:
    """A folder the agent made read-only must still take the checkpoint's files."""
    mode = os.lstat(folder).st_mode & 0o7777
    if mode & 0o700 != 0o700:
        os.chmod(folder, mode | 0o700)


def remove_folder(folder: str) -> None:
    try:
        shutil.rmtree(folder)
    except PermissionError:
        # read-only or unlistable folders inside (an agent's chmod): open them up, then remove
        _make_writable(folder)
        for top, subfolders, _names in os.walk(folder):
            for name in subfolders:
                _make_writable(os.path.join(top, name))
        shutil.rmtree(folder)
