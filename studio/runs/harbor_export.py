"""`dbstudio export harbor`: a project as a Harbor multi-step task, and a job config to run it.

One `[[steps]]` entry per subtask in timeline order. Each step's `workdir/` holds what the
release schedule puts in the workspace before it (the brief and the start materials on the
first step), and `setup.sh` when a generated release is due; the step's agent timeout is the
subtask's time limit. Only the files a local run would put in a container are exported (the
run plan never names an evaluator file), and a last check by content hash refuses an export
holding any evaluator reference, expert note or rubric.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml

from studio.runs import harbor_toml
from studio.runs.errors import RunError
from studio.runs.harbor_format import (
    AGENT_FAILURES,
    DEFAULT_AGENT,
    DEFAULT_IMAGE,
    ENVIRONMENTS,
    JOB_CONFIG,
    METADATA_KEY,
    PAPER_CPUS,
    PAPER_MEMORY_MB,
    VERIFIER_TIMEOUT_S,
    WORKSPACE,
    WORKSPACE_ARTIFACT,
    task_name,
)
from studio.runs.harbor_scripts import TEST_SCRIPT, setup_dir_path, setup_script
from studio.runs.plan import BRIEF_IN_WORKSPACE, RunPlan, SubtaskPlan, checked_plan, project_revision
from studio.runs.scripts import interpreter_for
from studio.store import layout


class ExportError(RunError):
    """The project cannot be exported as a Harbor task; the message says why and what to do."""


@dataclass(frozen=True)
class HarborSettings:
    image: str | None = None  # the environment's base image; None: DEFAULT_IMAGE
    agent_timeout_scale: float = 1.0  # multiplies every subtask's time limit
    environment: str = "docker"  # Harbor's environment type in the job config
    agent: str = DEFAULT_AGENT
    model: str | None = None
    attempts: int = 1  # trials of the task in one job
    cpus: float = PAPER_CPUS
    memory_mb: int = PAPER_MEMORY_MB
    # One agent session across the steps (Harbor's resume_trajectory), as in a local run; an agent
    # without resume support (Harbor's offline `nop`, `oracle`) needs it off.
    resume_trajectory: bool = True
    # Start `bash -c` in the image on the local engine first (harbor_image.py); the command line
    # turns it on unless told --no-image-check.
    check_image: bool = False


@dataclass(frozen=True)
class HarborExport:
    out: Path
    task_dir: Path
    job_config: Path
    steps: tuple[str, ...]
    files: int


def export_harbor(project_dir: Path, out: Path, settings: HarborSettings | None = None) -> HarborExport:
    """Write the task to `out/<project id>/` and the job config to `out/job.yaml`; `out` must be
    new or empty. Everything is written beside `out` first, so a failure leaves nothing half-made."""
    settings = settings or HarborSettings()
    _check_settings(settings)
    project_dir = Path(project_dir).resolve()
    project_id, title, plan = _load(project_dir)
    out = Path(out).resolve()
    if out == project_dir or project_dir in out.parents:
        raise ExportError(
            f"{out} is inside the project folder {project_dir}: the export would add its task's "
            "files to the project as untracked files; give a folder outside it, e.g. "
            f"{project_dir.parent / (project_id + '-harbor')}"
        )
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"{out} already exists and is not an empty folder: give a new folder for the export")
    if settings.check_image:
        from studio.runs.harbor_image import check_image

        check_image(settings.image or DEFAULT_IMAGE, needs_python(project_dir, plan))
    staging = out.parent / f".{out.name}.export-{secrets.token_hex(3)}"
    try:
        staging.mkdir(parents=True)
        task_dir = staging / project_id
        _write_task(task_dir, project_dir, project_id, title, plan, settings)
        _write_job_config(staging / JOB_CONFIG, out, project_id, settings)
        _refuse_leaks(staging, project_dir)
        files = publish_staged(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return HarborExport(out, out / project_id, out / JOB_CONFIG, tuple(s.subtask for s in plan.subtasks), files)


def _check_settings(settings: HarborSettings) -> None:
    if settings.environment not in ENVIRONMENTS:
        raise ExportError(f"unknown environment {settings.environment!r}: use one of {', '.join(ENVIRONMENTS)}")
    if not settings.agent_timeout_scale > 0:
        raise ExportError(f"--agent-timeout-scale must be above 0, not {settings.agent_timeout_scale}")
    if settings.attempts < 1:
        raise ExportError(f"--attempts must be at least 1, not {settings.attempts}")
    if not settings.cpus > 0 or settings.memory_mb < 1:
        raise ExportError(f"--cpus and --memory-mb must be above 0, not {settings.cpus} and {settings.memory_mb}")


def needs_python(project_dir: Path, plan: RunPlan) -> bool:
    """Whether a generated release's script starts with python (the image must then have python3)."""
    scripts = {release.script for step in plan.subtasks for release in step.generated}
    return any("python" in word for script in scripts for word in interpreter_for(project_dir / script))


