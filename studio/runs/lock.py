"""One process at a time executes a run: an advisory lock on `<run>/lock`, released by the
kernel when the process dies however it dies, so a killed run is never mistaken for a live one."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from studio.runs.errors import RunError

LOCK_FILE = "lock"


@contextmanager
def holding_run(run_dir: Path, run_id: str) -> Iterator[None]:
    """Hold the run's lock for the duration; RunError when another process holds it."""
    descriptor = os.open(Path(run_dir) / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunError(f"run {run_id} is going in another process: wait for it to end, or stop it with "
                           f"`dbstudio runs cancel {run_id}`") from None
        os.ftruncate(descriptor, 0)
        os.write(descriptor, str(os.getpid()).encode())
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def is_live(run_dir: Path) -> bool:
    """True while some process executes the run."""
    path = Path(run_dir) / LOCK_FILE
    if not path.exists():
        return False
    descriptor = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)
    return False
