"""Crash logs: the traceback of an internal error and its context, written to a private file.

Shared by the command line (studio/cli/crash.py) and the app's crash dialog. The log goes to
$DBSTUDIO_LOG_DIR if set, else $XDG_STATE_HOME/dbstudio, else ~/.local/state/dbstudio.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

LOG_DIR_VARIABLE = "DBSTUDIO_LOG_DIR"
KEEP_LOGS = 20  # older crash logs are removed so a crash loop cannot fill the disk


def log_folder() -> Path:
    """Where crash logs go; the environment variable wins (tests and packagers point it elsewhere)."""
    if os.environ.get(LOG_DIR_VARIABLE):
        return Path(os.environ[LOG_DIR_VARIABLE])
    state = os.environ.get("XDG_STATE_HOME")
    if state and Path(state).is_absolute():  # the XDG spec says to ignore a relative value
        return Path(state) / "dbstudio"
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "dbstudio"
    return Path.home() / ".local" / "state" / "dbstudio"


def write_crash_log(command: str, argv: list[str], error: BaseException) -> Path | None:
    """Write the traceback and the context of `error` to a new log file; None if no folder takes it."""
    import platform
    import shlex
    import traceback
    from datetime import UTC, datetime

    from studio import __version__

    now = datetime.now(UTC)
    text = "".join([
        f"dbstudio {__version__} crash report, {now:%Y-%m-%d %H:%M:%S} UTC\n",
        f"command: {shlex.join(['dbstudio', *argv])}\n",
        f"python: {sys.version.split()[0]} on {platform.platform()}\n",
        f"working folder: {os.getcwd()}\n\n",
        *traceback.format_exception(error),
    ])
    name = f"crash-{now:%Y%m%d-%H%M%S}-{os.getpid()}.log"
    for folder in (log_folder(), Path(tempfile.gettempdir()) / "dbstudio"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / name
            # 0600: a traceback can quote paths and values from the user's projects.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as log:
                log.write(text)
        except OSError:
            continue
        _prune(folder)
        return path
    return None


def _prune(folder: Path) -> None:
    logs = sorted(folder.glob("crash-*.log"))
    for old in logs[:-KEEP_LOGS]:
        try:
            old.unlink()
        except OSError:
            pass
