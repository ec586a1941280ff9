"""`dbstudio benchmark export|import harbor`: two projects x two systems as ONE Harbor job, loaded by
Harbor's own models (the Harbor test environment, tests/runs/harbor_env.py), and a job folder
written by Harbor's models read back into each project's runs with its system and into
benchmark.yaml's outcomes."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from studio.benchmark.harbor import BenchmarkHarborError, export_benchmark_harbor
from studio.benchmark.loader import load_benchmark
from studio.runs.record import RunStatus, list_runs
from tests.helpers import git, line_of, replace_in, run_cli, write
from tests.runs.harbor_env import harbor_cli, probe
from tests.runs.projects import three_subtask_project

P01, P02 = "kestrel-p01", "kestrel-p02"
CLAUDE_MODEL, CODEX_MODEL = "anthropic/claude-sonnet-4-5", "openai/gpt-5.6"
BENCHMARK = f"""\
format: 1
id: kestrel-suite
title: Kestrel suite
projects: [p01, p02]
systems:
  - id: claude
    name: Claude Sonnet 4.5 / Claude Code
    model: {CLAUDE_MODEL}
    harness: claude-code
    harness_version: 2.0.31
  - id: codex
    name: GPT-5.6 / Codex CLI
    model: gpt-5.6
    harness: codex
    settings: {{harbor_model: {CODEX_MODEL}, reasoning_effort: high}}
# a local run of codex on p02, reported before the Harbor job
outcomes:
  - {{system: codex, project: {P02}, submission: 20261101-090000-aa11bb}}
"""


def benchmark(folder: Path, text: str = BENCHMARK) -> Path:
    """FOLDER/benchmark.yaml over p01 and p02, each the three-subtask project under git with its own id."""
    for name in ("p01", "p02"):
        root = three_subtask_project(folder / name, commit=False)
        replace_in(root, "project.yaml", "id: new-project", f"id: kestrel-{name}")
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "three subtasks")
    return write(folder, "benchmark.yaml", text)


def test_harbor_loads_the_one_job_of_every_project_under_every_systems_agent(tmp_path: Path,
                                                                             capsys: pytest.CaptureFixture[str]):
    path = benchmark(tmp_path / "bench")
    out = tmp_path / "harbor"
    code, stdout, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path), str(out),
                                   "--agent-timeout-scale", "0.5", "--attempts", "3", "--environment", "daytona",
                                       "--no-image-check")
    assert code == 0, stderr
    assert f"claude: claude-code with {CLAUDE_MODEL}" in stdout and f"codex: codex with {CODEX_MODEL}" in stdout

    job = probe("job", out / "job.yaml")
    assert job["agents"] == [{"name": "claude-code", "model_name": CLAUDE_MODEL, "resume_trajectory": True},
                             {"name": "codex", "model_name": CODEX_MODEL, "resume_trajectory": True}]
    assert (job["tasks"], job["n_attempts"], job["environment"]) == ([str(out / P01), str(out / P02)], 3, "daytona")
    for project_id in (P01, P02):
        task = probe("task", out / project_id)
        assert task["name"] == f"dbstudio/{project_id}" and task["valid"] and task["has_steps"]
        assert [step["name"] for step in task["steps"]] == ["T01", "T02", "T03"]
        assert task["steps"][2]["agent_timeout_sec"] == 30 * 60 * 0.5
        assert task["metadata"]["dbstudio"]["project_id"] == project_id
    # Harbor's command line builds the job from it as `harbor run -c` would: 2 tasks x 2 agents.
    shown = harbor_cli("run", "-c", "job.yaml", "--print-config", cwd=out)
    assert shown.returncode == 0, shown.stderr
    config = json.loads(shown.stdout[shown.stdout.index("{"):])
    assert [(a["name"], a["model_name"]) for a in config["agents"]] == [("claude-code", CLAUDE_MODEL),
                                                                       ("codex", CODEX_MODEL)]
    assert [t["path"] for t in config["tasks"]] == [str(out / P01), str(out / P02)]
    # Which agent and model is which system, for the import.
    systems = yaml.safe_load((out / "systems.yaml").read_text(encoding="utf-8"))
    assert systems["systems"] == [
        {"system": "claude", "agent": "claude-code", "import_path": None, "model": CLAUDE_MODEL},
        {"system": "codex", "agent": "codex", "import_path": None, "model": CODEX_MODEL},
    ]
    assert {p.name for p in out.iterdir()} == {P01, P02, "job.yaml", "systems.yaml"}


def test_a_system_without_a_harbor_agent_is_refused_by_name_unless_it_gives_one(tmp_path: Path,
                                                                                capsys: pytest.CaptureFixture[str]):
    text = BENCHMARK + """\
  - {system: mine, project: kestrel-p01, submission: 20261101-090000-cc22dd}
