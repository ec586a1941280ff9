"""`dbstudio export harbor`: the sample as a Harbor multi-step task, checked with Harbor's own models
(the current Harbor from PyPI, in its own Python 3.12 environment), with no evaluator content."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from studio.bundled import samples_dir
from studio.runs.harbor_export import ExportError, HarborSettings, evaluator_files, export_harbor
from studio.runs.plan import plan_run
from studio.store.loader import load_project
from tests.helpers import run_cli, write
from tests.runs.harbor_env import harbor_cli, probe
from tests.runs.projects import SECRET_REFERENCE, three_subtask_project

SAMPLE = "kestrel-refinancing"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sample, so the export's commit lookup and checks see a folder of its own."""
    return Path(shutil.copytree(samples_dir() / SAMPLE, tmp_path_factory.mktemp("sample") / SAMPLE))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_harbor_loads_the_sample_export_with_its_steps_in_timeline_order_their_timeouts_and_workdirs(
    sample: Path, tmp_path: Path
):
    out = tmp_path / "export"
    done = export_harbor(sample, out)
    project = load_project(sample).project
    plan = plan_run(project)
    task = probe("task", done.task_dir)

    assert task["name"] == f"dbstudio/{SAMPLE}" and task["valid"] and task["has_steps"]
    assert [step["name"] for step in task["steps"]] == project.timeline()
    assert (task["cpus"], task["memory_mb"], task["workdir"]) == (2, 8192, "/workspace")
    assert {"source": "/workspace", "destination": "workspace"}.items() <= task["artifacts"][0].items()
    for step, harbor_step in zip(plan.subtasks, task["steps"], strict=True):
        subtask = project.subtasks[step.subtask]
        assert harbor_step["agent_timeout_sec"] == subtask.time_limit_minutes * 60
        assert harbor_step["instruction"] == (sample / step.instruction).read_text(encoding="utf-8")
        assert harbor_step["test"] == f"steps/{step.subtask}/tests/test.sh"
        expected = {release.dest for release in step.releases}
        if step.position == 1:
            expected.add("brief.md")
        if step.generated:
            expected |= {"setup.sh"} | {f".dbstudio-setup/{g.script}" for g in step.generated}
        assert set(harbor_step["workdir"]) == expected, step.subtask
        assert harbor_step["setup"] == bool(step.generated)
    # The sample's one generated release (M14, the lenders' questions) is due before T08.
    assert [s["name"] for s in task["steps"] if s["setup"]] == ["T08"]
    # Each workdir file is the project's file, byte for byte.
    first = plan.subtasks[0]
    for release in first.releases:
        assert _sha256(done.task_dir / "steps" / first.subtask / "workdir" / release.dest) == _sha256(
            sample / release.source
        )

    job = probe("job", done.job_config)
    assert job["agents"] == [{"name": "claude-code", "model_name": None, "resume_trajectory": True}]
    assert (job["environment"], job["tasks"], job["n_attempts"]) == ("docker", [str(out / SAMPLE)], 1)
    # By Harbor's own error policy: an agent's non-zero exit is not graded, so the trial stops at that
    # step (Harbor goes on after a step with a verifier result); a timeout is graded and it goes on.
    assert job["graded"] == {"NonZeroAgentExitCodeError": False, "AgentTimeoutError": True}
    # Harbor's own command line builds the job from the config, as `harbor run -c` would, here from
    # another folder: Harbor reads the paths from the folder it runs in, so they are absolute.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shown = harbor_cli("run", "-c", str(done.job_config), "--print-config", cwd=elsewhere)
    assert shown.returncode == 0, shown.stderr
    config = json.loads(shown.stdout[shown.stdout.index("{") :])
    assert config["agents"][0]["resume_trajectory"] is True
    assert config["environment"]["type"] == "docker" and config["tasks"][0]["path"] == str(out / SAMPLE)
    assert config["jobs_dir"] == str(out / "jobs")
    # An agent failure other than a timeout is not graded, so Harbor stops the trial at that step.
    policy = config["override_error_policy"]
    assert policy["NonZeroAgentExitCodeError"]["should_grade"] is False and "AgentTimeoutError" not in policy


