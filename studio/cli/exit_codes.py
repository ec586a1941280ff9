"""The exit codes of every `dbstudio` command, defined once so scripts can rely on them."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    # The input was read and checked, and the check found problems (findings, bad rows, stale files).
    PROBLEMS = 1
    # The input could not be used at all (no such folder, a refused operation, a bad option value).
    # argparse also exits 2 on a usage error, so the two agree.
    UNUSABLE = 2
    # A bug in dbstudio, not in the input. 70 is EX_SOFTWARE of BSD's sysexits.h ("internal
    # software error"), well away from 1 and 2 so a crash can never be read as findings.
    INTERNAL = 70
    # 128 + SIGINT, what a shell reports for a command stopped with Ctrl-C.
    INTERRUPTED = 130
