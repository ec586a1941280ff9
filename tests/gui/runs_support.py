"""Runs written by hand for the runs panel's and checkpoint browser's tests: real run records
(run.json, as the runner writes them) and real checkpoints in a real store, without Docker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from studio.runs.record import RunRecord, RunStatus, SubtaskRecord, SubtaskStatus, save_run
from studio.runs.store import CheckpointStore

START = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)

# What a script harness might leave after each of three subtasks: files carried forward, changed,
# removed and added, a binary file and an empty folder.
WORKSPACES: list[dict[str, str | bytes | None]] = [
    {"brief.md": "# Brief\n\nRefinance the fleet.\n", "outputs/report.md": "# Draft report\n\nFirst figures.\n",
     "outputs/notes.txt": "scratch from T01\n", "outputs/chart.bin": bytes(range(256)) * 4},
    {"outputs/report.md": "# Draft report\n\nFirst figures.\n\n## Revision\n\nThe corrected figure is 4,417.\n",
     "outputs/notes.txt": None, "materials/client-correction.md": "Use 4,417.\n"},
    {"outputs/cover.md": "# Cover note\n\nTo: the client\n", "outputs/chart.bin": bytes(range(255, -1, -1)) * 4,
     "outputs/appendix/tables/t1.csv": "year,revenue\n2025,12.4\n2026,13.9\n"},
]


def apply(workspace: Path, changes: dict[str, str | bytes | None]) -> None:
    for rel, content in changes.items():
        target = workspace / rel
        if content is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def make_run(runs_dir: Path, run_id: str = "20261130-180000-a1b2c3", done: int = 3,
             status: RunStatus = RunStatus.COMPLETED, subtasks: tuple[str, ...] = ("T01", "T02", "T03"),
             message: str | None = None, log_lines: int = 5) -> Path:
    """A run folder whose first `done` subtasks have checkpoints of WORKSPACES and logs."""
    run_dir = runs_dir / run_id
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    workspace = run_dir / "workspace"
    workspace.mkdir(exist_ok=True)
    store = CheckpointStore(runs_dir / "store", durable=False)
    records = []
    for position, sid in enumerate(subtasks):
        record = SubtaskRecord(id=sid)
        if position < done:
            apply(workspace, WORKSPACES[position % len(WORKSPACES)])
            log = run_dir / "logs" / f"{sid}.log"
            log.write_text("".join(f"{sid} line {n}\n" for n in range(1, log_lines + 1)), encoding="utf-8")
            record = SubtaskRecord(
                id=sid, status=SubtaskStatus.COMPLETED, checkpoint=store.snapshot(workspace).id, exit_code=0,
                started=START + timedelta(minutes=position), ended=START + timedelta(minutes=position, seconds=42),
                log=f"logs/{sid}.log", tokens={"input": 1200 * (position + 1), "output": 310}, attempts=1,
                command="/bin/sh /studio/harness/h.sh", image_id="sha256:" + "0" * 64)
        records.append(record)
    run = RunRecord(run_id=run_id, project_id="p", project_dir=str(runs_dir.parent), harness="script:/tmp/harness.sh",
                    image="dbstudio/test-busybox:1", created=START, status=status, message=message,
                    subtasks=records)
    save_run(run_dir, run)
    return run_dir


def set_progress(run_dir: Path, done: int, status: RunStatus = RunStatus.RUNNING) -> None:
    """Rewrite a hand-made run's record as the runner would after `done` subtasks (no new checkpoints)."""
    from studio.runs.record import load_run

    record = load_run(run_dir)
    for position, sub in enumerate(record.subtasks):
        if position < done and sub.status != SubtaskStatus.COMPLETED:
            sub.status, sub.exit_code, sub.attempts = SubtaskStatus.COMPLETED, 0, 1
            sub.started, sub.ended = START, START + timedelta(seconds=3)
    record.status = status
    save_run(run_dir, record)