def _load(project_dir: Path) -> tuple[str, str, RunPlan]:
    loaded, plan = checked_plan(project_dir, ExportError, "the task")
    info = loaded.project.info
    assert info is not None  # plan_run refuses a project without it
    return info.id, info.title, plan


def step_timeout_s(step: SubtaskPlan, scale: float) -> float:
    return float(step.time_limit_minutes * 60 * scale)


def _task_document(
    project_dir: Path, project_id: str, title: str, plan: RunPlan, settings: HarborSettings
) -> dict[str, object]:
    commit, dirty = project_revision(project_dir)
    origin: dict[str, object] = {
        "project_id": project_id,
        "project_dirty": dirty,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "agent_timeout_scale": settings.agent_timeout_scale,
        "subtasks": [step.subtask for step in plan.subtasks],
        "time_limit_minutes": {step.subtask: step.time_limit_minutes for step in plan.subtasks},
    }
    if commit:
        origin["project_commit"] = commit
    return {
        "schema_version": "1.4",
        # Harbor collects the workspace after every step into steps/<step>/artifacts/workspace/:
        # the step's checkpoint, read back by `dbstudio import harbor`.
        "artifacts": [{"source": WORKSPACE, "destination": WORKSPACE_ARTIFACT}],
        "task": {"name": task_name(project_id), "description": title},
        "metadata": {METADATA_KEY: origin},
        "verifier": {"timeout_sec": VERIFIER_TIMEOUT_S},
        "environment": {
            "build_timeout_sec": 1800.0,
            "cpus": _number(settings.cpus),
            "memory_mb": settings.memory_mb,
            "workdir": WORKSPACE,
        },
        "steps": [
            {
                "name": step.subtask,
                "agent": {"timeout_sec": step_timeout_s(step, settings.agent_timeout_scale)},
                "verifier": {"timeout_sec": VERIFIER_TIMEOUT_S},
            }
            for step in plan.subtasks
        ],
    }


def _number(value: float) -> int | float:
    """2.0 as 2, as Harbor itself writes a whole number of CPUs."""
    return int(value) if float(value).is_integer() else value


TASK_COMMENT = """\
Harbor multi-step task written by `dbstudio export harbor` from project {project_id}.
One step per subtask, in timeline order; each step's agent timeout is the subtask's time limit
(x {scale}). Scores do not come from Harbor: import the job with `dbstudio import harbor`."""



def publish_staged(staging: Path, out: Path) -> int:
    """Put the folder written at `staging` (beside `out`) in place as `out`, new or an empty folder, in
    one rename; the number of files it holds."""
    files = sum(1 for path in staging.rglob("*") if path.is_file())
    if out.exists():
        out.rmdir()
    os.replace(staging, out)
    return files


