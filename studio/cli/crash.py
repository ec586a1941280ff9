"""What a bug looks like to the user: one short paragraph on stderr and a log file with the traceback.

A crash must never look like findings (exit 1) or spill a traceback on the terminal; the log
goes to $DBSTUDIO_LOG_DIR if set, else $XDG_STATE_HOME/dbstudio, else ~/.local/state/dbstudio.
"""

from __future__ import annotations

import sys

from studio.crashlog import KEEP_LOGS, LOG_DIR_VARIABLE, log_folder, write_crash_log

__all__ = ["KEEP_LOGS", "LOG_DIR_VARIABLE", "log_folder", "report_crash", "write_crash_log"]


def report_crash(command: str, argv: list[str], error: BaseException) -> None:
    """Tell the user a bug happened, in a few lines, and where its traceback was written."""
    log = write_crash_log(command, argv, error)
    message = str(error).strip().splitlines()
    summary = f"{type(error).__name__}: {message[0]}" if message else type(error).__name__
    lines = [
        f"dbstudio {command}: internal error: this is a bug in dbstudio, not a problem with your input.",
        f"  {summary[:300]}",
        f"  The details are in {log}; please attach that file to a bug report." if log is not None
        else "  No crash log could be written (no writable log folder); set DBSTUDIO_LOG_DIR to one.",
    ]
    print("\n".join(lines), file=sys.stderr)
