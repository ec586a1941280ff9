"""A checkpoint written out for people: a new folder, or a gzip-compressed tar.

Both appear all at once: they are built under a hidden temporary name beside `out` and renamed
into place, so a failed or killed export leaves nothing behind. Raises OSError naming the file.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from studio.runs import store_files as files
from studio.runs.store_restore import EXECUTABLE_MODE, FILE_MODE, needed_folders, restore_tree

if TYPE_CHECKING:
    from studio.runs.store import Entry

FOLDER_MODE = 0o755
# gzip's default level 9 is several times slower for a few per cent; workspaces are mostly binary.
COMPRESS_LEVEL = 6


def export_folder(entries: Mapping[str, Entry], out: Path, object_path: Callable[[str], Path]) -> None:
    """Write the checkpoint as the folder `out` (absent or empty: the caller checks)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    building = files.temporary_path(out.parent, out.name)
    os.mkdir(building)
    try:
        restore_tree(entries, building, object_path, files.StatCache(None))
        os.replace(building, out)  # a rename onto an empty folder replaces it
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise


def export_tar(entries: Mapping[str, Entry], out: Path, object_path: Callable[[str], Path]) -> None:
    """Write the checkpoint as `out`, a .tar.gz whose paths are the workspace's (folders listed first)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = files.temporary_path(out.parent, out.name)
    now = int(time.time())
    try:
        with open(temporary, "xb") as raw:
            with tarfile.open(fileobj=raw, mode="w:gz", compresslevel=COMPRESS_LEVEL) as archive:
                for folder in sorted(needed_folders(entries)):
                    archive.addfile(_member(folder, tarfile.DIRTYPE, FOLDER_MODE, now))
                for path, entry in entries.items():
                    if entry.kind == "link":
                        member = _member(path, tarfile.SYMTYPE, 0o777, now)
                        member.linkname = entry.target or ""
                        archive.addfile(member)
                    elif entry.kind == "file":
                        assert entry.sha256 is not None
                        member = _member(path, tarfile.REGTYPE, EXECUTABLE_MODE if entry.executable else FILE_MODE, now)
                        member.size = entry.size
                        with open(object_path(entry.sha256), "rb") as content:
                            archive.addfile(member, content)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(temporary, out)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _member(path: str, kind: bytes, mode: int, mtime: int) -> tarfile.TarInfo:
    member = tarfile.TarInfo(path)
    member.type = kind
    member.mode = mode
    member.mtime = mtime
    return member
