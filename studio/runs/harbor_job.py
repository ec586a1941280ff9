"""Reading a Harbor job directory: the job's id, and each trial's `result.json` and step folders.

Harbor's layout (harbor 0.26): `<job>/config.json` (the job config), `<job>/result.json` (the
job's id and stats), and one folder per trial with `config.json`, `result.json` (written when
the trial ends), `trial.log` and, for a multi-step task, `steps/<step>/{agent,verifier,artifacts}`.
Only the fields the import uses are read; anything else Harbor adds is ignored.
"""

from __future__ import annotations

import json
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from studio.runs.errors import RunError

JOB_CONFIG = "config.json"
RESULT = "result.json"


class HarborJobError(RunError):
    """The folder is not a Harbor job, or one of its files cannot be read."""


class Timing(BaseModel):
    started_at: datetime | None = None
    finished_at: datetime | None = None


class ExceptionInfo(BaseModel):
    exception_type: str
    exception_message: str = ""

    def describe(self) -> str:
        first = self.exception_message.strip().splitlines()[0] if self.exception_message.strip() else ""
        return f"{self.exception_type}: {first}" if first else self.exception_type


class AgentContext(BaseModel):
    n_input_tokens: int | None = None
    n_cache_tokens: int | None = None
    n_output_tokens: int | None = None
    cost_usd: float | None = None

    def tokens(self) -> dict[str, int] | None:
        """In the local harnesses' terms (harness.TokenCounts): Harbor's input count includes the
        cached tokens, a local run's `input` does not, and `cache_read` holds them."""
        if self.n_input_tokens is None and self.n_output_tokens is None and self.n_cache_tokens is None:
            return None
        counts = {"output": self.n_output_tokens, "cache_read": self.n_cache_tokens}
        if self.n_input_tokens is not None:
            counts["input"] = self.n_input_tokens - (self.n_cache_tokens or 0)
        return {name: count for name, count in counts.items() if count is not None}


class StepResult(BaseModel):
    step_name: str
    agent_result: AgentContext | None = None
    exception_info: ExceptionInfo | None = None
    agent_execution: Timing | None = None


class ModelInfo(BaseModel):
    name: str
    provider: str | None = None


class AgentInfo(BaseModel):
    name: str
    version: str = ""
    model_info: ModelInfo | None = None


class TrialResult(BaseModel):
    id: str
    task_name: str
    trial_name: str
    task_checksum: str = ""
    agent_info: AgentInfo
    exception_info: ExceptionInfo | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    step_results: list[StepResult] | None = None
    config: dict[str, Any] = {}

    def step(self, name: str) -> StepResult | None:
        for step in self.step_results or []:
            if step.step_name == name:
                return step
        return None

    def environment_type(self) -> str:
        environment = self.config.get("environment") or {}
        return str(environment.get("type") or "docker")

    def cost_usd(self) -> float | None:
        costs = [s.agent_result.cost_usd for s in self.step_results or [] if s.agent_result is not None]
        known = [cost for cost in costs if cost is not None]
        return sum(known) if known else None


class Trial:
    """One trial folder of a job."""

    def __init__(self, folder: Path, result: TrialResult | None) -> None:
        self.folder = folder
        self.result = result

    @property
    def name(self) -> str:
        return self.result.trial_name if self.result else self.folder.name

    def step_dir(self, step: str) -> Path:
        return self.folder / "steps" / step

    def task_dir(self, job_dir: Path) -> Path | None:
        """The exported task the trial ran, when it is still where Harbor found it."""
        task = (self.result.config.get("task") if self.result else None) or {}
        path = task.get("path")
        if not path:
            return None
        candidates = [Path(path)] if Path(path).is_absolute() else [job_dir.parent.parent / path, job_dir.parent / path]
        return next((c for c in candidates if (c / "task.toml").is_file()), None)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HarborJobError(f"{path}: cannot be read as JSON ({exc}); is the job still being written?") from None


def job_id(job_dir: Path, trials: list[Trial]) -> str:
    """The job's id from its result.json, else from its trials' configs."""
    result = job_dir / RESULT
    if result.is_file():
        data = _read_json(result)
        if isinstance(data, dict) and data.get("id"):
            return str(data["id"])
    for trial in trials:
        if trial.result and trial.result.config.get("job_id"):
            return str(trial.result.config["job_id"])
    raise HarborJobError(
        f"{job_dir}: neither its {RESULT} nor any trial names the job's id; "
        "import again when Harbor has written the job's result.json"
    )


def read_trials(job_dir: Path) -> list[Trial]:
    """Every trial folder of the job, by name; a trial still running has no result yet."""
    job_dir = Path(job_dir)
    if not (job_dir / JOB_CONFIG).is_file():
        raise HarborJobError(
            f"{job_dir}: not a Harbor job directory (it has no {JOB_CONFIG}); "
            "give the folder `harbor run` made under its jobs folder"
        )
    trials = []
    # a trial folder that is a link is not a trial Harbor made: never followed
    for folder in sorted(
        p for p in job_dir.iterdir() if not p.is_symlink() and p.is_dir() and (p / JOB_CONFIG).is_file()
    ):
        path = folder / RESULT
        result = None
        if path.is_file():
            try:
                result = TrialResult.model_validate(_read_json(path))
            except ValidationError as exc:
                error = exc.errors()[0]
                where = ".".join(str(part) for part in error["loc"])
                raise HarborJobError(f"{path}: not a Harbor trial result ({where}: {error['msg']})") from None
        trials.append(Trial(folder, result))
    return trials


def _task_toml(task_dir: Path | None) -> dict[str, Any]:
    if task_dir is None:
        return {}
    path = task_dir / "task.toml"
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HarborJobError(f"{path}: cannot be read as TOML ({exc}): export the task again") from None


def task_metadata(task_dir: Path | None, key: str) -> dict[str, Any]:
    """The [metadata.<key>] table of an exported task.toml ({} when the task is not at hand)."""
    table = _task_toml(task_dir).get("metadata", {}).get(key, {})
    return table if isinstance(table, dict) else {}


def task_environment(task_dir: Path | None) -> dict[str, Any]:
    """The limits of the task's [environment] the trials ran with, as RunSettings fields
    (`cpus`, `memory` such as "4g"); only those the task sets."""
    environment = _task_toml(task_dir).get("environment", {})
    limits: dict[str, Any] = {}
    if not isinstance(environment, dict):
        return limits
    cpus, memory_mb = environment.get("cpus"), environment.get("memory_mb")
    if isinstance(cpus, int | float) and not isinstance(cpus, bool) and cpus > 0:
        limits["cpus"] = float(cpus)
    if isinstance(memory_mb, int) and not isinstance(memory_mb, bool) and memory_mb > 0:
        limits["memory"] = f"{memory_mb // 1024}g" if memory_mb % 1024 == 0 else f"{memory_mb}m"  # as a local run writes it
    return limits


def dockerfile_base(task_dir: Path | None) -> str | None:
    if task_dir is None:
        return None
    try:
        lines = (task_dir / "environment" / "Dockerfile").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        words = line.split()
        if len(words) >= 2 and words[0].upper() == "FROM":
            return words[1]
    return None


def read_hashes(path: Path) -> dict[str, str] | None:
    """The `sha256sum` listing test.sh wrote: workspace path -> sha256 (None when absent)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return parse_hashes(text)


def parse_hashes(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        digest, _, name = line.partition("  ")
        if len(digest) == 64 and name:
            found[name[2:] if name.startswith("./") else name] = digest
    return found