"""
    text = text.replace("# a local run", """\
  - id: mine
    name: Our agent
    model: local-model
    harness: script:agent.sh
# a local run""")
    path = benchmark(tmp_path / "bench", text)
    out = tmp_path / "harbor"
    code, _, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path), str(out))
    assert code == 2
    assert "system mine: its harness script:agent.sh has no Harbor agent" in stderr
    assert "harbor_agent: module.path:Class" in stderr
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["bench"]

    # Given its own agent class, it is in the job as Harbor's import_path.
    replace_in(path.parent, "benchmark.yaml", "harness: script:agent.sh",
               "harness: script:agent.sh\n    settings: {harbor_agent: 'our_agents.kestrel:KestrelAgent'}")
    done = export_benchmark_harbor(load_benchmark(path), out)
    job = probe("job", done.job_config)
    assert job["import_paths"] == [None, None, "our_agents.kestrel:KestrelAgent"]
    assert job["agents"][2] == {"name": None, "model_name": "local-model", "resume_trajectory": True}

    # Two systems Harbor would run alike cannot be told apart in its trials.
    replace_in(path.parent, "benchmark.yaml", "model: gpt-5.6\n", f"model: {CLAUDE_MODEL}\n")
    replace_in(path.parent, "benchmark.yaml", "harness: codex", "harness: claude-code")
    replace_in(path.parent, "benchmark.yaml", f"harbor_model: {CODEX_MODEL}, ", "")
    with pytest.raises(BenchmarkHarborError, match=f"systems claude and codex are both Harbor agent claude-code "
                                                   f"with model {CLAUDE_MODEL}"):
        export_benchmark_harbor(load_benchmark(path), tmp_path / "other")


def test_a_bad_benchmark_or_an_out_folder_with_files_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = benchmark(tmp_path / "bench", BENCHMARK.replace("system: codex, project", "system: codx, project"))
    code, _, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path), str(tmp_path / "harbor"))
    assert code == 2
    line = line_of(path.read_text(encoding="utf-8"), "system: codx")
    assert f"{path}:{line}:" in stderr and "no system 'codx'" in stderr
    replace_in(path.parent, "benchmark.yaml", "codx", "codex")
    out = write(tmp_path / "full", "keep.txt", "mine\n").parent
    code, _, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path), str(out))
    assert code == 2 and "not an empty folder" in stderr
    inside = path.parent / "p01" / "harbor"
    code, _, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path), str(inside))
    assert code == 2 and f"{inside} is inside the project folder" in stderr and not inside.exists()
    code, _, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path))
    assert code == 2 and "dbstudio benchmark export harbor BENCH OUT" in stderr
    code, _, stderr = run_cli(capsys, "benchmark", "status", str(path), "--attempts", "2")
    assert code == 2 and "go with `benchmark export harbor`" in stderr
    code, _, stderr = run_cli(capsys, "benchmark", "import", "harbor", str(path), str(tmp_path))
    assert code == 2 and f"{tmp_path}: not a Harbor job directory" in stderr


def _workspace(trial: str, step: str) -> dict[str, str]:
    files = {"brief.md": "# Brief\n", "outputs/report.md": f"# Report of {trial} after {step}\n"}
    if step != "T01":
        files["materials/M03.md"] = f"# Reviewer questions ({trial})\n"
    return files


def _trial(name: str, project: str, agent: str, model: str, minute: int, steps_done: int = 3) -> dict[str, Any]:
    steps = [{"name": step, "started_at": f"2026-11-30T10:{minute + 3 * i:02d}:00+00:00",
              "finished_at": f"2026-11-30T10:{minute + 3 * i + 2:02d}:00+00:00", "tokens": [100, 10, 20],
              "verified": True} for i, step in enumerate(("T01", "T02", "T03")[:steps_done])]
    return {"name": name, "agent": agent, "model": model, "task_path": project, "task_name": f"dbstudio/{project}",
            "started_at": f"2026-11-30T10:{minute:02d}:00+00:00",
            "finished_at": f"2026-11-30T10:{minute + 9:02d}:00+00:00", "steps": steps}


