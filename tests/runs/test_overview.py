"""Runs as the app shows them (studio.runs.overview), without a screen: the log tail, the harness
label, the command that resumes a run, the run folders and their record stamps."""

from __future__ import annotations

import sys
from pathlib import Path

from studio.runs.overview import RECORD_FILE, TAIL_BYTES, harness_label, record_stamp, resume_command, run_folders, tail


def test_the_log_tail_reads_only_the_end_of_a_big_log(tmp_path: Path):
    log = tmp_path / "T01.log"
    log.write_text("".join(f"line {n} " + "x" * 200 + "\n" for n in range(5000)), encoding="utf-8")
    text = tail(log)
    lines = text.splitlines()
    assert len(lines) == 200 and lines[-1].startswith("line 4999 ") and lines[0].startswith("line 4800 ")
    assert len(text.encode()) <= TAIL_BYTES
    assert tail(tmp_path / "absent.log") == ""

def test_a_script_harness_shows_its_file_name_and_a_preset_its_name():
    assert harness_label("script:/home/me/agents/run-agent.sh") == "script: run-agent.sh"
    assert harness_label("claude-code") == "claude-code"


def test_a_run_resumes_as_a_process_of_its_own_through_the_cli(tmp_path: Path):
    run_dir = tmp_path / "runs" / "r1"
    assert resume_command(run_dir) == [sys.executable, "-m", "studio.cli.main", "runs", "resume", "r1",
                                       "--runs-dir", str(tmp_path / "runs")]


def test_run_folders_are_those_with_a_record_and_their_stamp_follows_it(tmp_path: Path):
    for name in ("b", "a", "no-record"):
        (tmp_path / name).mkdir()
    for name in ("a", "b"):
        (tmp_path / name / RECORD_FILE).write_text("{}", encoding="utf-8")
    assert run_folders(tmp_path) == [tmp_path / "a", tmp_path / "b"]
    assert run_folders(tmp_path / "absent") == []
    before = record_stamp(tmp_path / "a")
    (tmp_path / "a" / RECORD_FILE).write_text('{"changed": true}', encoding="utf-8")
    assert before is not None and record_stamp(tmp_path / "a") != before
    assert record_stamp(tmp_path / "no-record") is None


def test_reading_runs_does_not_import_the_docker_sdk(tmp_path: Path):
    """The app reads runs on its background thread; importing the Docker SDK (requests, charset_normalizer)
    there while the window runs aborted the process now and then. Reading runs needs no engine."""
    import subprocess

    script = f"""
import sys
from datetime import UTC, datetime
from pathlib import Path
from studio.runs.record import RunRecord, RunStatus, save_run
from studio.runs.overview import read_runs
runs = Path({str(tmp_path / "runs")!r})
save_run(runs / "r1", RunRecord(run_id="r1", project_id="p", project_dir={str(tmp_path)!r}, harness="script:h.sh",
                                image="img:1", created=datetime(2026, 12, 1, tzinfo=UTC), status=RunStatus.RUNNING))
views = read_runs(runs)
assert [v.status for v in views] == ["interrupted"], views  # recorded running, no process: interrupted
print("docker" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
