"""Whether a process still runs, for the crash log (a log left by a process that is gone) and the
runs (a run recorded as running that no process executes). Without pydantic or anything else the
crash log must not load before it is enabled."""

from __future__ import annotations

import os


def process_alive(pid: int | None) -> bool:
    """True if `pid` runs (or cannot be told apart from one that does); False for None."""
    if pid is None:
        return False
    if os.name == "nt":
        return True  # os.kill(pid, 0) would end the process on Windows: no cheap check there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it runs
        return True
    return True