TRIALS = [
    _trial(f"{P01}__claude1", P01, "claude-code", CLAUDE_MODEL, 0, steps_done=2),  # stopped after T02
    _trial(f"{P01}__claude2", P01, "claude-code", CLAUDE_MODEL, 1),  # a second attempt of the pair, complete
    _trial(f"{P01}__codex1", P01, "codex", CODEX_MODEL, 2),
    _trial(f"{P02}__claude1", P02, "claude-code", CLAUDE_MODEL, 3),
    _trial(f"{P02}__codex1", P02, "codex", CODEX_MODEL, 4),  # the pair has a reported local run
    _trial(f"{P02}__gemini1", P02, "gemini-cli", "google/gemini-3-pro", 5),  # no system of the benchmark
]


def _job(tmp_path: Path, trials: list[dict[str, Any]] | None = None) -> tuple[Path, Path]:
    """The benchmark exported, then the job `harbor run -c job.yaml` would leave in OUT/jobs/, written
    by Harbor's own models, each step's collected workspace with test.sh's hash listing of it."""
    path = benchmark(tmp_path / "bench")
    done = export_benchmark_harbor(load_benchmark(path), tmp_path / "harbor")
    spec = {"jobs_dir": str(done.out / "jobs"), "job_name": "2026-11-30__10-00-00", "job_id": str(uuid.uuid4()),
            "agent": "claude-code", "agent_version": "2.0.31", "model": CLAUDE_MODEL, "task_path": P01,
            "task_name": f"dbstudio/{P01}", "trials": TRIALS if trials is None else trials, "started_at": "2026-11-30T10:00:00+00:00",
            "finished_at": "2026-11-30T11:00:00+00:00"}
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    made = probe("make-job", tmp_path / "spec.json")
    for trial, layout in made["trials"].items():
        for step, folders in layout["steps"].items():
            files = _workspace(trial, step)
            listing = []
            for rel, text in files.items():
                write(Path(folders["artifacts"]) / "workspace", rel, text)
                listing.append(f"{hashlib.sha256(text.encode()).hexdigest()}  ./{rel}")
            write(Path(folders["verifier"]), "workspace.sha256", "\n".join(listing) + "\n")
    return path, Path(made["job_dir"])


def test_each_trial_lands_in_its_project_with_its_system_and_in_the_outcomes_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path, job_dir = _job(tmp_path)
    code, stdout, stderr = run_cli(capsys, "benchmark", "import", "harbor", str(path), str(job_dir))
    # the gemini trial is no system of the benchmark: named, not imported, and the exit says so
    assert code == 1, stderr
    assert (f"{P02}__gemini1: not imported, it ran Harbor agent gemini-cli with model google/gemini-3-pro, "
            "which is no system of the benchmark") in stdout
    assert "claude = claude-code with anthropic/claude-sonnet-4-5" in stdout

    runs: dict[str, tuple[str, str]] = {}  # trial -> (project, system)
    run_ids: dict[str, str] = {}
    for name in ("p01", "p02"):
        for _, record in list_runs(path.parent / name / "runs"):
            partial = record.origin["trial"] == f"{P01}__claude1"
            assert (record.status != RunStatus.COMPLETED and record.progress() == (2, 3) if partial
                    else record.status == RunStatus.COMPLETED and record.progress() == (3, 3))
            assert record.system is not None
            runs[record.origin["trial"]] = (record.project_id, record.system.id)
            run_ids[record.origin["trial"]] = record.run_id
            expected_model = CLAUDE_MODEL if record.system.id == "claude" else "gpt-5.6"
            assert record.system.model == expected_model and record.harness.startswith("harbor:")
    assert runs == {f"{P01}__claude1": (P01, "claude"), f"{P01}__claude2": (P01, "claude"),
                    f"{P01}__codex1": (P01, "codex"), f"{P02}__claude1": (P02, "claude"),
                    f"{P02}__codex1": (P02, "codex")}

    loaded = load_benchmark(path)
    assert loaded.errors == []
    outcomes = [(o.system, o.project, o.submission, o.selected) for o in loaded.benchmark.outcomes]
    assert outcomes == [
        ("codex", P02, "20261101-090000-aa11bb", True),
        ("claude", P01, run_ids[f"{P01}__claude2"], True),  # the complete attempt is the one reported
        ("codex", P01, run_ids[f"{P01}__codex1"], True),
        ("claude", P01, run_ids[f"{P01}__claude1"], False),  # stopped part-way: kept, with its reason
        ("claude", P02, run_ids[f"{P02}__claude1"], True),
        ("codex", P02, run_ids[f"{P02}__codex1"], False),
    ]
    reasons = [o.reason for o in loaded.benchmark.outcomes if not o.selected]
    assert all(r is not None and "imported from Harbor job" in r and "pair already reported" in r for r in reasons)
    text = path.read_text(encoding="utf-8")
    assert "# a local run of codex on p02" in text  # the file's comments survive, as `benchmark run` keeps them

    # Importing the same job again adds nothing, and still names the trial it cannot place.
    code, stdout, _ = run_cli(capsys, "benchmark", "import", "harbor", str(path), str(job_dir))
    assert code == 1 and f"{P02}__gemini1: not imported" in stdout
    assert stdout.count("already imported") == 5
    assert path.read_text(encoding="utf-8") == text
    assert sum(len(list_runs(path.parent / name / "runs")) for name in ("p01", "p02")) == 5


