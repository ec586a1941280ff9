"""Real `harbor run` jobs of exports on the local Docker engine, then `dbstudio import harbor`.

Harbor is the current one from PyPI in its own Python 3.12 environment (harbor_env.py); its docker
environment needs Docker Compose v2 (scripts/compose-v2.sh) and an image with bash (Harbor runs
every command with `bash -c`): scripts/test-image.sh builds one with DBSTUDIO_IMAGE_BASH=1. The
agent is the tests' own offline one (harbor_agent/offline.py), loaded by Harbor by import path.
Time limits are scaled down so a 10-step job of the sample takes a minute or two.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest
import yaml

from studio.benchmark.loader import load_benchmark
from studio.bundled import samples_dir
from studio.runs.engine import DockerEngine
from studio.runs.harbor_export import HarborSettings, evaluator_files, export_harbor
from studio.runs.harbor_import import HarborImport, import_harbor
from studio.runs.plan import RunPlan, plan_run
from studio.runs.record import RunRecord, RunStatus, SubtaskStatus, list_runs
from studio.runs.runner import store_of
from studio.store.loader import load_project
from tests.helpers import copy_blank, git, replace_in, run_cli, write
from tests.runs.harbor_env import harbor_python
from tests.runs.private_engine import TEST_IMAGE_SCRIPT
from tests.runs.projects import three_subtask_project

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_SCRIPT = ROOT / "scripts" / "compose-v2.sh"
AGENT = "harbor_agent.offline:OfflineAgent"
AGENT_NAME = "dbstudio-offline"
BASH_IMAGE = "dbstudio/test-bash:1"
SAMPLE = "kestrel-refinancing"
SAMPLE_SCALE = 0.002  # the sample's 180-300 minute steps get 21.6-36 s
SMALL_SCALE = 0.005  # the small project's T03 (30 minutes) gets 9 s
SEEN = ".offline-agent"
HARBOR_TIMEOUT_S = 420


@pytest.fixture(scope="module")
def harbor_env(docker_engine: DockerEngine) -> dict[str, str]:
    """The environment of a `harbor` process: `docker compose` v2 installed, the bash image built,
    the offline agent importable, and nothing that reaches out (telemetry, LiteLLM's price list)."""
    env = {**os.environ, "DOCKER_HOST": docker_engine.url()}
    for what, command, extra in (
        ("scripts/compose-v2.sh", ["bash", str(COMPOSE_SCRIPT)], {}),
        ("scripts/test-image.sh", ["bash", str(TEST_IMAGE_SCRIPT)],
         {"DBSTUDIO_TEST_IMAGE": BASH_IMAGE, "DBSTUDIO_IMAGE_BASH": "1"}),
    ):
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, env={**env, **extra}, check=False)
        if done.returncode != 0:
            pytest.fail(f"{what} failed:\n{done.stderr}")
    harbor_python()
    return {**env, "PYTHONPATH": str(ROOT / "tests" / "runs"), "HARBOR_TELEMETRY": "0",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def harbor_command() -> str:
    return str(harbor_python().parent / "harbor")


def harbor(env: dict[str, str], *args: str, cwd: Path, extra: dict[str, str] | None = None) -> None:
    done = subprocess.run([harbor_command(), *args], cwd=cwd, capture_output=True, text=True, check=False,
                          env={**env, **(extra or {})}, timeout=HARBOR_TIMEOUT_S)
    assert done.returncode == 0, f"harbor {' '.join(args)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def the_job(export_dir: Path) -> Path:
    jobs = [p for p in (export_dir / "jobs").iterdir() if p.is_dir()]
    assert len(jobs) == 1, jobs
    return jobs[0]


def trial_results(job_dir: Path) -> dict[str, dict[str, Any]]:
    """Harbor's result.json of each trial, by trial folder name."""
    return {p.parent.name: json.loads(p.read_text(encoding="utf-8")) for p in job_dir.glob("*/result.json")}


def steps_ran(result: dict[str, Any]) -> dict[str, str | None]:
    """Step name -> the exception type Harbor recorded for it (None: none)."""
    return {s["step_name"]: (s.get("exception_info") or {}).get("exception_type") for s in result["step_results"] or []}


def runs_of(project: Path) -> list[RunRecord]:
    return [record for _, record in list_runs(project / "runs")]


def settings(scale: float, **more: Any) -> HarborSettings:
    return HarborSettings(image=BASH_IMAGE, agent=AGENT, agent_timeout_scale=scale, check_image=True, **more)


def committed_copy(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "the project as exported")
    return dest


def memory_bytes(text: str) -> int:
    units = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    last = text[-1].lower()
    return int(text[:-1]) * units[last] if last in units else int(text)


@dataclass
class SampleJob:
    project: Path
    plan: RunPlan
    export_dir: Path
    job_dir: Path
    seconds: float
    report: HarborImport
    record: RunRecord
    run_dir: Path
    outputs: dict[str, list[str]]  # subtask -> its deliverables' workspace paths


@pytest.fixture(scope="module")
def sample_job(harbor_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> SampleJob:
    """The sample exported with 1 CPU and 4 GB, run by `harbor run -c job.yaml` with the offline
    agent through all 10 steps, then imported."""
    base = tmp_path_factory.mktemp("harbor-sample")
    project = committed_copy(samples_dir() / SAMPLE, base / SAMPLE)
    done = export_harbor(project, base / "export", settings(SAMPLE_SCALE, cpus=1, memory_mb=4096))
    started = time.monotonic()
    harbor(harbor_env, "run", "-c", done.job_config.name, cwd=done.out)
    seconds = time.monotonic() - started
    job_dir = the_job(done.out)
    report = import_harbor(job_dir, project)
    assert [t.action for t in report.trials] == ["imported"], report.trials
    [(run_dir, record)] = list_runs(project / "runs")
    print(f"\nthe sample's 10-step harbor run took {seconds:.1f} s")
    loaded = load_project(project).project
    outputs = {sid: [output.path for output in subtask.outputs] for sid, subtask in loaded.subtasks.items()}
    return SampleJob(project, plan_run(loaded), done.out, job_dir, seconds, report, record, run_dir, outputs)


def test_the_sample_runs_all_its_steps_in_harbor_and_imports_a_checkpoint_per_step(sample_job: SampleJob):
    record, plan = sample_job.record, sample_job.plan
    [result] = trial_results(sample_job.job_dir).values()
    assert result["exception_info"] is None
    assert steps_ran(result) == {step.subtask: None for step in plan.subtasks}
    assert (sample_job.report.trials[0].done, sample_job.report.trials[0].total) == (10, 10)
    assert record.status == RunStatus.COMPLETED and record.final is not None
    assert record.harness == f"harbor:{AGENT_NAME}" and record.image == BASH_IMAGE
    assert record.origin is not None and record.origin["agent"] == AGENT_NAME
    assert record.settings.time_limit_scale == SAMPLE_SCALE
    for step, sub in zip(plan.subtasks, record.subtasks, strict=True):
        assert sub.status == SubtaskStatus.COMPLETED and sub.checkpoint, sub.id
        assert sub.time_limit_s == pytest.approx(step.time_limit_minutes * 60 * SAMPLE_SCALE)
        assert sub.tokens == {"input": 10 * step.position, "output": step.position, "cache_read": 0}
    # The generated release before T08 (M14, the lenders' questions) was written in the container
    # from the agent's own T07 presentation, and the import recorded what it wrote.
    assert set(record.subtask("T08").generated) == {"M14"}


def test_each_release_arrives_on_schedule_and_no_earlier(sample_job: SampleJob):
    store = store_of(sample_job.run_dir)
    released: set[str] = {"brief.md"}
    for step in sample_job.plan.subtasks:
        released |= {release.dest for release in step.releases} | {g.dest for g in step.generated}
        manifest = store.manifest(sample_job.record.subtask(step.subtask).checkpoint or "")
        files = set(manifest.files())
        materials = {path for path in files if not path.startswith(("outputs/", f"{SEEN}/"))}
        assert materials == released, step.subtask
        # What the agent found when the step began: exactly what was released by then, and the
        # outputs of the steps before it.
        seen = store.read_bytes(manifest, f"{SEEN}/seen-{step.position:02d}.txt").decode().split()
        assert {p.removeprefix("./") for p in seen if not p.startswith("./outputs/")} == released, step.subtask
        # The agent wrote each deliverable its instruction names, in this step.
        for output in sample_job.outputs[step.subtask]:
            text = store.read_bytes(manifest, output).decode()
            assert f"written in step {step.position}:" in text.splitlines()[-1], (step.subtask, output)


def test_nothing_evaluator_only_reached_the_container(sample_job: SampleJob):
    secret_digests = {sha256(path.read_bytes()).hexdigest() for path in evaluator_files(sample_job.project)
                      if path.stat().st_size}
    store = store_of(sample_job.run_dir)
    for sub in sample_job.record.subtasks:
        manifest = store.manifest(sub.checkpoint or "")
        assert not {entry.sha256 for entry in manifest.entries.values()} & secret_digests, sub.id
        assert not any(path.startswith("evaluator/") or path.endswith("rubric.yaml") for path in manifest.files())
    # Nor anywhere in what Harbor kept of the trial (its logs, verifier output, artifacts).
    kept = [p for p in sample_job.job_dir.rglob("*") if p.is_file()]
    assert not {sha256(p.read_bytes()).hexdigest() for p in kept} & secret_digests


def test_the_run_records_the_limits_the_task_was_exported_with(sample_job: SampleJob):
    """Exported with --cpus 1 --memory-mb 4096: the container had them, and so must the run."""
    store = store_of(sample_job.run_dir)
    manifest = store.manifest(sample_job.record.subtask("T01").checkpoint or "")
    limits = dict(line.split("=", 1) for line in store.read_bytes(manifest, f"{SEEN}/limits-01.txt").decode().split("\n")
                  if "=" in line)
    assert int(limits["memory"]) == 4096 << 20
    quota, period = limits["cpu"].split()
    assert int(quota) / int(period) == 1
    assert sample_job.record.settings.cpus == 1
    assert memory_bytes(sample_job.record.settings.memory) == 4096 << 20


def test_each_steps_logs_hold_that_step_only(sample_job: SampleJob):
    """The agent writes one log file per step in its log folder, which Harbor keeps across resumed
    steps: the run's logs of a step hold that step's file, not every earlier step's."""
    for step in sample_job.plan.subtasks:
        agent_logs = sample_job.run_dir / "logs" / f"{step.subtask}.harbor" / "agent"
        step_files = sorted(p.name for p in agent_logs.glob("step-*.txt"))
        assert step_files == [f"step-{step.position:02d}.txt"], step.subtask


# The small project (three subtasks: T01 and T02 of 240 minutes, T03 of 30; a generated release
# before T02), for the jobs that go wrong.


@dataclass
class TroubleJob:
    project: Path
    job_dir: Path
    results: dict[str, dict[str, Any]]  # by the kwargs that told the agent what to do
    runs: dict[str, RunRecord]
    report: HarborImport


@pytest.fixture(scope="module")
def trouble_job(harbor_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> TroubleJob:
    """One job of two trials side by side: the agent is told to fail step 2 in one, and to sleep
    past T03's 9 s in the other."""
    base = tmp_path_factory.mktemp("harbor-trouble")
    project = three_subtask_project(base / "project")
    done = export_harbor(project, base / "export", settings(SMALL_SCALE))
    config = yaml.safe_load(done.job_config.read_text(encoding="utf-8"))
    [agent] = config["agents"]
    config["agents"] = [{**agent, "kwargs": {"fail_step": 2}}, {**agent, "kwargs": {"sleep_step": 3}}]
    config["n_concurrent_trials"] = 2
    done.job_config.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    harbor(harbor_env, "run", "-c", done.job_config.name, cwd=done.out)
    job_dir = the_job(done.out)
    report = import_harbor(job_dir, project)
    by_trial = trial_results(job_dir)
    told = {name: "fail" if result["config"]["agent"]["kwargs"].get("fail_step") else "sleep"
            for name, result in by_trial.items()}
    runs = {told[record.origin["trial"]]: record for record in runs_of(project) if record.origin}
    return TroubleJob(project, job_dir, {told[name]: result for name, result in by_trial.items()}, runs, report)


def test_a_step_past_its_time_limit_is_imported_as_timed_out_with_its_checkpoint(trouble_job: TroubleJob):
    assert steps_ran(trouble_job.results["sleep"]) == {"T01": None, "T02": None, "T03": "AgentTimeoutError"}
    record = trouble_job.runs["sleep"]
    sub = record.subtask("T03")
    assert (sub.status, sub.timed_out, sub.time_limit_s) == (SubtaskStatus.TIMED_OUT, True, 30 * 60 * SMALL_SCALE)
    # The workspace as the agent left it when the time ran out is the checkpoint.
    store = store_of(trouble_job.project / "runs" / record.run_id)
    cover = store.read_bytes(store.manifest(sub.checkpoint or ""), "outputs/cover.md").decode()
    assert "written in step 3:" in cover
    assert record.status == RunStatus.COMPLETED and record.progress() == (3, 3)


def test_a_failing_step_is_imported_as_where_the_run_stopped(trouble_job: TroubleJob):
    record = trouble_job.runs["fail"]
    assert record.status == RunStatus.FAILED
    assert [sub.status for sub in record.subtasks] == [SubtaskStatus.COMPLETED, SubtaskStatus.FAILED,
                                                       SubtaskStatus.PENDING]
    assert record.subtask("T01").checkpoint and record.subtask("T02").checkpoint is None
    assert record.message is not None and "stopped at T02" in record.message
    assert "told to fail step 2" in record.message


def test_a_failing_step_stops_the_trial_in_harbor(trouble_job: TroubleJob):
    """Harbor goes on after a failed step only when its verifier gave a result: the export's
    verifier must not, so T03 (agent time on a cloud job) never runs after T02 failed."""
    ran = steps_ran(trouble_job.results["fail"])
    assert ran == {"T01": None, "T02": "NonZeroAgentExitCodeError"}
    assert "Harbor went on" not in (trouble_job.runs["fail"].message or "")


def test_a_stopped_job_resumed_by_harbor_ends_as_one_run_of_its_rerun_trial(
    harbor_env: dict[str, str], tmp_path: Path
):
    """`harbor run` stopped (Ctrl-C) while the agent is in T02, imported, then `harbor job resume`
    (which deletes the cancelled trial and runs it again), imported again."""
    project = three_subtask_project(tmp_path / "project")
    done = export_harbor(project, tmp_path / "export", settings(SMALL_SCALE))
    with subprocess.Popen([harbor_command(), "run", "-c", done.job_config.name], cwd=done.out,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env={**harbor_env, "DBSTUDIO_AGENT_SLEEP_STEP": "2"}) as running:
        try:
            deadline = time.monotonic() + 180
            while not list((done.out / "jobs").glob("*/*/agent/sleeping-02")):
                assert running.poll() is None, f"harbor run ended before T02: {running.stderr.read() if running.stderr else ''}"
                assert time.monotonic() < deadline, "the agent never reached T02"
                time.sleep(0.5)
            running.send_signal(signal.SIGINT)
            running.wait(timeout=240)
        finally:
            if running.poll() is None:
                running.kill()
    job_dir = the_job(done.out)
    [cancelled] = trial_results(job_dir).values()
    assert cancelled["exception_info"]["exception_type"] == "CancelledError"
    first = import_harbor(job_dir, project)

    harbor(harbor_env, "job", "resume", "-p", str(job_dir), cwd=done.out)
    [rerun_name] = trial_results(job_dir)
    assert rerun_name != cancelled["trial_name"]
    second = import_harbor(job_dir, project)

    assert [t.action for t in second.trials] == ["imported"]
    runs = runs_of(project)
    rerun = next(record for record in runs if record.origin and record.origin["trial"] == rerun_name)
    assert rerun.status == RunStatus.COMPLETED and rerun.progress() == (3, 3)
    # The cancelled trial is gone from the job: no run may stand for it.
    assert [record.origin["trial"] for record in runs if record.origin] == [rerun_name]
    assert not [t for t in first.trials if t.action == "imported"], first.trials


# A generated release whose script fails in the container.

FAILING_RELEASE = """\
import sys

sys.exit("feedback_on_report: the report has no figures to ask about")
"""


def test_a_failing_generated_release_stops_the_trial_and_the_run_names_it(harbor_env: dict[str, str], tmp_path: Path):
    """M03, made by scripts/feedback_on_report.py before T02 from the agent's T01 report, fails in
    the container: Harbor stops the trial at T02 before its agent starts, and the run records T02
    failed without a checkpoint, naming the release and its script."""
    project = three_subtask_project(tmp_path / "project", commit=False)
    write(project, "scripts/feedback_on_report.py", FAILING_RELEASE)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "a release script that fails")
    done = export_harbor(project, tmp_path / "export", settings(SMALL_SCALE))
    harbor(harbor_env, "run", "-c", done.job_config.name, cwd=done.out)
    job_dir = the_job(done.out)
    [result] = trial_results(job_dir).values()
    # The setup failed, so T02's agent never ran, nor did T03.
    assert steps_ran(result) == {"T01": None, "T02": "RuntimeError"}
    [t02] = [step for step in result["step_results"] if step["step_name"] == "T02"]
    assert t02["agent_execution"] is None and t02["verifier_result"] is None

    report = import_harbor(job_dir, project)
    assert [(t.action, t.done, t.total) for t in report.trials] == [("imported", 1, 3)]
    [record] = runs_of(project)
    assert record.status == RunStatus.FAILED
    assert [sub.status for sub in record.subtasks] == [SubtaskStatus.COMPLETED, SubtaskStatus.FAILED,
                                                       SubtaskStatus.PENDING]
    assert record.subtask("T01").checkpoint and record.subtask("T02").checkpoint is None
    assert record.subtask("T02").generated == {}
    message = record.message or ""
    assert "stopped at T02" in message
    # Harbor keeps only setup.sh's exit code, which names the release.
    assert ("its generated release M03 (scripts/feedback_on_report.py, from outputs/report.md) failed in the "
            "container, before the agent started") in message
    assert "setup.sh exited with code 10" in message


# A benchmark of two projects x two systems as one Harbor job.

BENCHMARK = """\
format: 1
id: offline-suite
title: Offline suite
projects: [p01, p02]
systems:
  - id: quick
    name: Offline agent / model A
    model: offline/model-a
    harness: claude-code
    settings: {harbor_agent: 'harbor_agent.offline:OfflineAgent'}
  - id: careful
    name: Offline agent / model B
    model: offline/model-b
    harness: claude-code
    settings: {harbor_agent: 'harbor_agent.offline:OfflineAgent'}
"""


def test_a_benchmark_job_runs_in_harbor_and_each_trial_lands_in_its_project_under_its_system(
    harbor_env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """`benchmark export harbor` of two two-step projects x two systems (the offline agent with two
    models), run by `harbor run`, then `benchmark import harbor`: one run per project and system,
    each with its system, and an outcome for each pair in benchmark.yaml."""
    bench = tmp_path / "bench"
    for name in ("p01", "p02"):
        root = copy_blank(bench / name)
        replace_in(root, "project.yaml", "id: new-project", f"id: offline-{name}")
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "two subtasks")
    path = write(bench, "benchmark.yaml", BENCHMARK)
    out = tmp_path / "harbor"
    code, _, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path), str(out), "--image", BASH_IMAGE,
                              "--agent-timeout-scale", str(SMALL_SCALE))
    assert code == 0, stderr
    started = time.monotonic()
    harbor(harbor_env, "run", "-c", str(out / "job.yaml"), "-n", "4", cwd=tmp_path)
    seconds = time.monotonic() - started
    job_dir = the_job(out)
    assert len(trial_results(job_dir)) == 4

    code, stdout, stderr = run_cli(capsys, "benchmark", "import", "harbor", str(path), str(job_dir),
                                   "--format", "json")
    assert code == 0, stderr
    imported = json.loads(stdout)
    assert sorted((t["project"], t["action"]) for t in imported["trials"]) == [
        ("offline-p01", "imported"), ("offline-p01", "imported"), ("offline-p02", "imported"),
        ("offline-p02", "imported")]
    runs = {}
    for name in ("p01", "p02"):
        for record in runs_of(bench / name):
            assert record.system is not None and record.origin is not None
            assert record.status == RunStatus.COMPLETED and record.progress() == (2, 2)
            assert record.harness == f"harbor:{AGENT_NAME}"
            runs[(record.project_id, record.system.id)] = (record.run_id, record.system.model)
    assert runs.keys() == {(project, system) for project in ("offline-p01", "offline-p02")
                           for system in ("quick", "careful")}
    assert {system: model for (_, system), (_, model) in runs.items()} == {"quick": "offline/model-a",
                                                                          "careful": "offline/model-b"}
    loaded = load_benchmark(path)
    assert loaded.errors == []
    outcomes = {(o.project, o.system): (o.submission, o.selected) for o in loaded.benchmark.outcomes}
    assert outcomes == {pair: (run_id, True) for pair, (run_id, _) in runs.items()}
    with capsys.disabled():
        print(f"\nthe benchmark's 4-trial harbor run took {seconds:.1f} s")
