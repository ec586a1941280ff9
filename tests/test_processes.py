"""process_alive, shared by the crash log and the runs."""

from __future__ import annotations

import os
import subprocess
import sys

from studio.processes import process_alive


def test_a_running_process_is_alive_and_a_finished_one_is_not() -> None:
    assert process_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not process_alive(child.pid)
    assert not process_alive(None)


def test_another_users_process_counts_as_alive() -> None:
    assert process_alive(1)  # init: signalling it is refused to a user and allowed to root, it runs either way