def test_the_command_scales_timeouts_and_picks_a_cloud_environment_and_an_agent(
    sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    out = tmp_path / "daytona"
    code, stdout, stderr = run_cli(
        capsys,
        "export",
        "harbor",
        str(sample),
        str(out),
        "--agent-timeout-scale",
        "0.5",
        "--environment",
        "daytona",
        "--agent",
        "codex",
        "--model",
        "openai/gpt-5",
        "--attempts",
        "100",
        "--image",
        "dbstudio/agent-base:1",
        "--cpus",
        "4",
        "--memory-mb",
        "16384",
        "--no-image-check",  # a cloud environment's image, not on this engine
    )
    assert code == 0, stderr
    assert f"harbor run -c {out / 'job.yaml'}" in stdout
    task = probe("task", out / SAMPLE)
    project = load_project(sample).project
    assert [s["agent_timeout_sec"] for s in task["steps"]] == [
        project.subtasks[sid].time_limit_minutes * 30 for sid in project.timeline()
    ]
    assert task["metadata"]["dbstudio"]["agent_timeout_scale"] == 0.5
    assert (task["cpus"], task["memory_mb"]) == (4, 16384)
    job = probe("job", out / "job.yaml")
    assert job["agents"] == [{"name": "codex", "model_name": "openai/gpt-5", "resume_trajectory": True}]
    assert (job["environment"], job["n_attempts"]) == ("daytona", 100)
    assert (out / SAMPLE / "environment" / "Dockerfile").read_text().splitlines()[2:] == [
        "FROM dbstudio/agent-base:1",
        "WORKDIR /workspace",
    ]


def test_no_evaluator_reference_rubric_or_expert_note_is_in_the_export_by_content_hash(sample: Path, tmp_path: Path):
    done = export_harbor(sample, tmp_path / "export")
    secret = {_sha256(path): path for path in evaluator_files(sample)}
    names = {path.relative_to(sample).as_posix() for path in secret.values()}
    assert {
        "evaluator/references.yaml",
        "evaluator/expert-notes.md",
        "final/rubric.yaml",
        "subtasks/T01/rubric.yaml",
    } <= names
    assert len([n for n in names if n.startswith("evaluator/")]) == len(
        [p for p in (sample / "evaluator").rglob("*") if p.is_file()]
    )
    exported = {path: _sha256(path) for path in done.out.rglob("*") if path.is_file()}
    assert len(exported) == done.files > 20
    leaked = {path: secret[digest] for path, digest in exported.items() if digest in secret}
    assert leaked == {}
    # Nor any project definition file that carries author notes (materials.yaml holds them).
    project_files = {_sha256(sample / name) for name in ("materials.yaml", "project.yaml", "stages.yaml")}
    assert not project_files & set(exported.values())


def test_an_evaluator_reference_copied_into_a_material_stops_the_export(tmp_path: Path):
    root = three_subtask_project(tmp_path / "p")
    write(root, "materials/source-notes.md", SECRET_REFERENCE)
    out = tmp_path / "export"
    with pytest.raises(ExportError, match="evaluator-only file evaluator/reference-notes.md"):
        export_harbor(root, out)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["p"]  # nothing half-written beside it either


def test_an_export_never_replaces_a_folder_with_files_in_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    root = three_subtask_project(tmp_path / "p")
    out = tmp_path / "out"
    write(out, "keep.txt", "mine\n")
    code, _, stderr = run_cli(capsys, "export", "harbor", str(root), str(out), "--no-image-check")
    assert code == 2 and "not an empty folder" in stderr
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    with pytest.raises(ExportError, match="unknown environment 'kubernetes'"):
        export_harbor(root, tmp_path / "new", HarborSettings(environment="kubernetes"))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert export_harbor(root, empty).steps == ("T01", "T02", "T03")


def test_an_export_into_the_project_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    root = three_subtask_project(tmp_path / "p")
    for inside in (root / "harbor", root, root / "runs" / "export"):
        code, _, stderr = run_cli(capsys, "export", "harbor", str(root), str(inside))
        assert code == 2, stderr
        assert f"{inside} is inside the project folder {root}" in stderr
        assert "untracked" in stderr and str(tmp_path / "new-project-harbor") in stderr  # beside it, by its id
    assert not (root / "harbor").exists() and not (root / "runs").exists()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True)
    assert status.stdout == ""
    assert export_harbor(root, tmp_path / "beside").steps == ("T01", "T02", "T03")