def test_without_the_exports_systems_file_the_trials_map_by_benchmark_yaml(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]):
    path, job_dir = _job(tmp_path)
    (tmp_path / "harbor" / "systems.yaml").unlink()
    code, stdout, _ = run_cli(capsys, "benchmark", "import", "harbor", str(path), str(job_dir), "--format", "json")
    assert code == 1
    report = json.loads(stdout)
    placed = {(t["project"], t["trial"]): t["action"] for t in report["trials"]}
    assert placed[(P01, f"{P01}__codex1")] == "imported"
    assert placed[(P02, f"{P02}__gemini1")] == "unknown system"
    assert f"the systems of {path}" in next(t["message"] for t in report["trials"] if t["trial"].endswith("gemini1"))
    assert len(report["outcomes"]) == 5


def test_the_job_runs_from_any_folder_resumes_as_asked_and_the_image_is_checked_for_bash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = benchmark(tmp_path / "bench")
    out = tmp_path / "harbor"
    code, _, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path), str(out), "--image",
                              "dbstudio/test-busybox:1")
    assert code == 2 and "dbstudio/test-busybox:1" in stderr and "bash" in stderr and not out.exists()
    code, _, stderr = run_cli(capsys, "benchmark", "export", "harbor", str(path), str(out), "--no-image-check",
                              "--no-resume-trajectory")
    assert code == 0, stderr
    job = yaml.safe_load((out / "job.yaml").read_text(encoding="utf-8"))
    assert job["jobs_dir"] == str(out / "jobs")
    assert [task["path"] for task in job["tasks"]] == [str(out / P01), str(out / P02)]
    assert [agent["resume_trajectory"] for agent in job["agents"]] == [False, False]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    printed = harbor_cli("run", "-c", str(out / "job.yaml"), "--print-config", cwd=elsewhere)
    assert printed.returncode == 0, printed.stderr
    assert str(out / P01) in printed.stdout and str(out / "jobs") in printed.stdout
    code, _, stderr = run_cli(capsys, "benchmark", "status", str(path), "--no-image-check")
    assert code == 2 and "go with `benchmark export harbor`" in stderr


def test_an_outcome_of_a_trial_harbor_cancelled_and_ran_again_is_replaced_by_the_rerun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    import shutil

    from studio.runs import harbor_import

    cancelled = {**_trial(f"{P01}__claude1", P01, "claude-code", CLAUDE_MODEL, 0, steps_done=1),
                 "exception": {"type": "CancelledError", "message": "", "at": "2026-11-30T10:59:00+00:00"}}
    rerun = _trial(f"{P01}__claude2", P01, "claude-code", CLAUDE_MODEL, 20)
    path, job_dir = _job(tmp_path, [cancelled, _trial(f"{P01}__codex1", P01, "codex", CODEX_MODEL, 2), rerun])
    later = tmp_path / "later"
    shutil.move(job_dir / rerun["name"], later)  # the rerun does not exist yet at the first import
    with monkeypatch.context() as earlier:  # imported before cancelled trials were recognised
        earlier.setattr(harbor_import, "cancellation", lambda result: None)
        code, _, stderr = run_cli(capsys, "benchmark", "import", "harbor", str(path), str(job_dir))
    assert code == 0, stderr
    stale = next(o.submission for o in load_benchmark(path).benchmark.outcomes if o.system == "claude")
    # `harbor job resume` deletes the cancelled trial and runs it again under a new name
    shutil.rmtree(job_dir / f"{P01}__claude1")
    shutil.move(later, job_dir / rerun["name"])
    code, stdout, stderr = run_cli(capsys, "benchmark", "import", "harbor", str(path), str(job_dir))
    assert code == 0, stdout + stderr
    assert f"outcome claude on {P01}: {stale} taken out" in stdout
    loaded = load_benchmark(path)
    assert loaded.errors == []
    claude = [(o.submission, o.selected) for o in loaded.benchmark.outcomes if o.system == "claude"]
    assert len(claude) == 1 and claude[0][0] != stale and claude[0][1]  # the rerun is the reported outcome
    assert not (path.parent / "p01" / "runs" / stale).exists()
    assert "# a local run of codex on p02" in path.read_text(encoding="utf-8")
