"""`dbstudio import harbor`: a Harbor job folder, laid out and serialised by Harbor's own models (in
the Harbor test environment), read back as runs with one checkpoint per completed step."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from studio.runs.harbor_export import HarborSettings, export_harbor
from studio.runs.harbor_import import import_harbor
from studio.runs.harbor_job import HarborJobError
from studio.runs.record import RunStatus, SubtaskStatus, list_runs
from studio.runs.store import CheckpointStore
from tests.helpers import run_cli, write
from tests.runs.harbor_env import probe
from tests.runs.projects import three_subtask_project

PROJECT_ID = "new-project"  # the blank template's id
COMPLETE, STOPPED, RUNNING = "new-project__Acm4Ex2", "new-project__Bst0pD3", "new-project__Cgo1ng4"


def _workspace_after(step: str, trial: str) -> dict[str, str]:
    """What the agent's workspace holds after each step of a trial (T02 also gets the generated M03)."""
    files = {
        "brief.md": "# Brief\n",
        "materials/source-notes.md": "notes\n",
        "outputs/report.md": f"# Draft report ({trial})\nThe objective is stated here.\n",
        "outputs/notes.txt": "scratch\n",
    }
    if step in ("T02", "T03"):
        del files["outputs/notes.txt"]
        files["materials/client-correction.md"] = "correction\n"
        files["materials/M03.md"] = f"# Reviewer questions on the draft report ({trial})\n"
        files["outputs/report.md"] += "## Revision\n"
    if step == "T03":
        files["materials/cover-template.md"] = "# Cover note\n"
        files["outputs/cover.md"] = f"Cover note of {trial}\n"
    return files


def _step(
    name: str,
    minute: int,
    tokens: list[int] | None = None,
    exception: dict[str, str] | None = None,
    cost: float | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "started_at": f"2026-11-30T10:{minute:02d}:00+00:00",
        "finished_at": f"2026-11-30T10:{minute + 9:02d}:30+00:00",
        "tokens": tokens,
        "cost": cost,
        "exception": exception,
        "verified": True,
    }


def _error(kind: str, message: str) -> dict[str, str]:
    return {"type": kind, "message": message, "at": "2026-11-30T10:59:00+00:00"}


