"""Runs of a 3-subtask project through real containers: checkpoints, what the container sees,
time limits, generated releases, and resume after the CLI, the container or the engine dies."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import docker
import pytest

from studio.runs.confinement import DEADLINE_CHECK_SECONDS, DEADLINE_GRACE_SECONDS
from studio.runs.errors import RunError
from studio.runs.record import RunSettings, RunStatus, SubtaskStatus, load_run
from studio.runs.runner import create_run, execute_run, store_of
from tests.runs.conftest import TEST_IMAGE
from tests.runs.harnesses import listed_hashes, write_harness
from tests.runs.private_engine import dockerd
from tests.runs.projects import SECRET_REFERENCE, sha256_of, three_subtask_project

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return three_subtask_project(tmp_path / "proj")


def _files(run_dir: Path, subtask: str) -> dict[str, bytes]:
    record = load_run(run_dir)
    store = store_of(run_dir)
    manifest = store.manifest(record.subtask(subtask).checkpoint or "")
    return {path: store.read_bytes(manifest, path) for path in manifest.files()}


def _run(project: Path, harness: Path, image: str, runs: Path, **settings: object) -> Path:
    run_dir = create_run(project, f"script:{harness}", image, RunSettings(**settings), runs)  # type: ignore[arg-type]
    execute_run(run_dir)
    return run_dir


def test_three_subtasks_give_three_checkpoints_with_files_carried_forward(project, tmp_path, test_image):
    harness = write_harness(tmp_path / "agent.sh", listing=False)
    run_dir = _run(project, harness, test_image, tmp_path / "runs")
    record = load_run(run_dir)
    assert record.status == RunStatus.COMPLETED
    assert [s.status for s in record.subtasks] == [SubtaskStatus.COMPLETED] * 3
    assert record.project_commit and not record.project_dirty

    t01, t02, t03 = (_files(run_dir, sid) for sid in ("T01", "T02", "T03"))
    source = (project / "materials/source-notes.md").read_bytes()
    assert t01["outputs/report.md"].startswith(b"# Draft report\n\nThe objective is stated here.\n" + source)
    assert t01["outputs/notes.txt"] == b"scratch from T01\n"
    assert t01["brief.md"] == (project / "brief.md").read_bytes()
    # T02 worked on T01's own file, which was carried forward, and removed its scratch file.
    assert t02["outputs/report.md"].startswith(t01["outputs/report.md"])
    assert b"## Revision" in t02["outputs/report.md"]
    assert "outputs/notes.txt" not in t02
    # T03 sees T02's report untouched, and the harness's session persisted in its own folder.
    assert t03["outputs/report.md"] == t02["outputs/report.md"]
    assert t03["outputs/cover.md"].endswith(b"Sessions so far:\nsession T01\nsession T02\nsession T03\n")
    assert not any("session.txt" in path for path in t03)  # the state folder stays out of checkpoints
    # Materials appear when released, not before.
    assert "materials/client-correction.md" not in t01 and "materials/client-correction.md" in t02
    assert "materials/cover-template.md" not in t02 and "materials/cover-template.md" in t03
    # The final package holds the final deliverable from the last checkpoint.
    store = store_of(run_dir)
    final = store.manifest(record.final or "")
    assert store.read_bytes(final, "final/report.md") == t03["outputs/report.md"]
    assert record.final_missing == []
    assert record.subtasks[0].command and "agent.sh" in record.subtasks[0].command
    assert all(s.exit_code == 0 and s.image_id == record.image_id for s in record.subtasks)


def _forbidden(project: Path) -> dict[str, set[str]]:
    """Per subtask, the hashes that must not be inside its container: every evaluator file and
    rubric, and every material released later."""
    evaluator = {sha256_of(p) for p in (project / "evaluator").rglob("*") if p.is_file()}
    evaluator |= {sha256_of(p) for p in project.rglob("rubric.yaml")}
    later = {"T01": ["client-correction.md", "cover-template.md"], "T02": ["cover-template.md"], "T03": []}
    return {
        sid: evaluator | {sha256_of(project / "materials" / name) for name in names} for sid, names in later.items()
    }


def test_no_evaluator_reference_or_later_material_is_ever_inside_the_container(project, tmp_path, test_image):
    harness = write_harness(tmp_path / "agent.sh")
    run_dir = _run(project, harness, test_image, tmp_path / "runs")
    assert hashlib.sha256(SECRET_REFERENCE.encode()).hexdigest() in _forbidden(project)["T01"]
    for sid, forbidden in _forbidden(project).items():
        seen = listed_hashes((run_dir / "logs" / f"{sid}.log").read_text(encoding="utf-8"))
        assert len(seen) > 100  # the image's own files are listed too: the listing is whole
        assert "/workspace/brief.md" in seen
        assert not set(seen.values()) & forbidden, sid
        assert seen[f"/studio/task/{sid}/instruction.md"] == sha256_of(project / f"subtasks/{sid}/instruction.md")
    # What was released is there, by content: the check above can see a material.
    t02 = listed_hashes((run_dir / "logs" / "T02.log").read_text(encoding="utf-8"))
    assert sha256_of(project / "materials/client-correction.md") in t02.values()


def test_a_subtask_past_its_time_limit_is_killed_and_its_workspace_kept(project, tmp_path, test_image):
    # T03's 30 minutes scaled to 3 s; it writes a file, then sleeps far longer.
    harness = write_harness(tmp_path / "agent.sh", listing=False, t03="echo started > outputs/partial.txt; sleep 120")
    started = time.monotonic()
    run_dir = _run(project, harness, test_image, tmp_path / "runs", time_limit_scale=3 / 1800)
    assert time.monotonic() - started < 100  # killed, not waited for
    record = load_run(run_dir)
    t03 = record.subtask("T03")
    assert t03.status == SubtaskStatus.TIMED_OUT and t03.timed_out
    assert t03.time_limit_s == pytest.approx(3.0)
    assert _files(run_dir, "T03")["outputs/partial.txt"] == b"started\n"
    assert record.status == RunStatus.COMPLETED


def test_a_generated_release_is_written_from_the_agents_own_file(project, tmp_path, test_image):
    harness = write_harness(tmp_path / "agent.sh", listing=False)
    run_dir = _run(project, harness, test_image, tmp_path / "runs")
    t01, t02 = _files(run_dir, "T01"), _files(run_dir, "T02")
    # The same script on the host, on T01's report as the container saw it.
    report = tmp_path / "report.md"
    report.write_bytes(t01["outputs/report.md"])
    expected = tmp_path / "expected.md"
    subprocess.run(
        [sys.executable, str(project / "scripts/feedback_on_report.py"), str(report), str(expected)], check=True
    )
    assert t02["materials/M03.md"] == expected.read_bytes()
    assert b"objective" not in expected.read_bytes()  # T01's report states it: no question about it
    assert "materials/M03.md" not in t01
    record = load_run(run_dir)
    assert record.subtask("T02").generated == {"M03": hashlib.sha256(expected.read_bytes()).hexdigest()}
    assert b"Questions answered:\n" + expected.read_bytes() in t02["outputs/report.md"]


def test_a_failing_generated_release_stops_the_run_with_a_clear_message(project, tmp_path, test_image):
    (project / "scripts/feedback_on_report.py").write_text(
        "import sys\nsys.exit('no report to read')\n", encoding="utf-8"
    )
    harness = write_harness(tmp_path / "agent.sh", listing=False)
    run_dir = create_run(project, f"script:{harness}", test_image, RunSettings(), tmp_path / "runs")
    with pytest.raises(RunError) as caught:
        execute_run(run_dir)
    message = str(caught.value)
    assert "M03" in message and "scripts/feedback_on_report.py" in message and "before T02" in message
    assert "no report to read" in message
    record = load_run(run_dir)
    assert record.status == RunStatus.FAILED and record.subtask("T01").done and not record.subtask("T02").done


def test_a_harness_exiting_non_zero_fails_the_subtask_and_says_how_to_go_on(project, tmp_path, test_image):
    harness = write_harness(tmp_path / "agent.sh", listing=False, t02="echo cannot go on >&2; exit 3")
    run_dir = create_run(project, f"script:{harness}", test_image, RunSettings(), tmp_path / "runs")
    with pytest.raises(RunError, match="exited with code 3 in T02"):
        execute_run(run_dir)
    record = load_run(run_dir)
    assert record.subtask("T02").status == SubtaskStatus.FAILED and record.subtask("T02").checkpoint is None
    assert "runs resume" in (record.message or "")
    assert "cannot go on" in (run_dir / "logs/T02.log").read_text(encoding="utf-8")


# -- resume ------------------------------------------------------------------------------------


def _wait_for(condition, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.2)


def _subtask_running(engine, run_dir: Path, sid: str) -> bool:
    try:
        status = load_run(run_dir).subtask(sid).status
    except (RunError, OSError):
        return False
    return status == SubtaskStatus.RUNNING and engine.count_labelled(_agent(run_dir, sid)) == 1


def _agent(run_dir: Path, sid: str) -> dict[str, str]:
    """The labels of the agent's container of one subtask (not a generated release's)."""
    return {"dbstudio.run": run_dir.name, "dbstudio.subtask": sid, "dbstudio.role": "agent"}


def _start_cli_run(
    project: Path, harness: Path, image: str, runs: Path, *options: str
) -> tuple[subprocess.Popen, Path]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "studio.cli.main",
            "run",
            str(project),
            "--harness",
            f"script:{harness}",
            "--image",
            image,
            "--runs-dir",
            str(runs),
            *options,
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    assert first.startswith("run "), first
    return process, runs / first.split()[1]


def _snapshot_of_done(run_dir: Path) -> dict[str, tuple[str, dict[str, bytes]]]:
    record = load_run(run_dir)
    return {s.id: (s.checkpoint or "", _files(run_dir, s.id)) for s in record.subtasks if s.done}


def _finish_with_a_fixed_harness(run_dir: Path, harness: Path) -> None:
    # The run keeps its own copy of the script: the slow T02 is replaced by a quick one.
    kept = run_dir / "harness" / harness.name
    write_harness(kept, listing=False)
    record = execute_run(run_dir)
    assert record.status == RunStatus.COMPLETED


def test_resume_after_the_cli_is_killed_mid_subtask(project, tmp_path, test_image, docker_engine):
    harness = write_harness(tmp_path / "agent.sh", listing=False, t02="sleep 300")
    process, run_dir = _start_cli_run(project, harness, test_image, tmp_path / "runs")
    _wait_for(lambda: _subtask_running(docker_engine, run_dir, "T02"), "T02 to start")
    before = _snapshot_of_done(run_dir)
    assert list(before) == ["T01"]
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    # Its container outlived it; resuming stops it before restoring the workspace.
    assert docker_engine.count_labelled({"dbstudio.run": run_dir.name}) == 1
    _finish_with_a_fixed_harness(run_dir, harness)
    assert docker_engine.count_labelled({"dbstudio.run": run_dir.name}) == 0
    after = _snapshot_of_done(run_dir)
    assert after["T01"] == before["T01"]
    record = load_run(run_dir)
    assert record.subtask("T01").attempts == 1 and record.subtask("T02").attempts == 2


def test_a_killed_cli_leaves_no_container_running_past_the_time_limit(project, tmp_path, test_image, docker_engine):
    # T02's 240 minutes scaled to 8 s; its harness would sleep for 300 s, and nobody is left to stop it.
    harness = write_harness(tmp_path / "agent.sh", listing=False, t02="sleep 300")
    process, run_dir = _start_cli_run(project, harness, test_image, tmp_path / "runs", "--time-scale", str(8 / 14400))
    client = docker.from_env()
    labels = [f"{key}={value}" for key, value in _agent(run_dir, "T02").items()]

    def running() -> bool:
        return bool(client.containers.list(filters={"label": labels, "status": "running"}, sparse=True))

    try:
        _wait_for(running, "T02 to start")
        started = time.monotonic()
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        _wait_for(lambda: not running(), "the engine to stop T02's container", seconds=60)
        stopped_after = time.monotonic() - started
        # the limit, the engine's grace and one check interval, and some slack for a busy machine
        assert stopped_after < 8 + DEADLINE_GRACE_SECONDS + DEADLINE_CHECK_SECONDS + 10
        left = client.containers.list(all=True, filters={"label": labels}, sparse=True)
        assert [c.attrs["State"] for c in left] in ([], ["exited"])
    finally:
        client.close()
        process.kill()
        process.wait()
        docker_engine.kill_labelled({"dbstudio.run": run_dir.name})  # nothing left behind if it failed
    _finish_with_a_fixed_harness(run_dir, harness)
    assert docker_engine.count_labelled({"dbstudio.run": run_dir.name}) == 0


def test_resume_after_the_container_is_killed(project, tmp_path, test_image, docker_engine):
    harness = write_harness(tmp_path / "agent.sh", listing=False, t02="sleep 300")
    process, run_dir = _start_cli_run(project, harness, test_image, tmp_path / "runs")
    _wait_for(lambda: _subtask_running(docker_engine, run_dir, "T02"), "T02 to start")
    before = _snapshot_of_done(run_dir)
    docker_engine.kill_labelled(_agent(run_dir, "T02"))
    output, _ = process.communicate(timeout=120)
    assert process.returncode != 0
    assert "runs resume" in output
    assert load_run(run_dir).subtask("T02").checkpoint is None
    _finish_with_a_fixed_harness(run_dir, harness)
    assert _snapshot_of_done(run_dir)["T01"] == before["T01"]


def test_resume_after_the_docker_engine_restarts(project, tmp_path, private_engine, monkeypatch):
    # An engine of the test's own (restarting the machine's engine would stop everyone else's containers).
    monkeypatch.setenv("DOCKER_HOST", private_engine.url)
    engine = private_engine.connect()
    harness = write_harness(tmp_path / "agent.sh", listing=False, t02="sleep 300")
    process, run_dir = _start_cli_run(project, harness, TEST_IMAGE, tmp_path / "runs")
    _wait_for(lambda: _subtask_running(engine, run_dir, "T02"), "T02 to start")
    before = _snapshot_of_done(run_dir)
    restarted = dockerd("restart", env=private_engine.env)
    assert restarted.returncode == 0, restarted.stderr
    output, _ = process.communicate(timeout=180)
    assert process.returncode != 0, output
    assert "resume" in output
    assert load_run(run_dir).status in (RunStatus.INTERRUPTED, RunStatus.FAILED)
    _finish_with_a_fixed_harness(run_dir, harness)
    assert _snapshot_of_done(run_dir)["T01"] == before["T01"]
    engine.close()


def test_cancel_stops_the_subtask_that_is_going_and_resume_reruns_it(
    project, tmp_path, test_image, docker_engine, capsys
):
    from tests.helpers import run_cli

    harness = write_harness(tmp_path / "agent.sh", listing=False, t02="sleep 300")
    process, run_dir = _start_cli_run(project, harness, test_image, tmp_path / "runs")
    _wait_for(lambda: _subtask_running(docker_engine, run_dir, "T02"), "T02 to start")
    code, out, _ = run_cli(capsys, "runs", "cancel", str(run_dir))
    assert code == 0 and "cancel requested" in out
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 1, output
    assert "cancelled during T02" in output
    record = load_run(run_dir)
    assert record.status == RunStatus.CANCELLED
    assert record.subtask("T02").status == SubtaskStatus.PENDING and record.subtask("T02").checkpoint is None
    assert docker_engine.count_labelled({"dbstudio.run": run_dir.name}) == 0
    _finish_with_a_fixed_harness(run_dir, harness)


def test_a_run_another_process_executes_is_not_resumed_twice(project, tmp_path, test_image, docker_engine):
    harness = write_harness(tmp_path / "agent.sh", listing=False, t02="sleep 300")
    process, run_dir = _start_cli_run(project, harness, test_image, tmp_path / "runs")
    try:
        _wait_for(lambda: _subtask_running(docker_engine, run_dir, "T02"), "T02 to start")
        with pytest.raises(RunError, match="going in another process"):
            execute_run(run_dir)
    finally:
        process.kill()
        process.wait()
        docker_engine.kill_labelled({"dbstudio.run": run_dir.name})
