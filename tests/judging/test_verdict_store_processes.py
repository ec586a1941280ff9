"""The verdict store across processes: two processes storing the same rater's verdicts at once through
the real `dbstudio verdicts give` lose none of them, and a write waits for the lock another process
holds (refusing, with what to do, when it is held too long)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studio.judging.decisions import current_versions
from studio.judging.errors import JudgingError
from studio.judging.verdict_store import LOCK_FILE, VerdictStore
from studio.judging.verdicts import Verdict
from tests.helpers import REPO_ROOT, copy_blank, replace_in, write
from tests.judging.projects import RUN_ID, criterion_id, load, rubric_yaml
from tests.judging.review_project import JUDGE, make_review_run

CRITERIA = 60
# One process giving verdicts one `dbstudio verdicts give` after another (each a full CLI call: load the
# project, read the store, store the verdict), started at the same moment as the other.
GIVER = """\
import sys, time
from studio.cli.main import main
project, rater, first, last, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
while time.time() < start:
    time.sleep(0.001)
for n in range(first, last + 1):
    code = main(["verdicts", "give", project, "{run}", "T01", f"T01-C{{n:03d}}", "pass", "--rater", rater])
    if code != 0:
        sys.exit(code)
"""
# Holds the project's verdict lock until its standard input closes.
HOLDER = """\
import sys
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


def judged_project(tmp_path: Path) -> Path:
    root = copy_blank(tmp_path / "project")
    write(root, "subtasks/T01/rubric.yaml", rubric_yaml(CRITERIA))
    replace_in(root, "final/rubric.yaml", "reuse_of: T01-C01\n", "reuse_of: T01-C001\n")
    make_review_run(root, tmp_path)
    versions = current_versions(load(root).project)
    VerdictStore(root).put(
        RUN_ID,
        [
            Verdict(
                criterion=criterion_id(n),
                scope="T01",
                verdict="fail",
                rater=JUDGE,
                time=datetime(2026, 11, 30, 20, 0, tzinfo=UTC),
                criterion_version=versions[("T01", criterion_id(n))],
            )
            for n in range(1, CRITERIA + 1)
        ],
    )
    return root


def python(*args: str, **options: object) -> subprocess.Popen[str]:
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env=environment,
        text=True,  # type: ignore[call-overload]
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **options,
    )


def test_two_processes_giving_the_same_raters_verdicts_at_once_lose_none(tmp_path: Path) -> None:
    import time

    project = judged_project(tmp_path)
    start = f"{time.time() + 3:.3f}"  # both load Python and dbstudio first, then go together
    script = GIVER.format(run=RUN_ID)
    halves = [(1, CRITERIA // 2), (CRITERIA // 2 + 1, CRITERIA)]
    givers = [python("-c", script, str(project), "Anna Berg", str(first), str(last), start) for first, last in halves]
    for giver in givers:
        out, err = giver.communicate(timeout=300)
        assert giver.returncode == 0, err
        assert err.count("stored in") == CRITERIA // 2
    stored = VerdictStore(project).read(RUN_ID, "Anna Berg")
    assert sorted(v.criterion for v in stored) == [criterion_id(n) for n in range(1, CRITERIA + 1)]


def test_a_write_waits_for_the_lock_another_process_holds(tmp_path: Path) -> None:
    project = judged_project(tmp_path)
    store = VerdictStore(project)
    store.lock_wait_s = 0.5
    lock = project / LOCK_FILE
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = python("-c", HOLDER, str(lock), stdin=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        before = store.path(RUN_ID, JUDGE).read_bytes()
        given = store.read(RUN_ID, JUDGE)[0].model_copy(update={"verdict": "pass"})
        with pytest.raises(
            JudgingError,
            match="another process has been storing verdicts of this project for more "
            r"than 0.5 s .*nothing was stored; let it finish and try again",
        ):
            store.put(RUN_ID, [given])
        assert store.path(RUN_ID, JUDGE).read_bytes() == before
    finally:
        holder.communicate("", timeout=30)
    store.put(RUN_ID, [given])
    assert store.read(RUN_ID, JUDGE)[0].verdict == "pass"
    assert (lock.parent / ".gitignore").read_text() == "*\n"  # the lock never enters the project's history
