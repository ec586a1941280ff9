"""Runs as the app shows them, and what its runs panel and checkpoint browser do, in one place:
the app's side of `studio.runs` (run records, the runner, the checkpoint store, the Docker engine,
the harness presets), Qt-free and tested without a screen. Every import of the rest of the run
core is made on first use, so the window is drawn before pydantic or the Docker SDK load
(docs/gui.md, start-up).

The records are turned into small frozen views (`RunView`, `SubtaskView`): the panel's models
compare two views field by field to send `dataChanged` for what changed and nothing else."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

if TYPE_CHECKING:
    from studio.runs.record import RunRecord, RunSettings
    from studio.runs.store import CheckpointStore, Manifest

TAIL_LINES = 200
TAIL_BYTES = 64 * 1024
"""The log tail reads at most this much from the end of a log: a harness may log megabytes."""
PROCESS_LOG = "process.log"
RECORD_FILE = "run.json"  # studio.runs.record.RECORD_FILE, not imported: pydantic loads with the project
FINISHED = ("completed", "failed", "cancelled", "interrupted")


@dataclass(frozen=True)
class SubtaskView:
    id: str
    status: str
    exit_code: int | None
    timed_out: bool
    started: datetime | None
    ended: datetime | None
    tokens: dict[str, int] | None
    checkpoint: str | None
    log: str | None  # relative to the run folder
    attempts: int

    @property
    def duration_s(self) -> float | None:
        if self.started is None or self.ended is None:
            return None
        return (self.ended - self.started).total_seconds()


@dataclass(frozen=True)
class RunView:
    run_dir: Path
    run_id: str
    status: str  # as shown: a run recorded as running that no process executes is "interrupted"
    harness: str
    image: str
    created: datetime
    message: str | None
    project_commit: str | None
    subtasks: tuple[SubtaskView, ...]
    final: str | None

    @property
    def done(self) -> int:
        return sum(1 for sub in self.subtasks if sub.status in ("completed", "timed_out"))

    @property
    def total(self) -> int:
        return len(self.subtasks)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def going(self) -> bool:
        return self.status in ("pending", "running")

    def checkpoints(self) -> list[tuple[str, str]]:
        """(label, manifest id) of every kept checkpoint in timeline order, then the final package."""
        found = [(sub.id, sub.checkpoint) for sub in self.subtasks if sub.checkpoint is not None]
        if self.final is not None:
            found.append((FINAL_SCOPE, self.final))
        return found

    def subtask(self, subtask_id: str) -> SubtaskView | None:
        return next((sub for sub in self.subtasks if sub.id == subtask_id), None)

    def log_path(self, subtask_id: str) -> Path:
        sub = self.subtask(subtask_id)
        return self.run_dir / (sub.log if sub is not None and sub.log else f"logs/{subtask_id}.log")

    def current_subtask(self) -> str | None:
        """The subtask going now, else the last one that ran (for the log tail to follow)."""
        started = [sub for sub in self.subtasks if sub.started is not None or sub.status != "pending"]
        running = [sub for sub in started if sub.status == "running"]
        if running:
            return running[0].id
        return started[-1].id if started else None


def harness_label(spec: str) -> str:
    """A script harness by its file name, a preset by its name."""
    if spec.startswith("script:"):
        return f"script: {Path(spec[len('script:'):]).name}"
    return spec


# -- reading runs ------------------------------------------------------------------------------
def runs_dir_of(project_dir: Path) -> Path:
    return Path(project_dir) / layout.RUNS_DIR


def view_of(run_dir: Path, record: RunRecord) -> RunView:
    from studio.runs.record import shown_status

    subtasks = tuple(
        SubtaskView(id=sub.id, status=sub.status.value, exit_code=sub.exit_code, timed_out=sub.timed_out,
                    started=sub.started, ended=sub.ended, tokens=dict(sub.tokens) if sub.tokens else None,
                    checkpoint=sub.checkpoint, log=sub.log, attempts=sub.attempts)
        for sub in record.subtasks)
    return RunView(run_dir=Path(run_dir), run_id=record.run_id, status=shown_status(run_dir, record).value,
                   harness=record.harness, image=record.image, created=record.created, message=record.message,
                   project_commit=record.project_commit, subtasks=subtasks, final=record.final)


def read_runs(runs_dir: Path) -> list[RunView]:
    """Every run under `runs_dir`, oldest first (damaged records are left out)."""
    from studio.runs.record import list_runs

    return [view_of(path, record) for path, record in list_runs(Path(runs_dir))]


def read_run(run_dir: Path) -> RunView:
    """One run as it is now: run.json is a few kilobytes, read in a millisecond."""
    from studio.runs.record import load_run

    return view_of(run_dir, load_run(Path(run_dir)))


def run_folders(runs_dir: Path) -> list[Path]:
    """The run folders under `runs_dir` (those with a record), without reading the records."""
    try:
        entries = sorted(os.scandir(runs_dir), key=lambda entry: entry.name)
    except OSError:
        return []
    return [Path(entry.path) for entry in entries
            if entry.is_dir() and os.path.isfile(os.path.join(entry.path, RECORD_FILE))]


def record_stamp(run_dir: Path) -> tuple[int, int] | None:
    """(mtime_ns, size) of run.json: the record is read again only when this changes."""
    try:
        stat = (Path(run_dir) / RECORD_FILE).stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def tail(path: Path, lines: int = TAIL_LINES, max_bytes: int = TAIL_BYTES) -> str:
    """The last `lines` lines of a text file, reading at most `max_bytes` from its end ("" if absent)."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - max_bytes)
            handle.seek(start)
            data = handle.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    kept = text.splitlines()
    if start > 0 and kept:
        kept = kept[1:]  # the first line read is cut
    return "\n".join(kept[-lines:])


