"""Crash logs: the traceback of an internal error and its context, written to a private file.

Shared by the command line (studio/cli/crash.py) and the app's crash dialog. The log goes to
$DBSTUDIO_LOG_DIR if set, else $XDG_STATE_HOME/dbstudio, else ~/.local/state/dbstudio. A native
crash (a segmentation fault in Qt) gets no dialog, but `enable_native_crash_log` has Python's
faulthandler write the thread stacks into a log in the same folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from studio.processes import process_alive

LOG_DIR_VARIABLE = "DBSTUDIO_LOG_DIR"
KEEP_LOGS = 20  # older crash logs are removed so a crash loop cannot fill the disk
NATIVE_SUFFIX = "-native.log"
_native_log: Any = None  # the open file faulthandler writes to: it must outlive every crash


def log_folder() -> Path:
    """Where crash logs go; the environment variable wins (tests and packagers point it elsewhere)."""
    from studio.user_dirs import user_folder

    return user_folder(LOG_DIR_VARIABLE, "XDG_STATE_HOME", "LOCALAPPDATA", ".local", "state")


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


def _header(command: str) -> str:
    import platform
    from datetime import UTC, datetime

    from studio import __version__

    return (f"dbstudio {__version__} native crash log of process {os.getpid()}, started "
            f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC\ncommand: {command}\n"
            f"python: {sys.version.split()[0]} on {platform.platform()}\n"
            "A native crash (below, by Python's faulthandler) ends the app without a dialog: "
            "send this file with a report of what you did.\n\n")


def enable_native_crash_log(command: str = "dbstudio gui") -> Path | None:
    """Have a native crash (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL) write its Python stacks to
    `crash-...-native.log` in the crash-log folder; None if no folder takes it. The log is removed
    again at a normal exit, as are the crash-free logs of earlier runs that were killed."""
    global _native_log
    import atexit
    import faulthandler
    from datetime import UTC, datetime

    header = _header(command)
    name = f"crash-{datetime.now(UTC):%Y%m%d-%H%M%S}-{os.getpid()}{NATIVE_SUFFIX}"
    for folder in (log_folder(), Path(tempfile.gettempdir()) / "dbstudio"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _remove_crash_free(folder)
            path = folder / name
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            log = os.fdopen(fd, "w", encoding="utf-8")
            log.write(header)
            log.flush()
        except OSError:
            continue
        if _native_log is not None:
            faulthandler.disable()
            _native_log.close()
        _native_log = log
        faulthandler.enable(file=log, all_threads=True)
        atexit.register(_close_native_log, path, len(header.encode("utf-8")))
        _prune(folder)
        return path
    return None


def _close_native_log(path: Path, header_size: int) -> None:
    """At a normal exit: a log with nothing after its header recorded no crash."""
    import faulthandler

    faulthandler.disable()
    if _native_log is not None:
        _native_log.close()
    _remove_if_crash_free(path, header_size)


def _remove_crash_free(folder: Path) -> None:
    """Native logs of earlier runs that ended without a crash (killed, so no exit handler ran)."""
    for path in folder.glob(f"crash-*{NATIVE_SUFFIX}"):
        pid = path.name.removesuffix(NATIVE_SUFFIX).rsplit("-", 1)[-1]
        if pid.isdigit() and int(pid) != os.getpid() and not process_alive(int(pid)):
            _remove_if_crash_free(path, None)


def _remove_if_crash_free(path: Path, header_size: int | None) -> None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        crashed = "Fatal Python error" in text or (header_size is not None and len(text.encode()) > header_size)
        if not crashed:
            path.unlink()
    except OSError:
        pass
