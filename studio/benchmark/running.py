"""`dbstudio benchmark run`: the pairs that have no run yet, run on the local Docker engine with
each system's harness, image and settings from benchmark.yaml, at most `concurrency` at once; an
interrupted reported run is resumed instead. Each new run is written into benchmark.yaml's
outcomes as soon as it is created (so a crash or a kill leaves it named and resumable), and one
pair's failure never stops the others: it is named in the summary.

A system's `settings` in benchmark.yaml give the run's `image` (required to run), and optionally
`cpus`, `memory`, `network`, `time_scale`, `user`, `pids_limit` and `writable_root`, as the flags of
`dbstudio run` do; a `script:PATH` harness is relative to benchmark.yaml."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.benchmark.loader import LoadedBenchmark
from studio.benchmark.model import System
from studio.benchmark.status import NOT_STARTED, benchmark_status
from studio.errors import StudioError
from studio.runs.record import RunStatus

RUN_SETTINGS = {"cpus": "cpus", "memory": "memory", "network": "network", "time_scale": "time_limit_scale",
                "user": "user", "pids_limit": "pids_limit", "writable_root": "writable_root"}


class BenchmarkRunError(StudioError):
    """A pair cannot be run as its system is described."""


@dataclass
class PairRun:
    system: str
    project: str
    submission: str | None  # the run id (None when it could not be created)
    resumed: bool
    status: str  # the run's status at the end, or "not run"
    detail: str = ""


def to_run(loaded: LoadedBenchmark) -> list[tuple[str, str, str | None]]:
    """(system, project, run id to resume or None for a new run), in status order."""
    out: list[tuple[str, str, str | None]] = []
    for pair in benchmark_status(loaded):
        if pair.run == NOT_STARTED and not pair.attempts:
            out.append((pair.system, pair.project, None))
        elif pair.outcome is not None and pair.run in (RunStatus.INTERRUPTED.value, RunStatus.PENDING.value):
            out.append((pair.system, pair.project, pair.outcome.submission))
    return out


def harness_of(loaded: LoadedBenchmark, system: System) -> str:
    if system.harness.startswith("script:"):
        path = Path(system.harness.removeprefix("script:"))
        return f"script:{path if path.is_absolute() else (loaded.root / path).resolve()}"
    return system.harness


def run_settings(system: System) -> tuple[str, Any]:
    """(the image, RunSettings) of a system's settings; BenchmarkRunError naming what is wrong."""
    from pydantic import ValidationError

    from studio.runs.record import RunSettings

    image = system.settings.get("image")
    if not isinstance(image, str) or not image:
        raise BenchmarkRunError(f"system {system.id}: no image to run it in: add `image: NAME:TAG` to its settings "
                                "in benchmark.yaml")
    given = {RUN_SETTINGS[key]: value for key, value in system.settings.items() if key in RUN_SETTINGS}
    try:
        return image, RunSettings(**given)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = next((k for k, v in RUN_SETTINGS.items() if v == error["loc"][0]), error["loc"][0])
        raise BenchmarkRunError(f"system {system.id}: settings {key}: {error['msg']}") from None


def run_benchmark(loaded: LoadedBenchmark, concurrency: int = 1,
                  progress: Callable[[str, str, object], None] | None = None) -> list[PairRun]:
    """Run every pair `to_run` lists; `progress(system, project, event)` as each run goes."""
    from studio.runs.record import RunSystem
    from studio.runs.runner import create_run, default_runs_dir, execute_run

    benchmark = loaded.benchmark
    assert benchmark is not None
    writing = threading.Lock()

    def one(system_id: str, project_id: str, resume: str | None) -> PairRun:
        system = benchmark.system(system_id)
        assert system is not None
        folder = loaded.projects[project_id].folder
        run_dir: Path | None = None
        try:
            if resume is None:
                image, settings = run_settings(system)
                run_dir = create_run(folder, harness_of(loaded, system), image, settings,
                                     system=RunSystem(id=system.id, model=system.model,
                                                      harness_version=system.harness_version))
                with writing:
                    add_outcome(loaded.path, system.id, project_id, run_dir.name)
            else:
                run_dir = default_runs_dir(folder) / resume
            record = execute_run(run_dir, (lambda event: progress(system_id, project_id, event)) if progress else None)
            return PairRun(system_id, project_id, run_dir.name, resume is not None, record.status.value,
                           record.message or "")
        except StudioError as error:
            why = str(error).splitlines()[0]
            if run_dir is None:  # refused before a run existed (no image, an unknown harness)
                return PairRun(system_id, project_id, resume, resume is not None, "not run", why)
            # the run exists and is in the outcomes (e.g. its harness failed a subtask): say it as it stands
            return PairRun(system_id, project_id, run_dir.name, resume is not None, _status_of(run_dir), why)

    pending = to_run(loaded)
    if concurrency <= 1:
        return [one(*pair) for pair in pending]
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="benchmark-run") as pool:
        return list(pool.map(lambda pair: one(*pair), pending))


def _status_of(run_dir: Path) -> str:
    from studio.runs.record import load_run

    try:
        return load_run(run_dir).status.value
    except StudioError:
        return "unknown (its run.json cannot be read)"


def add_outcome(path: Path, system: str, project: str, submission: str, reason: str | None = None) -> None:
    """Append the outcome to benchmark.yaml, comments and layout kept (atomically); with a `reason`,
    as an attempt kept but not reported (`selected: false`)."""
    from ruamel.yaml.comments import CommentedMap

    from studio.store.yamlfile import YamlDocument

    document = YamlDocument.load(path)
    entry = CommentedMap([("system", system), ("project", project), ("submission", submission)])
    if reason is not None:
        entry["selected"] = False
        entry["reason"] = reason
    entry.fa.set_flow_style()
    outcomes = document.data.get("outcomes")
    if outcomes is None:
        document.data["outcomes"] = [entry]
    else:
        outcomes.append(entry)
    document.save()


def remove_outcome(path: Path, project: str, submission: str) -> None:
    """Take the outcomes naming `submission` of `project` out of benchmark.yaml (a run that no longer
    exists), the rest of the file as it was (atomically)."""
    from studio.store.yamlfile import YamlDocument

    document = YamlDocument.load(path)
    outcomes = document.data.get("outcomes") or []
    for place in reversed(range(len(outcomes))):
        entry = outcomes[place]
        if isinstance(entry, dict) and entry.get("project") == project and entry.get("submission") == submission:
            del outcomes[place]
    document.save()
