"""`dbstudio runs diff` prints an agent's file names escaped: no newline or terminal escape gets through raw."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from studio.runs.record import RunRecord, SubtaskRecord, SubtaskStatus, save_run
from studio.runs.runner import store_of
from tests.helpers import run_cli


def test_runs_diff_shows_hostile_names_escaped(capsys, tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "20261201-000000-abcd"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    store = store_of(run_dir)
    (workspace / "plain.md").write_text("one\n")
    first = store.snapshot(workspace)
    (workspace / "plain.md").write_text("two\n")
    (workspace / "evil\x1b[2J\x1b]0;pwned\x07\nM fake.md").write_text("added\n")
    os.close(os.open(os.fsencode(workspace) + b"/bytes-\xff.md", os.O_CREAT | os.O_WRONLY, 0o644))
    second = store.snapshot(workspace)
    record = RunRecord(
        run_id=run_dir.name,
        project_id="p",
        project_dir=str(tmp_path),
        harness="script:x",
        image="i",
        created=datetime.now(UTC),
        subtasks=[
            SubtaskRecord(id="T01", status=SubtaskStatus.COMPLETED, checkpoint=first.id),
            SubtaskRecord(id="T02", status=SubtaskStatus.COMPLETED, checkpoint=second.id),
        ],
    )
    run_dir.mkdir(parents=True, exist_ok=True)
    save_run(run_dir, record)
    code, out, err = run_cli(capsys, "runs", "diff", str(run_dir), "T01", "T02", "--stat")
    assert code == 0, err
    assert out.splitlines() == ["A bytes-\\xff.md", "A evil\\x1b[2J\\x1b]0;pwned\\x07\\nM fake.md", "M plain.md"]
    assert "\x1b" not in out and "\x07" not in out
