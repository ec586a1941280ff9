"""The app's review stores through the verdict store's lock across processes: a verdict given in the
app while another process holds the project's verdict lock waits for it, and is refused with what to
do (nothing written) when the lock is held too long."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from studio.gui.judging.review_models import ReviewSession
from studio.judging.queue import ReviewQueue, recorded_or_refused
from studio.judging.verdict_store import LOCK_FILE
from tests.helpers import REPO_ROOT
from tests.judging.projects import RUN_ID
from tests.judging.review_project import review_project

HOLDER = """\
import sys
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
print("released", flush=True)
sys.stdin.read()
"""


def test_a_verdict_given_in_the_app_waits_for_another_processs_lock(qtbot, tmp_path: Path) -> None:
    project = review_project(tmp_path)
    session = ReviewSession(ReviewQueue.of_project(project))
    session.set_rater("Anna Berg")
    session.queue.store.lock_wait_s = 0.5
    decision = session.queue.decisions[0]
    lock = project / LOCK_FILE
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)],
        cwd=REPO_ROOT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline() == "held\n"
        verdict, problem = recorded_or_refused(lambda: session.give(decision, "pass"))
        assert verdict is None and "another process has been storing verdicts of this project" in problem
        assert not session.queue.store.path(RUN_ID, "Anna Berg").exists()
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline() == "released\n"
        verdict, problem = recorded_or_refused(lambda: session.give(decision, "pass"))
        assert problem == "" and verdict is not None
    finally:
        holder.communicate("", timeout=30)
    assert [v.verdict for v in session.queue.store.read(RUN_ID, "Anna Berg")] == ["pass"]