def _run_setup_in_container(docker_engine: Any, test_image: str, workspace: Path, log: Path) -> Any:
    from studio.runs.engine import ContainerSpec, Mount

    # Harbor runs `bash setup.sh` in the workspace; the test image's busybox shell reads the same file.
    command = ["sh", "-c", "if command -v bash >/dev/null 2>&1; then exec bash setup.sh; else exec sh setup.sh; fi"]
    spec = ContainerSpec(
        image=test_image,
        command=command,
        workdir="/workspace",
        env={},
        mounts=[Mount(workspace, "/workspace", False)],
        cpus=1.0,
        memory="1g",
        network=False,
        timeout_s=120.0,
        labels={"dbstudio.test": "harbor-setup"},
        user=f"{os.getuid()}:{os.getgid()}",
    )
    return docker_engine.run(spec, log=log)


@pytest.mark.parametrize(
    "presentation",
    [
        "# Lender presentation\n\nFY2025 EBITDA of EUR 41.8m; opening leverage 4.01x.\n",
        "# Lender presentation\n\nEBITDA 38.9; net leverage 4.31x. Margin 3.25%. Sources and uses attached. "
        "Venlo permit condition 7: tank works, cost 1.8m. Downside case shown. Hedging 75%.\n",
    ],
)
def test_a_generated_release_runs_its_script_in_a_container_against_the_agents_file(
    docker_engine: Any, test_image: str, sample: Path, tmp_path: Path, presentation: str
):
    done = export_harbor(sample, tmp_path / "export")
    workdir = done.task_dir / "steps" / "T08" / "workdir"
    workspace = tmp_path / "workspace"
    write(workspace, "outputs/lender_presentation.md", presentation)  # what the agent left after T07
    shutil.copytree(workdir, workspace, dirs_exist_ok=True)  # what Harbor uploads before T08
    result = _run_setup_in_container(docker_engine, test_image, workspace, tmp_path / "setup.log")
    assert (result.exit_code, result.timed_out) == (0, False), (tmp_path / "setup.log").read_text()

    # The material is what the project's script writes from that presentation, run here on the host.
    expected = tmp_path / "expected.md"
    subprocess.run(
        [
            sys.executable,
            str(sample / "scripts" / "lender_questions.py"),
            str(workspace / "outputs" / "lender_presentation.md"),
            str(expected),
        ],
        check=True,
    )
    written = workspace / "materials" / "M14.md"
    assert written.read_bytes() == expected.read_bytes()
    assert "lender" in written.read_text(encoding="utf-8").lower()
    # The agent's file is untouched, and the script and setup.sh are gone before the agent starts.
    assert (workspace / "outputs" / "lender_presentation.md").read_text(encoding="utf-8") == presentation
    assert not (workspace / "setup.sh").exists() and not (workspace / ".dbstudio-setup").exists()
    assert (workspace / "materials" / "lender-credit-status-update.md").is_file()


def test_the_two_presentations_draw_different_questions(sample: Path, tmp_path: Path):
    """The round trip above would prove little if the script wrote the same material whatever it read."""
    outputs = []
    for number, text in enumerate(["leverage 4.01x on EBITDA 41.8", "EBITDA 38.9, leverage 4.31x, downside case"]):
        source, target = tmp_path / f"in{number}.md", tmp_path / f"out{number}.md"
        source.write_text(text, encoding="utf-8")
        subprocess.run(
            [sys.executable, str(sample / "scripts" / "lender_questions.py"), str(source), str(target)], check=True
        )
        outputs.append(target.read_text(encoding="utf-8"))
    assert outputs[0] != outputs[1]