def _write_task(
    task_dir: Path, project_dir: Path, project_id: str, title: str, plan: RunPlan, settings: HarborSettings
) -> None:
    document = _task_document(project_dir, project_id, title, plan, settings)
    comment = TASK_COMMENT.format(project_id=project_id, scale=settings.agent_timeout_scale)
    _write_text(task_dir / "task.toml", harbor_toml.dumps(document, comment))
    image = settings.image or DEFAULT_IMAGE
    _write_text(
        task_dir / "environment" / "Dockerfile",
        f"# The agent's environment for {project_id}, written by `dbstudio export harbor`.\n"
        "# Harbor runs each step's setup.sh with bash, and the project's scripts need python3.\n"
        f"FROM {image}\nWORKDIR {WORKSPACE}\n",
    )
    for step in plan.subtasks:
        step_dir = task_dir / "steps" / step.subtask
        _copy(project_dir / step.instruction, step_dir / "instruction.md")
        _write_text(step_dir / "tests" / "test.sh", TEST_SCRIPT, executable=True)
        workdir = step_dir / "workdir"
        if step.position == 1:
            _copy(project_dir / plan.brief, workdir / BRIEF_IN_WORKSPACE)
        for release in step.releases:
            _copy(project_dir / release.source, workdir / release.dest)
        if step.generated:
            for script in sorted({release.script for release in step.generated}):
                _copy(project_dir / script, workdir / setup_dir_path(script))
            _write_text(workdir / "setup.sh", setup_script(step.subtask, step.generated, project_dir), executable=True)


JOB_COMMENT = """\
# Harbor job for {name}, written by `dbstudio export harbor`. Run it from any folder:
#   harbor run -c {job}            (add -k 100 for 100 trials, -n 8 for 8 at a time)
# Its paths are absolute, since Harbor reads them from the folder it runs in: export again
# after moving this folder.
# The agent's API key comes from your environment (e.g. ANTHROPIC_API_KEY for claude-code);
# a cloud environment needs its own key too (docs/scale-out.md). Then bring the trials back:
#   dbstudio import harbor {jobs}/<job name> PROJECT
"""


def stop_on_agent_failure() -> dict[str, dict[str, bool]]:
    """The job config's `override_error_policy`: an agent failure is not graded, so Harbor stops the
    trial at that step (it goes on after a step that has a verifier result, and the placeholder
    verifier always gives one); a timeout is still graded, and the trial goes on, as locally."""
    return {name: {"should_grade": False} for name in AGENT_FAILURES}


def _write_job_config(path: Path, out: Path, project_id: str, settings: HarborSettings) -> None:
    agent: dict[str, object] = {"name": settings.agent}
    if settings.model:
        agent["model_name"] = settings.model
    agent["resume_trajectory"] = settings.resume_trajectory
    # Absolute: Harbor takes both paths from the folder it is run in, not from the job file's.
    config = {
        "jobs_dir": str(out / "jobs"),
        "n_attempts": settings.attempts,
        "override_error_policy": stop_on_agent_failure(),
        "environment": {"type": settings.environment, "delete": True},
        "agents": [agent],
        "tasks": [{"path": str(out / project_id)}],
    }
    text = JOB_COMMENT.format(name=task_name(project_id), job=out / JOB_CONFIG, jobs=out / "jobs")
    _write_text(path, text + yaml.safe_dump(config, sort_keys=False))


def _write_text(path: Path, text: str, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    if executable:
        path.chmod(0o755)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def evaluator_files(project_dir: Path) -> list[Path]:
    """Every file an agent must never see: evaluator references and notes, and the rubrics."""
    found = [path for path in (project_dir / layout.EVALUATOR_DIR).rglob("*") if path.is_file()]
    found += [layout.checkpoint_rubric_file(project_dir, folder.name) for folder in layout.subtask_folders(project_dir)]
    found.append(project_dir / layout.FINAL_RUBRIC_FILE)
    return sorted(path for path in found if path.is_file())


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _refuse_leaks(export_dir: Path, project_dir: Path) -> None:
    secret = {_sha256(path): path for path in evaluator_files(project_dir) if path.stat().st_size > 0}
    for path in sorted(export_dir.rglob("*")):
        if path.is_file() and path.stat().st_size > 0:
            source = secret.get(_sha256(path))
            if source is not None:
                raise ExportError(
                    f"{path.relative_to(export_dir)} has the content of the evaluator-only file "
                    f"{source.relative_to(project_dir)}: nothing was exported; move that content "
                    "out of the materials or instructions"
                )
