"""A full disk under a run, said as such: the folder, the space left there, and how to go on
(instead of an internal error, or a record saying the user stopped the run)."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from studio.runs.errors import RunError

NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
# Below this, a harness that failed is told that the disk may be why.
LOW_SPACE_BYTES = 16 * 1000 * 1000


class DiskFull(RunError):
    """The disk (or the quota) holding the runs folder is full."""


def is_no_space(error: BaseException) -> bool:
    return isinstance(error, OSError) and error.errno in NO_SPACE


def no_space_cause(error: BaseException) -> OSError | None:
    """The full disk behind `error`, if any: itself, or what it was raised from (the checkpoint store
    names the file of a failed write in an error of its own, raised from the OSError)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in NO_SPACE:
            return seen
        seen = seen.__cause__
    return None


def free_bytes(folder: Path) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def megabytes(size: int | None) -> str:
    return "an unknown amount" if size is None else f"{size / 1e6:.1f} MB"


def disk_full(error: OSError, folder: Path, doing: str, then: str) -> DiskFull:
    """The message of a write that found no space: what was being written, where, and what is free."""
    where = f" ({error.filename})" if error.filename else ""
    return DiskFull(
        f"No space left on the disk of {folder} while {doing}{where}: {megabytes(free_bytes(folder))} "
        f"free there. Free some space on it (or put runs elsewhere with --runs-dir DIR), then {then}."
    )


def low_space_note(folder: Path) -> str:
    """' (... a full disk may be why)' when the disk of `folder` is nearly full, else ''."""
    free = free_bytes(folder)
    if free is None or free >= LOW_SPACE_BYTES:
        return ""
    return f" (the disk of {folder} has {megabytes(free)} free: a full disk may be why)"