def make_job(
    tmp_path: Path, trials: list[dict[str, Any]], job_id: str | None = None, settings: HarborSettings | None = None
) -> tuple[Path, Path, dict]:
    """Export a three-subtask project, then a job folder of `trials` as Harbor writes it, with each
    step's collected workspace and test.sh's hash listing of it."""
    project = three_subtask_project(tmp_path / "project")
    export = export_harbor(project, tmp_path / "export", settings)
    spec = {
        "jobs_dir": str(export.out / "jobs"),
        "job_name": "2026-11-30__10-00-00",
        "job_id": job_id or str(uuid.uuid4()),
        "agent": "claude-code",
        "agent_version": "2.0.31",
        "model": "anthropic/claude-sonnet-4-5",
        "task_path": PROJECT_ID,
        "task_name": f"dbstudio/{PROJECT_ID}",
        "trials": trials,
        "started_at": "2026-11-30T10:00:00+00:00",
        "finished_at": "2026-11-30T11:00:00+00:00",
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    layout = probe("make-job", tmp_path / "spec.json")
    for trial, made in layout["trials"].items():
        for step, folders in made["steps"].items():
            files = _workspace_after(step, trial)
            listing = []
            for rel, text in files.items():
                write(Path(folders["artifacts"]) / "workspace", rel, text)
                listing.append(f"{hashlib.sha256(text.encode()).hexdigest()}  ./{rel}")
            write(Path(folders["verifier"]), "workspace.sha256", "\n".join(listing) + "\n")
            write(Path(folders["verifier"]), "reward.json", '{"reward": 0, "placeholder": 1}\n')
            write(Path(folders["agent"]), "claude-code.txt", f"agent log of {step}\n")
    return Path(layout["job_dir"]), project, layout


TRIALS = [
    {
        "name": COMPLETE,
        "started_at": "2026-11-30T10:00:00+00:00",
        "finished_at": "2026-11-30T10:40:00+00:00",
        "steps": [
            _step("T01", 0, [12000, 3000, 800], cost=0.25),
            _step(
                "T02",
                10,
                [9000, 8000, 600],
                _error("AgentTimeoutError", "Agent execution timed out after 3600.0 seconds"),
                0.5,
            ),
            _step("T03", 20, [4000, 1000, 200], cost=0.125),
        ],
    },
    {
        "name": STOPPED,
        "started_at": "2026-11-30T10:01:00+00:00",
        "finished_at": "2026-11-30T10:35:00+00:00",
        "steps": [
            _step("T01", 1, [1, 2, 3]),
            _step("T02", 11, [4, 5, 6]),
            _step("T03", 21, None, _error("NonZeroAgentExitCodeError", "claude exited with code 1\nmore")),
        ],
    },
    {
        "name": RUNNING,
        "started_at": "2026-11-30T10:02:00+00:00",
        "finished_at": None,
        "finished": False,
        "steps": [_step("T01", 2, [1, 1, 1])],
    },
]


def _files(store: CheckpointStore, manifest_id: str | None) -> dict[str, str]:
    assert manifest_id is not None
    manifest = store.manifest(manifest_id)
    return {path: store.read_bytes(manifest, path).decode() for path in manifest.files()}


def test_each_finished_trial_becomes_a_run_with_a_checkpoint_per_completed_step(tmp_path: Path):
    job_dir, project, _ = make_job(tmp_path, TRIALS)
    runs_dir = tmp_path / "runs"
    report = import_harbor(job_dir, project, runs_dir)

    assert [(t.trial, t.action) for t in report.trials] == [
        (COMPLETE, "imported"),
        (STOPPED, "imported"),
        (RUNNING, "not finished"),
    ]
    runs = {record.origin["trial"]: (path, record) for path, record in list_runs(runs_dir)}
    assert set(runs) == {COMPLETE, STOPPED}
    store = CheckpointStore(runs_dir / "store")

    _, complete = runs[COMPLETE]
    assert complete.status == RunStatus.COMPLETED and complete.progress() == (3, 3)
    assert complete.harness == "harbor:claude-code" and complete.image == "python:3.12-slim"
    assert complete.project_id == PROJECT_ID and complete.project_commit is not None
    assert complete.origin["job_id"] == report.job_id and complete.origin["model"] == "claude-sonnet-4-5"
    assert complete.origin["model_provider"] == "anthropic" and complete.origin["agent_version"] == "2.0.31"
    assert complete.origin["cost_usd"] == "0.875000"
    for sub in complete.subtasks:
        assert _files(store, sub.checkpoint) == _workspace_after(sub.id, COMPLETE)
    t01, t02, t03 = complete.subtasks
    assert (t01.status, t02.status, t03.status) == (
        SubtaskStatus.COMPLETED,
        SubtaskStatus.TIMED_OUT,
        SubtaskStatus.COMPLETED,
    )
    assert t02.timed_out and not t01.timed_out
    assert t01.tokens == {"input": 9000, "cache_read": 3000, "output": 800}  # Harbor: 12000 in, cache included
    assert (t01.started.isoformat(), t01.ended.isoformat()) == (
        "2026-11-30T10:00:00+00:00",
        "2026-11-30T10:09:30+00:00",
    )
    assert t01.time_limit_s == 240 * 60  # the template's T01 limit, at the exported task's scale 1
    generated = _workspace_after("T02", COMPLETE)["materials/M03.md"]
    assert t02.generated == {"M03": hashlib.sha256(generated.encode()).hexdigest()}
    assert "agent log of T01" in (runs[COMPLETE][0] / "logs" / "T01.harbor" / "agent" / "claude-code.txt").read_text()
    # The final package is assembled from the last checkpoint, as for a local run.
    final = _files(store, complete.final)
    assert final == {"final/report.md": _workspace_after("T03", COMPLETE)["outputs/report.md"]}

    _, stopped = runs[STOPPED]
    assert stopped.status == RunStatus.FAILED and stopped.progress() == (2, 3)
    assert [s.status for s in stopped.subtasks] == [
        SubtaskStatus.COMPLETED,
        SubtaskStatus.COMPLETED,
        SubtaskStatus.FAILED,
    ]
    assert stopped.subtasks[2].checkpoint is None  # Harbor collected its workspace, but the step failed
    assert _files(store, stopped.subtasks[1].checkpoint) == _workspace_after("T02", STOPPED)
    assert (
        "stopped at T03" in stopped.message
        and "NonZeroAgentExitCodeError: claude exited with code 1" in stopped.message
        and "checkpoints kept: T01, T02" in stopped.message
    )
    assert stopped.final is None


def test_importing_the_same_job_again_adds_nothing_and_a_trial_that_finished_since_is_added(tmp_path: Path):
    job_dir, project, layout = make_job(tmp_path, TRIALS)
    runs_dir = tmp_path / "runs"
    first = import_harbor(job_dir, project, runs_dir)
    listed = sorted(path.name for path in runs_dir.iterdir())
    objects = sorted(p.name for p in (runs_dir / "store").rglob("*") if p.is_file())
    again = import_harbor(job_dir, project, runs_dir)
    assert again.added == [] and again.job_id == first.job_id
    assert [(t.trial, t.action, t.run_id) for t in again.trials[:2]] == [
        (t.trial, "already imported", t.run_id) for t in first.trials[:2]
    ]
    assert sorted(path.name for path in runs_dir.iterdir()) == listed
    assert sorted(p.name for p in (runs_dir / "store").rglob("*") if p.is_file()) == objects

    # The third trial ends: its result.json appears, and only it is added on the next import.
    result = json.loads((job_dir / COMPLETE / "result.json").read_text())
    result["trial_name"], result["id"] = RUNNING, str(uuid.uuid4())
    result["step_results"] = result["step_results"][:1]
    (job_dir / RUNNING / "result.json").write_text(json.dumps(result))
    third = import_harbor(job_dir, project, runs_dir)
    assert [(t.trial, t.action) for t in third.added] == [(RUNNING, "imported")]
    assert len(list_runs(runs_dir)) == 3


def test_a_workspace_copy_that_differs_from_test_sh_listing_is_not_a_checkpoint(tmp_path: Path):
    job_dir, project, layout = make_job(tmp_path, TRIALS[:1])
    t02 = Path(layout["trials"][COMPLETE]["steps"]["T02"]["artifacts"]) / "workspace" / "outputs" / "report.md"
    t02.write_text("not what the step left\n", encoding="utf-8")
    report = import_harbor(job_dir, project, tmp_path / "runs")
    ((_, record),) = list_runs(tmp_path / "runs")
    assert record.progress() == (1, 3) and record.subtasks[1].status == SubtaskStatus.FAILED
    assert "incomplete copy of its workspace (outputs/report.md differs" in report.trials[0].message


def test_the_command_reports_each_trial_and_refuses_a_folder_that_is_not_a_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    job_dir, project, _ = make_job(tmp_path, TRIALS)
    runs_dir = tmp_path / "runs"
    code, out, err = run_cli(capsys, "import", "harbor", str(job_dir), str(project), "--runs-dir", str(runs_dir))
    assert code == 0, err
    assert f"{COMPLETE}: run " in out and "3/3 checkpoints" in out
    assert f"{STOPPED}: run " in out and "2/3 checkpoints (imported from Harbor job" in out
    assert f"{RUNNING}: not imported, it has no result.json yet" in out
    assert "2 runs added" in err
    code, out, err = run_cli(capsys, "import", "harbor", str(job_dir), str(project), "--runs-dir", str(runs_dir))
    assert code == 0 and out.count("already imported as run") == 2 and "0 runs added" in err
    code, out, err = run_cli(capsys, "import", "harbor", str(project), str(project), "--runs-dir", str(runs_dir))
    assert code == 2 and "not a Harbor job directory (it has no config.json)" in err


def test_a_project_whose_timeline_changed_since_the_export_is_refused(tmp_path: Path):
    job_dir, project, _ = make_job(tmp_path, TRIALS[:1])
    stages = project / "stages.yaml"
    text = stages.read_text(encoding="utf-8")
    stages.write_text(
        text.replace("- T01\n", "- TXX\n").replace("- T02\n", "- T01\n").replace("- TXX\n", "- T02\n"), encoding="utf-8"
    )
    with pytest.raises(
        HarborJobError, match="exported with the subtasks T01, T02, T03 but the project's timeline is now T02, T01, T03"
    ):
        import_harbor(job_dir, project, tmp_path / "runs")
    assert list_runs(tmp_path / "runs") == []


def test_an_imported_run_that_stopped_part_way_is_not_resumed_here_and_stays_as_imported(tmp_path: Path):
    from studio.runs.errors import RunError
    from studio.runs.runner import execute_run

    job_dir, project, _ = make_job(tmp_path, TRIALS[1:2])
    import_harbor(job_dir, project, tmp_path / "runs")
    ((run_dir, record),) = list_runs(tmp_path / "runs")
    before = (run_dir / "run.json").read_bytes()
    with pytest.raises(RunError, match="was imported from harbor and cannot be resumed here"):
        execute_run(run_dir)
    assert (run_dir / "run.json").read_bytes() == before and record.status == RunStatus.FAILED


def test_a_hostile_job_folder_brings_no_host_file_in_and_a_duplicate_trial_is_imported_once(tmp_path: Path):
    import os
    import shutil

    from tests.untrusted.hostile import HOST_SECRET, device_node, host_secret

    secret = host_secret(tmp_path)
    host_workspace = tmp_path / "host-workspace"
    write(host_workspace, "outputs/report.md", HOST_SECRET)
    job_dir, project, layout = make_job(tmp_path, TRIALS[:2])
    shutil.copytree(job_dir / COMPLETE, job_dir / "zz-copy-of-a-trial")  # same trial name in result.json
    steps = layout["trials"][COMPLETE]["steps"]
    t02 = Path(steps["T02"]["artifacts"]) / "workspace"
    shutil.rmtree(t02)
    t02.symlink_to(host_workspace)  # the workspace artifact is a link to a host folder
    agent = Path(steps["T01"]["agent"])
    (agent / "secret.txt").symlink_to(secret)
    (agent / "host").symlink_to(secret.parent)
    device_node(agent / "null", minor=3)
    os.mkfifo(agent / "pipe")
    (agent / "tool").write_text("#!/bin/sh\n")
    os.chmod(agent / "tool", 0o4755)
    (job_dir / COMPLETE / "trial.log").unlink()
    (job_dir / COMPLETE / "trial.log").symlink_to(secret)
    stopped_steps = job_dir / STOPPED / "steps"  # the steps folder is a link to a copy elsewhere
    shutil.move(stopped_steps, tmp_path / "elsewhere-steps")
    stopped_steps.symlink_to(tmp_path / "elsewhere-steps")

    runs_dir = tmp_path / "runs"
    report = import_harbor(job_dir, project, runs_dir)
    assert [(t.trial, t.action) for t in report.trials] == [
        (COMPLETE, "imported"),
        (STOPPED, "imported"),
        (COMPLETE, "duplicate"),
    ]
    assert "its folder zz-copy-of-a-trial names the trial" in report.trials[2].message
    assert len(list_runs(runs_dir)) == 2
    runs = {record.origin["trial"]: (path, record) for path, record in list_runs(runs_dir)}
    run_dir, complete = runs[COMPLETE]
    assert complete.progress() == (1, 3) and complete.subtasks[1].status == SubtaskStatus.FAILED
    assert (
        f"stopped at T02, which has no workspace that can be imported: steps/T02/artifacts/workspace in "
        f"the trial folder {COMPLETE} is a symbolic link (to {host_workspace}): it is not followed"
    ) in complete.message
    _, stopped = runs[STOPPED]
    assert stopped.progress() == (0, 3) and "steps in the trial folder" in stopped.message
    stored = [p.read_bytes() for p in (runs_dir / "store").rglob("*") if p.is_file()]
    kept_logs = [p for p in run_dir.rglob("*") if p.is_file() or p.is_symlink()]
    assert all(HOST_SECRET.encode() not in data for data in stored)
    assert all(not p.is_symlink() and HOST_SECRET not in p.read_text(errors="replace") for p in kept_logs)
    assert sorted(p.name for p in (run_dir / "logs" / "T01.harbor" / "agent").iterdir()) == ["claude-code.txt", "tool"]
    assert oct((run_dir / "logs" / "T01.harbor" / "agent" / "tool").stat().st_mode & 0o7777) == "0o644"
    summary = (run_dir / "logs" / "T01.log").read_text()
    for note in (
        f"agent/secret.txt is a symbolic link (to {secret}): not copied",
        "agent/null is a device node",
        "agent/pipe is a FIFO (named pipe): not copied",
        f"agent/host is a symbolic link (to {secret.parent})",
    ):
        assert note in summary
    assert not (run_dir / "logs" / "harbor-trial.log").exists()


def test_the_run_records_the_limits_and_the_time_scale_the_task_was_exported_with(tmp_path: Path):
    settings = HarborSettings(cpus=1, memory_mb=4096, agent_timeout_scale=0.5)
    job_dir, project, _ = make_job(tmp_path, TRIALS[:1], settings=settings)
    import_harbor(job_dir, project, tmp_path / "runs")
    ((_, record),) = list_runs(tmp_path / "runs")
    assert (record.settings.cpus, record.settings.memory, record.settings.time_limit_scale) == (1.0, "4g", 0.5)
    assert record.subtasks[0].time_limit_s == 240 * 60 * 0.5


CANCELLED = "new-project__Dcan5cl"
RERUN = "new-project__Ere6run"


def _cancelled_trial() -> dict[str, Any]:
    """A trial stopped part-way by Ctrl-C, as Harbor records it: CancelledError on the trial."""
    return {
        "name": CANCELLED,
        "started_at": "2026-11-30T10:03:00+00:00",
        "finished_at": "2026-11-30T10:20:00+00:00",
        "exception": _error("CancelledError", ""),
        "steps": [_step("T01", 3, [1, 1, 1])],
    }


def _resume(job_dir: Path) -> None:
    """What `harbor job resume` does to the job: deletes the cancelled trial and runs it again under
    a new name (here: the complete trial's result, renamed)."""
    import shutil

    shutil.rmtree(job_dir / CANCELLED)
    shutil.copytree(job_dir / COMPLETE, job_dir / RERUN)
    result = json.loads((job_dir / RERUN / "result.json").read_text())
    result["trial_name"], result["id"] = RERUN, str(uuid.uuid4())
    (job_dir / RERUN / "result.json").write_text(json.dumps(result))


def test_a_cancelled_trial_is_no_outcome_and_its_rerun_after_harbor_job_resume_is(tmp_path: Path):
    job_dir, project, _ = make_job(tmp_path, [TRIALS[0], _cancelled_trial()])
    runs_dir = tmp_path / "runs"
    report = import_harbor(job_dir, project, runs_dir)
    assert [(t.trial, t.action) for t in report.trials] == [(COMPLETE, "imported"), (CANCELLED, "cancelled")]
    assert "Harbor cancelled it (CancelledError)" in report.trials[1].message
    assert "harbor job resume" in report.trials[1].message
    assert [record.origin["trial"] for _, record in list_runs(runs_dir)] == [COMPLETE]

    _resume(job_dir)
    again = import_harbor(job_dir, project, runs_dir)
    assert [(t.trial, t.action) for t in again.trials] == [(COMPLETE, "already imported"), (RERUN, "imported")]
    assert sorted(record.origin["trial"] for _, record in list_runs(runs_dir)) == sorted([COMPLETE, RERUN])


def test_an_earlier_import_of_a_cancelled_trial_is_replaced_not_duplicated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from studio.runs import harbor_import

    job_dir, project, _ = make_job(tmp_path, [TRIALS[0], _cancelled_trial()])
    runs_dir = tmp_path / "runs"
    with monkeypatch.context() as earlier:  # an import made before cancelled trials were recognised
        earlier.setattr(harbor_import, "cancellation", lambda result: None)
        first = import_harbor(job_dir, project, runs_dir)
    stale = next(t.run_id for t in first.trials if t.trial == CANCELLED)
    assert len(list_runs(runs_dir)) == 2

    _resume(job_dir)
    report = import_harbor(job_dir, project, runs_dir)
    assert [(t.trial, t.action, t.run_id) for t in report.trials if t.action == "replaced"] == [
        (CANCELLED, "replaced", stale)
    ]
    assert "`harbor job resume` deleted it to run it again" in report.trials[0].message
    assert sorted(record.origin["trial"] for _, record in list_runs(runs_dir)) == sorted([COMPLETE, RERUN])
    assert not (runs_dir / stale).exists()


def test_a_job_folder_moved_away_from_its_task_is_refused_and_imports_with_the_task_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    import shutil

    job_dir, project, _ = make_job(tmp_path, TRIALS[:1])
    moved = Path(shutil.move(job_dir, tmp_path / "downloads" / job_dir.name))
    runs_dir = tmp_path / "runs"
    with pytest.raises(HarborJobError, match="is not at hand from the job folder") as refused:
        import_harbor(moved, project, runs_dir)
    assert f"--task OUT/{PROJECT_ID}" in str(refused.value) and list_runs(runs_dir) == []
    code, out, err = run_cli(
        capsys, "import", "harbor", str(moved), str(project), "--runs-dir", str(runs_dir),
        "--task", str(tmp_path / "export" / PROJECT_ID),
    )
    assert code == 0, err
    ((_, record),) = list_runs(runs_dir)
    assert record.image == "python:3.12-slim" and record.project_commit is not None and record.progress() == (3, 3)


def test_each_steps_logs_hold_that_step_only_when_harbor_carries_the_agent_folder_over(tmp_path: Path):
    job_dir, project, layout = make_job(tmp_path, TRIALS[:1])
    steps = layout["trials"][COMPLETE]["steps"]
    # A resumed agent's log folder carries over: T01's session file again, and a log that grows.
    write(Path(steps["T01"]["agent"]), "session.jsonl", '{"step": "T01"}\n')
    write(Path(steps["T02"]["agent"]), "session.jsonl", '{"step": "T01"}\n')
    write(Path(steps["T02"]["agent"]), "claude-code.txt", "agent log of T01\nagent log of T02\n")
    import_harbor(job_dir, project, tmp_path / "runs")
    ((run_dir, _),) = list_runs(tmp_path / "runs")
    t01, t02 = run_dir / "logs" / "T01.harbor" / "agent", run_dir / "logs" / "T02.harbor" / "agent"
    assert (t01 / "claude-code.txt").read_text() == "agent log of T01\n" and (t01 / "session.jsonl").is_file()
    assert (t02 / "claude-code.txt").read_text() == "agent log of T02\n"
    assert not (t02 / "session.jsonl").exists()
    summary = (run_dir / "logs" / "T02.log").read_text()
    assert "agent/session.jsonl: the same as in T01's logs, not kept again" in summary
    # T03's own log (nothing in common with T02's) is kept whole.
    assert (run_dir / "logs" / "T03.harbor" / "agent" / "claude-code.txt").read_text() == "agent log of T03\n"


@pytest.mark.parametrize("flag", [["--format", "json"], ["--json"]])
def test_the_command_prints_json_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str]):
    job_dir, project, _ = make_job(tmp_path, TRIALS)
    code, out, err = run_cli(
        capsys, "import", "harbor", str(job_dir), str(project), "--runs-dir", str(tmp_path / "runs"), *flag
    )
    assert code == 0, err
    printed = json.loads(out)
    assert printed["runs_dir"] == str(tmp_path / "runs")
    assert [(t["trial"], t["action"]) for t in printed["trials"]] == [
        (COMPLETE, "imported"),
        (STOPPED, "imported"),
        (RUNNING, "not finished"),
    ]
    assert printed["trials"][0]["done"] == 3 and printed["trials"][0]["run_id"]


def test_an_import_that_adds_no_run_names_each_trial_and_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    job_dir, project, _ = make_job(tmp_path, [TRIALS[2], _cancelled_trial()])
    code, _, err = run_cli(capsys, "import", "harbor", str(job_dir), str(project), "--runs-dir", str(tmp_path / "r"))
    assert code == 0, err
    assert "0 runs added" in err
    assert f"  {RUNNING}: not finished: it has no result.json yet" in err
    assert f"  {CANCELLED}: cancelled: Harbor cancelled it (CancelledError)" in err