def test_each_steps_test_sh_writes_a_placeholder_reward_and_the_workspace_hashes_the_import_reads(
    docker_engine: Any, test_image: str, sample: Path, tmp_path: Path
):
    from studio.runs.engine import ContainerSpec, Mount
    from studio.runs.harbor_job import read_hashes

    done = export_harbor(sample, tmp_path / "export")
    test_sh = done.task_dir / "steps" / "T03" / "tests" / "test.sh"
    workspace, verifier = tmp_path / "workspace", tmp_path / "verifier"
    write(workspace, "outputs/model.md", "the model\n")
    write(workspace, "materials/name with spaces.md", "released\n")
    verifier.mkdir()
    spec = ContainerSpec(
        image=test_image,
        command=["sh", "/tests/test.sh"],
        workdir="/workspace",
        mounts=[
            Mount(workspace, "/workspace", False),
            Mount(test_sh, "/tests/test.sh", True),
            Mount(verifier, "/logs/verifier", False),
        ],
        cpus=1.0,
        memory="1g",
        timeout_s=120.0,
        labels={"dbstudio.test": "harbor-test-sh"},
        user=f"{os.getuid()}:{os.getgid()}",
    )
    result = docker_engine.run(spec, log=tmp_path / "test.log")
    assert result.exit_code == 0, (tmp_path / "test.log").read_text()
    assert json.loads((verifier / "reward.json").read_text()) == {"reward": 0, "placeholder": 1}
    assert "placeholder reward" in (tmp_path / "test.log").read_text()
    assert read_hashes(verifier / "workspace.sha256") == {
        "outputs/model.md": hashlib.sha256(b"the model\n").hexdigest(),
        "materials/name with spaces.md": hashlib.sha256(b"released\n").hexdigest(),
    }


def _derived_image(engine_url: str, tag: str, base: str, run: str) -> str:
    """A local image FROM `base` with one RUN line, built without a registry."""
    built = subprocess.run(
        ["docker", "build", "-q", "-t", tag, "-"],
        input=f"FROM {base}\nRUN {run}\n",
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "DOCKER_HOST": engine_url},
    )
    assert built.returncode == 0, built.stderr
    return tag


# The test image has busybox's sh and python3 but no bash; this stands in for one with bash.
BASH_SHIM = "printf '#!/bin/sh\\nexec /bin/sh \"$@\"\\n' > /bin/bash && chmod 755 /bin/bash"