# -- starting, following and stopping runs -----------------------------------------------------
def settings(cpus: float = 2.0, memory_gib: int = 8, network: bool = False) -> RunSettings:
    from studio.runs.record import RunSettings

    return RunSettings(cpus=cpus, memory=f"{memory_gib}g", network=network)


def create_run(project_dir: Path, harness_spec: str, image: str, run_settings: RunSettings,
               runs_dir: Path | None) -> Path:
    """Check the project, harness, engine and image and record a new run (a StudioError says what is wrong)."""
    from studio.runs.runner import create_run as create

    return create(Path(project_dir), harness_spec, image, run_settings, runs_dir)


def resume_command(run_dir: Path) -> list[str]:
    """The CLI command that runs (or resumes) a run to its end, as a process of its own."""
    run_dir = Path(run_dir)
    # The frozen app's executable is the `dbstudio` command itself (packaging/dbstudio_main.py).
    program = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "studio.cli.main"]
    return [*program, "runs", "resume", run_dir.name, "--runs-dir", str(run_dir.parent)]


def cancel_run(run_dir: Path) -> None:
    from studio.runs.runner import cancel_run as cancel

    cancel(Path(run_dir))


# -- the engine and the harnesses --------------------------------------------------------------
@dataclass(frozen=True)
class PresetChoice:
    name: str  # the harness spec
    label: str  # "Claude Code (claude-code)"
    key_variable: str  # the API key it needs, from the environment or the keyring


def presets() -> list[PresetChoice]:
    """The CLI-agent presets, for the start-a-run dialog."""
    from studio.runs.harness import PRESETS

    return [PresetChoice(name, f"{info.title} ({name})", info.key_variable) for name, info in PRESETS.items()]


def local_images() -> list[str]:
    """The tagged images on the local engine, sorted (EngineError saying what to do when no engine answers)."""
    import docker
    from docker.errors import DockerException
    from requests.exceptions import RequestException

    from studio.runs.engine import DockerEngine, EngineError

    try:
        client = docker.from_env()
        try:
            images = client.images.list()
        finally:
            client.close()
    except (DockerException, RequestException, OSError) as exc:
        with DockerEngine.connect() as engine:  # raises the engine's own message when none answers
            url = engine.url()
        raise EngineError(f"The Docker engine at {url} did not list its images ({type(exc).__name__}): "
                          "restart it (docs/runs.md), then open this dialog again") from None
    return sorted({tag for image in images for tag in image.tags if not tag.endswith(":<none>")})


# -- the checkpoint store ----------------------------------------------------------------------
def store_of(run_dir: Path) -> CheckpointStore:
    """The store shared by the runs beside this one (<runs_dir>/store)."""
    from studio.runs.runner import store_of as store

    return store(Path(run_dir))


def manifests(run_dir: Path, ids: Sequence[str]) -> dict[str, Manifest]:
    """The manifests of the given checkpoints (read on the background helper)."""
    store = store_of(run_dir)
    return {manifest_id: store.manifest(manifest_id) for manifest_id in ids}
