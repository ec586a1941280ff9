"""The SIGKILL walk of issue 21 ("Done when", line 2): a project built from the template in the
window, the app killed halfway with SIGKILL once the journal holds the edits, started again, the
edits recovered, the project finished and committed: nothing lost. The two halves are pytest-qt
tests in recovery_walk_steps.py, each run here in its own pytest subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from studio.store.history import ProjectRepository
from studio.store.loader import load_project
from studio.store.workspace import create_project
from studio.validation.findings import Severity
from studio.validation.validate import validate_project
from tests.helpers import SCAFFOLD

ROOT = Path(__file__).resolve().parents[3]
STEPS = Path(__file__).with_name("recovery_walk_steps.py")
HALF_TIMEOUT_S = 600


def steps_command(name: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:randomly",
            f"{STEPS}::{name}"]


def test_killed_halfway_the_app_gives_every_unsaved_edit_back_and_the_commit_has_them_all(tmp_path: Path):
    project = tmp_path / "revenue-audit"
    create_project(project, "revenue-audit", "Revenue audit", template=SCAFFOLD)  # from the template, with its own git
    repo = ProjectRepository(project)
    first_commit = repo.repo.head.commit.hexsha
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "RECOVERY_WALK_PROJECT": str(project), "RECOVERY_WALK_EXPECTED": str(tmp_path / "expected.json"),
           "DBSTUDIO_LOG_DIR": str(tmp_path / "logs"), "XDG_CONFIG_HOME": str(tmp_path / "config")}

    app = subprocess.Popen(steps_command("test_first_half_then_wait_to_be_killed"), cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # A first half that hangs before saying JOURNALED is killed by this watchdog and fails the walk.
    watchdog = threading.Timer(HALF_TIMEOUT_S, app.kill)
    watchdog.start()
    try:
        assert app.stdout is not None
        seen: list[str] = []
        for line in app.stdout:  # blocks until the app says the journal is written (or ends)
            seen.append(line)
            if line.startswith("JOURNALED "):
                break
        said = seen[-1] if seen else ""
        journal = Path(said.split(" ", 1)[1].strip()) if said.startswith("JOURNALED ") else None
        assert journal is not None and journal.is_file(), "".join(seen)[-4000:]
        app.send_signal(signal.SIGKILL)  # no exit handler, no save, no close event
        assert app.wait(timeout=60) == -signal.SIGKILL
    finally:
        watchdog.cancel()
        if app.poll() is None:
            app.kill()
            app.wait(timeout=60)
        app.stdout.close()
    # Killed: nothing was saved (the folder is the first commit), the journal is there, out of git.
    assert repo.status() == [] and repo.repo.head.commit.hexsha == first_commit
    assert journal == project / ".dbstudio" / "journal" / "edits.json" and journal.is_file()

    restarted = subprocess.run(steps_command("test_second_half_recovers_finishes_and_commits"), cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=600)
    assert restarted.returncode == 0, (restarted.stdout + restarted.stderr)[-6000:]

    # Everything is in git: one new commit, nothing left uncommitted, the journal gone.
    head = repo.repo.head.commit
    assert head.parents[0].hexsha == first_commit
    assert head.message.strip() == "Four subtasks: revenue reconciliation and the audit opinion"
    committed = set(repo.repo.git.show("--name-only", "--format=", "HEAD").split())
    assert {"stages.yaml", "subtasks/T01/rubric.yaml", "subtasks/T03/subtask.yaml", "subtasks/T03/instruction.md",
            "subtasks/T03/rubric.yaml", "subtasks/T04/subtask.yaml", "subtasks/T04/instruction.md",
            "subtasks/T04/rubric.yaml"} <= committed
    assert not any(name.startswith(".dbstudio") for name in committed)
    assert repo.status() == [] and not journal.exists()
    loaded = load_project(project)
    built = loaded.project
    assert built.timeline() == ["T01", "T02", "T03", "T04"]
    assert [(c.key, c.weight) for c in built.rubric("T01").criteria] == [("T01-C01", 5), ("T01-C02", 6)]
    assert [c.key for c in built.rubric("T03").criteria] == ["T03-C03"]
    assert built.rubric("T03").criteria[0].text == "The reconciliation ties every revenue stream to the ledger."
    assert [c.key for c in built.rubric("T04").criteria] == ["T04-C01"]
    assert "Tie the revenue" in (project / "subtasks/T03/instruction.md").read_text(encoding="utf-8")
    assert [f.message for f in validate_project(project) if f.severity is Severity.ERROR] == []