def test_the_image_is_checked_for_bash_and_for_python3_before_the_export(
    docker_engine: Any, test_image: str, sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    out = tmp_path / "export"
    code, _, stderr = run_cli(capsys, "export", "harbor", str(sample), str(out), "--image", test_image)
    assert code == 2
    assert f"the image {test_image} cannot run bash, and Harbor runs every step's commands with `bash -c`" in stderr
    assert "installs bash" in stderr and not out.exists()

    with_bash = _derived_image(docker_engine.url(), "dbstudio/test-harbor-bash:1", test_image, BASH_SHIM)
    no_python = _derived_image(
        docker_engine.url(), "dbstudio/test-harbor-nopython:1", with_bash, "rm -f /usr/bin/python3 /usr/bin/python3.*"
    )
    # The sample's generated release (M14, before T08) is a python script: the image needs python3.
    code, _, stderr = run_cli(capsys, "export", "harbor", str(sample), str(out), "--image", no_python)
    assert code == 2 and f"the image {no_python} has no python3" in stderr and not out.exists()
    code, stdout, stderr = run_cli(capsys, "export", "harbor", str(sample), str(out), "--image", with_bash)
    assert code == 0, stderr
    assert (out / SAMPLE / "environment" / "Dockerfile").read_text().splitlines()[2] == f"FROM {with_bash}"

    # An image not on this engine cannot be checked: refused, unless the check is turned off.
    cloud = tmp_path / "cloud"
    code, _, stderr = run_cli(capsys, "export", "harbor", str(sample), str(cloud), "--image", "dbstudio/not-here:1")
    assert code == 2 and "dbstudio/not-here:1 is not on the local Docker engine" in stderr
    assert "--no-image-check" in stderr and not cloud.exists()
    code, _, stderr = run_cli(
        capsys, "export", "harbor", str(sample), str(cloud), "--image", "dbstudio/not-here:1", "--no-image-check"
    )
    assert code == 0, stderr


def test_trajectory_resume_is_a_choice_so_an_offline_agent_can_run_the_job(
    sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    out = tmp_path / "nop"
    code, _, stderr = run_cli(
        capsys, "export", "harbor", str(sample), str(out), "--agent", "nop", "--no-resume-trajectory", "--no-image-check"
    )
    assert code == 0, stderr
    job = probe("job", out / "job.yaml")
    assert job["agents"] == [{"name": "nop", "model_name": None, "resume_trajectory": False}]


@pytest.mark.parametrize("flag", [["--format", "json"], ["--json"]])
def test_the_command_prints_json_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
):
    root = three_subtask_project(tmp_path / "p")
    out = tmp_path / "out"
    code, stdout, stderr = run_cli(capsys, "export", "harbor", str(root), str(out), "--no-image-check", *flag)
    assert code == 0, stderr
    printed = json.loads(stdout)
    assert printed["out"] == str(out) and printed["task"] == str(out / "new-project")
    assert printed["job_config"] == str(out / "job.yaml") and printed["steps"] == ["T01", "T02", "T03"]
    assert printed["files"] == sum(1 for path in out.rglob("*") if path.is_file())


M05 = """\
  - id: M05
    title: Second reviewer's questions
    kind: scripted_feedback
    provenance: scenario_assumption
    release:
      at: before
      subtask: T02
    generated:
      script: scripts/second_reviewer.sh
      from:
        - T01:outputs/report.md
"""


@pytest.mark.parametrize(("second", "code", "named"), [
    ("exit 3\n", 11, "M05 (scripts/second_reviewer.sh, from outputs/report.md) failed in the container"),
    ("echo wrote nothing\n", 61, "M05 (scripts/second_reviewer.sh, from outputs/report.md) wrote no file"),
])
def test_a_failed_generated_release_exits_with_a_code_that_names_it(
    docker_engine: Any, test_image: str, tmp_path: Path, second: str, code: int, named: str
):
    """Harbor keeps only setup.sh's exit code: it tells which of a step's releases failed, and how."""
    from studio.runs.harbor_scripts import setup_failure

    root = three_subtask_project(tmp_path / "project", commit=False)
    write(root, "scripts/second_reviewer.sh", "#!/bin/sh\n" + second)
    materials = (root / "materials.yaml").read_text(encoding="utf-8")
    write(root, "materials.yaml", materials.rstrip("\n") + "\n" + M05)
    done = export_harbor(root, tmp_path / "export")
    [t02] = [step for step in plan_run(load_project(root).project).subtasks if step.subtask == "T02"]
    assert [g.material for g in t02.generated] == ["M03", "M05"]
    workspace = tmp_path / "workspace"
    write(workspace, "outputs/report.md", "# Report\n\nThe objective and its source.\n")
    shutil.copytree(done.task_dir / "steps" / "T02" / "workdir", workspace, dirs_exist_ok=True)
    result = _run_setup_in_container(docker_engine, test_image, workspace, tmp_path / "setup.log")
    assert result.exit_code == code, (tmp_path / "setup.log").read_text()
    assert (workspace / "materials" / "M03.md").is_file()  # the first release was written
    # As Harbor words it (its stderr is None: docker exec merges it into stdout).
    message = f"Step 'T02' setup.sh exited with code {result.exit_code}: None"
    assert named in (setup_failure(t02.generated, message) or "")
    assert setup_failure(t02.generated, "AgentTimeoutError: the agent ran out of time") is None
