"""A run's record (`run.json` in its folder): what ran, on which project revision, and what each
subtask left. Written atomically after every change of state, so a run killed at any moment
leaves a record that says how far it got."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from studio.runs.confinement import DEFAULT_PIDS_LIMIT
from studio.runs.errors import RunError
from studio.runs.plan import RunPlan, plan_from_json
from studio.store.atomic import write_atomic

RECORD_FILE = "run.json"
RECORD_VERSION = 1


class RunStatus(str, Enum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"


class SubtaskStatus(str, Enum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    TIMED_OUT = "timed_out"  # the time limit expired: the workspace as left is the checkpoint
    FAILED = "failed"  # the harness exited non-zero: no checkpoint, rerun on resume


DONE = (SubtaskStatus.COMPLETED, SubtaskStatus.TIMED_OUT)


class RunSettings(BaseModel):
    cpus: float = Field(default=2.0, gt=0)
    memory: str = Field(default="8g", pattern=r"^[0-9]+[bkmgBKMG]?$")
    network: bool = False
    time_limit_scale: float = Field(default=1.0, gt=0, description="Multiplies every subtask's time limit.")
    # Least privilege (docs/security.md, "Containers"); a record written before these fields gets the defaults.
    user: str | None = Field(default=None, description="UID:GID of the containers; None: ownership.container_user")
    pids_limit: int = Field(default=DEFAULT_PIDS_LIMIT, ge=16)
    writable_root: bool = Field(default=False, description="The image needs to write outside /workspace, HOME, /tmp.")


class SubtaskRecord(BaseModel):
    id: str
    status: SubtaskStatus = SubtaskStatus.PENDING
    checkpoint: str | None = None  # manifest id of the workspace after the subtask
    state: str | None = None  # manifest id of the harness's state folder (kept out of checkpoints)
    generated: dict[str, str] = Field(default_factory=dict)  # material id -> sha256 of what its script wrote
    image_id: str | None = None
    command: str | None = None
    started: datetime | None = None
    ended: datetime | None = None
    exit_code: int | None = None
    timed_out: bool = False
    time_limit_s: float | None = None
    log: str | None = None  # relative to the run folder
    tokens: dict[str, int] | None = None
    attempts: int = 0
    # What the release before the subtask found in the way and replaced, never followed: a link the
    # agent planted where a material goes ("materials was a symbolic link to /etc: replaced by a folder").
    repairs: list[str] = Field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.status in DONE


class RunSystem(BaseModel):
    """The model-harness system a run tries (a benchmark's system, docs/benchmark.md): reports group
    runs by it, never by run."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=64)
    model: str | None = None
    harness_version: str | None = None


class RunRecord(BaseModel):
    version: int = RECORD_VERSION
    run_id: str
    project_id: str
    project_dir: str
    project_commit: str | None = None
    project_dirty: bool = False
    harness: str
    system: RunSystem | None = None  # the system it tries, with the model and the harness's version
    image: str
    image_id: str | None = None
    settings: RunSettings = Field(default_factory=RunSettings)
    created: datetime
    status: RunStatus = RunStatus.PENDING
    message: str | None = None
    owner_pid: int | None = None
    owner_host: str | None = None
    plan: dict[str, Any] = Field(default_factory=dict)  # the RunPlan as JSON
    subtasks: list[SubtaskRecord] = Field(default_factory=list)
    final: str | None = None  # manifest id of the final package
    final_missing: list[str] = Field(default_factory=list)  # final deliverables absent from the last checkpoint
    # Where a run made elsewhere came from (`dbstudio import harbor`: the Harbor job, trial, agent,
    # model ...); None for a run made here.
    origin: dict[str, str] | None = None

    def subtask(self, subtask_id: str) -> SubtaskRecord:
        for sub in self.subtasks:
            if sub.id == subtask_id:
                return sub
        raise RunError(
            f"run {self.run_id} has no subtask {subtask_id}: its subtasks are {', '.join(s.id for s in self.subtasks)}"
        )

    def last_checkpoint(self) -> SubtaskRecord | None:
        """The last subtask whose checkpoint is kept (done subtasks form a prefix of the timeline)."""
        last = None
        for sub in self.subtasks:
            if not sub.done:
                break
            last = sub
        return last

    def progress(self) -> tuple[int, int]:
        return sum(1 for sub in self.subtasks if sub.done), len(self.subtasks)

    def run_plan(self) -> RunPlan:
        return plan_from_json(self.plan)


def new_run_id(now: datetime | None = None) -> str:
    """Sortable and unique: `20261130-194210-3fa9c1`."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def load_run(run_dir: Path) -> RunRecord:
    path = Path(run_dir) / RECORD_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RunError(f"{run_dir}: not a run folder (it has no {RECORD_FILE})") from None
    try:
        return RunRecord.model_validate_json(text)
    except ValidationError as exc:
        raise RunError(
            f"{path}: the run record is damaged ({exc.errors()[0]['msg']}); it cannot be resumed — start a new run"
        ) from None


def save_run(run_dir: Path, record: RunRecord) -> None:
    write_atomic(Path(run_dir) / RECORD_FILE, (record.model_dump_json(indent=2) + "\n").encode("utf-8"))


def list_runs(runs_dir: Path) -> list[tuple[Path, RunRecord]]:
    """Every run under `runs_dir`, oldest first; a damaged record is left out."""
    found = []
    folder = Path(runs_dir)
    if not folder.is_dir():
        return []
    for child in sorted(folder.iterdir()):
        if (child / RECORD_FILE).is_file():
            try:
                found.append((child, load_run(child)))
            except RunError:
                continue
    return found


def find_run(run_id: str, runs_dir: Path) -> Path:
    folder = Path(runs_dir) / run_id
    if (folder / RECORD_FILE).is_file():
        return folder
    matches = [path for path, _ in list_runs(runs_dir) if path.name.startswith(run_id)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RunError(
            f"no run {run_id} in {runs_dir}: `dbstudio runs list PROJECT` lists the runs "
            "(give --runs-dir when they live elsewhere)"
        )
    raise RunError(f"{run_id} names {len(matches)} runs in {runs_dir}: give more of the id")


def shown_status(run_dir: Path, record: RunRecord) -> RunStatus:
    """The status to show: a run recorded as running that no process executes was interrupted.
    (Here, not in the runner: reading runs must not import the Docker SDK, which the app would then
    import on its background thread.)"""
    from studio.runs.lock import is_live

    if record.status == RunStatus.RUNNING and not is_live(run_dir):
        return RunStatus.INTERRUPTED
    return record.status
