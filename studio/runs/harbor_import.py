"""`dbstudio import harbor JOB_DIR PROJECT`: a Harbor job's trials of an exported project, as runs.

One run per trial. Each step whose workspace Harbor collected becomes that subtask's checkpoint
in the runs folder's checkpoint store, with the agent, model, timings, exit state and token
counts Harbor recorded. Steps count in timeline order, as in a local run: the first step that
failed or never ran is where the run stopped, and only the steps before it keep checkpoints.
A run remembers its Harbor job id and trial name, so importing a job again adds only the trials
not imported yet. A trial Harbor cancelled is no outcome: `harbor job resume` deletes it and runs
it again under a new name, so it is not imported, and a run an earlier import made of it is removed.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from studio.runs.harbor_format import (
    CANCELLED_EXCEPTION,
    METADATA_KEY,
    TIMEOUT_EXCEPTION,
    WORKSPACE_ARTIFACT,
    WORKSPACE_HASHES,
    task_name,
)
from studio.runs.harbor_job import (
    HarborJobError,
    StepResult,
    Trial,
    TrialResult,
    dockerfile_base,
    job_id,
    parse_hashes,
    read_trials,
    task_environment,
    task_metadata,
)
from studio.runs.harbor_scripts import setup_failure
from studio.runs.plan import RunPlan, SubtaskPlan, plan_run, plan_to_json
from studio.runs.record import (
    RunRecord,
    RunSettings,
    RunStatus,
    RunSystem,
    SubtaskRecord,
    SubtaskStatus,
    list_runs,
    new_run_id,
    save_run,
)
from studio.runs.store import CheckpointError
from studio.store import layout
from studio.untrusted import FILE_LIMIT, UntrustedFileError, shown
from studio.untrusted.logs import copy_log_file, copy_logs
from studio.untrusted.tree import read_bytes, real_folder

if TYPE_CHECKING:
    from studio.runs.store import CheckpointStore, Manifest

SOURCE = "harbor"


@dataclass(frozen=True)
class TrialOutcome:
    trial: str
    # "imported", "already imported", "not finished", "cancelled", "replaced", "other task", "duplicate",
    # "unknown system"; "replaced": run_id names the run of a cancelled trial this import removed
    action: str
    run_id: str | None = None
    done: int = 0
    total: int = 0
    message: str = ""


@dataclass
class HarborImport:
    job_id: str
    job_dir: Path
    runs_dir: Path
    trials: list[TrialOutcome] = field(default_factory=list)

    @property
    def added(self) -> list[TrialOutcome]:
        return [t for t in self.trials if t.action == "imported"]


# A trial's system (RunSystem), or why it has none (a message naming the trial's agent and model).
SystemOf = Callable[[TrialResult], "RunSystem | str"]


def import_harbor(
    job_dir: Path,
    project_dir: Path,
    runs_dir: Path | None = None,
    system_of: SystemOf | None = None,
    task_dir: Path | None = None,
) -> HarborImport:
    """Import every finished trial of `project_dir`'s task in the job that is not imported yet;
    with `system_of`, each run records its trial's system, and a trial without one is not imported.
    `task_dir`: the exported task the trials ran, when it is no longer where Harbor found it."""
    from studio.validation.validate import load_folder

    job_dir, project_dir = Path(job_dir).resolve(), Path(project_dir).resolve()
    trials = read_trials(job_dir)
    the_job = job_id(job_dir, trials)
    project = load_folder(project_dir).project
    plan = plan_run(project)
    assert project.info is not None  # plan_run refuses a project without it
    project_id = project.info.id
    runs_dir = Path(runs_dir).resolve() if runs_dir else project_dir / layout.RUNS_DIR
    known = imported_trials(runs_dir)
    report = HarborImport(the_job, job_dir, runs_dir)
    _remove_cancelled(report, trials, known)
    seen: dict[str, str] = {}  # trial name -> the folder it was taken from
    for trial in trials:
        result = trial.result
        if result is None:
            report.trials.append(
                TrialOutcome(
                    trial.name,
                    "not finished",
                    message="it has no result.json yet: import the job again when the trial is over",
                )
            )
            continue
        if result.task_name != task_name(project_id):
            report.trials.append(
                TrialOutcome(
                    trial.name, "other task", message=f"it ran {result.task_name}, not {task_name(project_id)}"
                )
            )
            continue
        first = seen.get(result.trial_name)
        if first is not None:  # a trial is known by its name: a second folder of that name is not another trial
            report.trials.append(
                TrialOutcome(
                    trial.name,
                    "duplicate",
                    message=(
                        f"its folder {shown(trial.folder.name)} names the trial {shown(result.trial_name)} of the folder "
                        f"{shown(first)}, which is the one imported; a job holds each trial once, so remove the copy"
                    ),
                )
            )
            continue
        seen[result.trial_name] = trial.folder.name
        cancelled = cancellation(result)
        if cancelled is not None:
            report.trials.append(TrialOutcome(trial.name, "cancelled", message=(
                f"Harbor cancelled it ({cancelled}): it is no outcome, since `harbor job resume` deletes it and "
                "runs it again under a new name; import the job again after the resume")))
            continue
        existing = known.get((the_job, result.trial_name))
        if existing is not None:
            report.trials.append(TrialOutcome(trial.name, "already imported", existing))
            continue
        system = system_of(result) if system_of is not None else None
        if isinstance(system, str):
            report.trials.append(TrialOutcome(trial.name, "unknown system", message=system))
            continue
        record = _import_trial(
            trial, result, the_job, job_dir, project_dir, project_id, plan, runs_dir, system, task_dir
        )
        done, total = record.progress()
        report.trials.append(TrialOutcome(trial.name, "imported", record.run_id, done, total, record.message or ""))
    return report


def imported_trials(runs_dir: Path) -> dict[tuple[str, str], str]:
    """(Harbor job id, trial name) -> run id of every run imported from Harbor into `runs_dir`."""
    return {key: record.run_id for key, (_, record) in _imported_runs(runs_dir).items()}


def _imported_runs(runs_dir: Path) -> dict[tuple[str, str], tuple[Path, RunRecord]]:
    found = {}
    for run_dir, record in list_runs(runs_dir):
        origin = record.origin or {}
        if origin.get("source") == SOURCE and "job_id" in origin and "trial" in origin:
            found[(origin["job_id"], origin["trial"])] = (run_dir, record)
    return found


def cancellation(result: TrialResult) -> str | None:
    """How Harbor recorded the trial's cancellation (on the trial or on a step), or None."""
    for problem in [result.exception_info] + [step.exception_info for step in result.step_results or []]:
        if problem is not None and problem.exception_type == CANCELLED_EXCEPTION:
            return problem.describe()
    return None


def _was_cancelled(record: RunRecord) -> bool:
    """A run an earlier import made of a cancelled trial (before cancelled trials were left out)."""
    origin = record.origin or {}
    return str(origin.get("exception", "")).startswith(CANCELLED_EXCEPTION) or (
        f"({CANCELLED_EXCEPTION}" in (record.message or "")
    )


def _remove_cancelled(report: HarborImport, trials: list[Trial], known: dict[tuple[str, str], str]) -> None:
    """Remove the runs earlier imports made of this job's cancelled trials: of a trial cancelled now,
    or of one `harbor job resume` has deleted since (its rerun is another trial, imported below)."""
    present = {trial.result.trial_name: trial.result for trial in trials if trial.result is not None}
    for (job, name), (run_dir, record) in _imported_runs(report.runs_dir).items():
        if job != report.job_id:
            continue
        now = present.get(name)
        if now is not None and cancellation(now) is None:
            continue  # a trial that ended: its run stays
        if now is None and not _was_cancelled(record):
            continue  # a trial folder removed by hand: nothing says it was rerun
        shutil.rmtree(run_dir)
        del known[(job, name)]
        why = "it is cancelled" if now is not None else "`harbor job resume` deleted it to run it again"
        report.trials.append(TrialOutcome(name, "replaced", record.run_id, message=(
            f"run {record.run_id}, imported earlier from this cancelled trial, was removed: {why}")))


def _import_trial(
    trial: Trial,
    result: TrialResult,
    the_job: str,
    job_dir: Path,
    project_dir: Path,
    project_id: str,
    plan: RunPlan,
    runs_dir: Path,
    system: RunSystem | None = None,
    given_task: Path | None = None,
) -> RunRecord:
    from studio.runs.runner import store_of

    task_dir = _exported_task(trial, job_dir, given_task, project_id)
    exported = task_metadata(task_dir, METADATA_KEY)
    _check_timeline(trial, result, exported, plan)
    scale = float(exported.get("agent_timeout_scale", 1.0))
    limits = task_environment(task_dir)
    run_id = new_run_id(result.started_at)
    run_dir = runs_dir / run_id
    (run_dir / "logs").mkdir(parents=True)
    try:
        record = RunRecord(
            run_id=run_id,
            project_id=project_id,
            project_dir=str(project_dir),
            project_commit=exported.get("project_commit"),
            project_dirty=bool(exported.get("project_dirty", False)),
            harness=f"{SOURCE}:{result.agent_info.name}",
            image=dockerfile_base(task_dir) or f"{SOURCE}:{result.environment_type()}",
            settings=RunSettings(network=True, time_limit_scale=scale, **limits),
            created=result.started_at or datetime.now(UTC),
            plan=plan_to_json(plan),
            subtasks=[SubtaskRecord(id=step.subtask) for step in plan.subtasks],
            origin=_origin(result, the_job, job_dir, trial),
            system=system,
        )
        copy_log_file(trial.folder, "trial.log", run_dir / "logs" / "harbor-trial.log", tree=f"the trial {trial.name}")
        store = store_of(run_dir)
        stopped, previous = None, None
        for step in plan.subtasks:
            sub = record.subtask(step.subtask)
            stopped = _import_step(trial, result, step, sub, scale, store, run_dir, previous)
            if stopped is not None:
                break
            previous = step.subtask
        _finish(record, result, stopped, store)
        save_run(run_dir, record)
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)  # no run.json: nothing half-imported is listed
        raise
    return record


def _exported_task(trial: Trial, job_dir: Path, given: Path | None, project_id: str) -> Path:
    """The exported task the trial ran, whose task.toml holds the run's provenance (the project's
    commit, the time scale, the limits, the image); refused when it cannot be found."""
    if given is not None:
        given = Path(given).resolve()
        if not (given / "task.toml").is_file():
            raise HarborJobError(f"{given}: not an exported Harbor task (it has no task.toml): give OUT/{project_id}")
        return given
    found = trial.task_dir(job_dir)
    if found is None:
        path = ((trial.result.config.get("task") if trial.result else None) or {}).get("path")
        raise HarborJobError(
            f"{trial.folder}: the task it ran ({path or 'no path in its result'}) is not at hand from the job "
            f"folder {job_dir}, and without its task.toml the run's commit, time scale, limits and image "
            f"would be wrong: give the exported task with --task OUT/{project_id}, or move the job folder "
            "back under the export's jobs/ folder"
        )
    return found


def _check_timeline(trial: Trial, result: TrialResult, exported: dict[str, object], plan: RunPlan) -> None:
    """Refuse a trial whose steps are not the project's subtasks as they are now."""
    timeline = [step.subtask for step in plan.subtasks]
    ran = [step.step_name for step in result.step_results or []]
    steps = exported.get("subtasks")
    if isinstance(steps, list) and [str(s) for s in steps] != timeline:
        raise HarborJobError(
            f"{trial.folder}: the task was exported with the subtasks {', '.join(map(str, steps))} "
            f"but the project's timeline is now {', '.join(timeline)}: import into the project "
            f"as it was exported (commit {exported.get('project_commit', 'unknown')})"
        )
    unknown = [name for name in ran if name not in timeline]
    if unknown:
        raise HarborJobError(
            f"{trial.folder}: its steps {', '.join(unknown)} are not subtasks of the project "
            f"({', '.join(timeline)}): import into the project the task was exported from"
        )


def _origin(result: TrialResult, the_job: str, job_dir: Path, trial: Trial) -> dict[str, str]:
    origin = {
        "source": SOURCE,
        "job_id": the_job,
        "job_dir": str(job_dir),
        "trial": result.trial_name,
        "trial_id": result.id,
        "agent": result.agent_info.name,
        "agent_version": result.agent_info.version,
        "environment": result.environment_type(),
        "task_checksum": result.task_checksum,
    }
    model = result.agent_info.model_info
    if model is not None:
        origin["model"] = model.name
        if model.provider:
            origin["model_provider"] = model.provider
    for name, moment in (("started_at", result.started_at), ("finished_at", result.finished_at)):
        if moment is not None:
            origin[name] = moment.isoformat()
    cost = result.cost_usd()
    if cost is not None:
        origin["cost_usd"] = f"{cost:.6f}"
    if result.exception_info is not None:
        origin["exception"] = result.exception_info.describe()
    return origin


def _import_step(
    trial: Trial,
    result: TrialResult,
    step: SubtaskPlan,
    sub: SubtaskRecord,
    scale: float,
    store: CheckpointStore,
    run_dir: Path,
    previous: str | None = None,
) -> str | None:
    """Fill `sub` from Harbor's step; returns why the trial stopped here, or None when the step is done."""
    harbor_step = result.step(step.subtask)
    if harbor_step is None:
        reason = result.exception_info.describe() if result.exception_info else "Harbor did not run it"
        return f"never ran ({reason})"
    sub.attempts = 1
    sub.time_limit_s = step.time_limit_minutes * 60 * scale
    sub.command = _command(result)
    if harbor_step.agent_execution is not None:
        sub.started, sub.ended = harbor_step.agent_execution.started_at, harbor_step.agent_execution.finished_at
    if harbor_step.agent_result is not None:
        sub.tokens = harbor_step.agent_result.tokens()
    sub.log = _keep_logs(trial, step.subtask, harbor_step, run_dir, previous)
    problem = harbor_step.exception_info
    sub.timed_out = problem is not None and problem.exception_type == TIMEOUT_EXCEPTION
    if problem is not None and not sub.timed_out:
        sub.status = SubtaskStatus.FAILED
        release = setup_failure(step.generated, problem.exception_message) if harbor_step.agent_execution is None else None
        if release is not None:
            # Harbor keeps no output of setup.sh, only its exit code: the release and where to look
            return (f"failed: {release} (Harbor recorded {problem.describe()}); run the script on the "
                    "previous checkpoint's files to see why")
        return f"failed ({problem.describe()})"
    step_rel = f"steps/{step.subtask}"
    workspace_rel = f"{step_rel}/artifacts/{WORKSPACE_ARTIFACT}"
    try:  # Harbor never makes these links: one means the job folder was changed to point elsewhere
        workspace = real_folder(trial.folder, workspace_rel, tree=f"the trial folder {shown(trial.folder.name)}")
    except UntrustedFileError as refused:
        sub.status = SubtaskStatus.FAILED
        return f"has no workspace that can be imported: {refused}"
    if workspace is None:
        sub.status = SubtaskStatus.FAILED
        return f"has no workspace in {workspace_rel} (Harbor collected none)"
    try:
        manifest = store.snapshot(workspace, tree=f"the workspace of {step.subtask}")
    except CheckpointError as refused:
        sub.status = SubtaskStatus.FAILED
        return f"has a workspace that cannot be imported ({refused})"
    damaged = _differs(manifest, _hashes(trial.folder, f"{step_rel}/verifier/{WORKSPACE_HASHES}"))
    if damaged:
        sub.status = SubtaskStatus.FAILED
        return f"has an incomplete copy of its workspace ({damaged} differs from what the step left)"
    sub.checkpoint = manifest.id
    for generated in step.generated:
        entry = manifest.entries.get(generated.dest)
        if entry is not None and entry.sha256:
            sub.generated[generated.material] = entry.sha256
    sub.status = SubtaskStatus.TIMED_OUT if sub.timed_out else SubtaskStatus.COMPLETED
    return None


def _hashes(folder: Path, rel: str) -> dict[str, str] | None:
    """The listing test.sh wrote, read only when it is a file of the trial (never through a link)."""
    try:
        data = read_bytes(folder, rel, limit=FILE_LIMIT, tree="the trial folder")
    except UntrustedFileError:
        return None
    return parse_hashes(data.decode("utf-8", errors="replace"))


def _differs(manifest: Manifest, listed: dict[str, str] | None) -> str | None:
    """The first file test.sh listed that Harbor's copy lacks or holds otherwise (None: it matches)."""
    if listed is None:
        return None  # no listing (an older export, or the step's tests did not run): nothing to check
    for path, digest in sorted(listed.items()):
        entry = manifest.entries.get(path)
        if entry is None or entry.sha256 != digest:
            return shown(path)
    return None


def _command(result: TrialResult) -> str:
    agent = result.agent_info
    words = [f"harbor agent {agent.name}"]
    if agent.version:
        words.append(agent.version)
    if agent.model_info is not None:
        words.append(f"model {agent.model_info.name}")
    return " ".join(words)


def _keep_logs(trial: Trial, subtask: str, harbor_step: StepResult, run_dir: Path, previous: str | None) -> str:
    """Copy the step's agent and verifier logs into the run; return the summary log's path in the run."""
    kept = run_dir / "logs" / f"{subtask}.harbor"
    notes, trimmed = [], []
    for part in ("agent", "verifier"):
        where = f"steps/{subtask}/{part}"
        try:
            source = real_folder(trial.folder, where, tree=f"the trial folder {shown(trial.folder.name)}")
        except UntrustedFileError as refused:
            notes.append(str(refused))
            continue
        if source is not None:
            notes += [f"{part}/{note}" for note in copy_logs(source, kept / part, tree=f"Harbor's {where}")]
            if previous is not None:
                trimmed += _own_part(trial, subtask, previous, part, kept / part)
    lines = [f"Harbor step {subtask} of trial {shown(trial.name)}"]
    if harbor_step.agent_execution is not None:
        lines.append(
            f"agent ran from {harbor_step.agent_execution.started_at} to {harbor_step.agent_execution.finished_at}"
        )
    if harbor_step.exception_info is not None:
        lines.append(f"Harbor recorded: {harbor_step.exception_info.describe()}")
    if kept.is_dir():
        lines.append(f"Harbor's logs of the step are in {kept.relative_to(run_dir)}/:")
        lines += [f"  {shown(str(path.relative_to(kept)))}" for path in sorted(kept.rglob("*")) if path.is_file()]
    if trimmed:
        lines.append("Harbor keeps the agent's log folder from step to step; kept here is this step's own part:")
        lines += [f"  {note}" for note in trimmed]
    if notes:
        lines.append("Not copied as they were (studio.untrusted, docs/security.md):")
        lines += [f"  {note}" for note in notes]
    log = run_dir / "logs" / f"{subtask}.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log.relative_to(run_dir).as_posix()


def _own_part(trial: Trial, subtask: str, previous: str, part: str, kept: Path) -> list[str]:
    """Drop from the step's copied logs what the previous step's folder held already: a resumed
    agent's log folder carries over (every earlier step's files, a log file that grows)."""
    notes = []
    tree = f"the trial folder {shown(trial.folder.name)}"
    for copied in sorted(path for path in kept.rglob("*") if path.is_file()):
        rel = copied.relative_to(kept).as_posix()
        try:
            earlier = read_bytes(trial.folder, f"steps/{previous}/{part}/{rel}", limit=FILE_LIMIT, tree=tree)
            now = read_bytes(trial.folder, f"steps/{subtask}/{part}/{rel}", limit=FILE_LIMIT, tree=tree)
        except (UntrustedFileError, OSError):
            continue  # not in the previous step's logs (or not readable as a plain file): kept as copied
        if len(now) != copied.stat().st_size:
            continue  # cut to its head and tail when copied (over the log limit): kept as copied
        if now == earlier:
            copied.unlink()
            notes.append(f"{part}/{shown(rel)}: the same as in {previous}'s logs, not kept again")
        elif earlier and now.startswith(earlier):
            copied.write_bytes(now[len(earlier) :])
            notes.append(f"{part}/{shown(rel)}: only what was added after {previous}")
    return notes


def _finish(record: RunRecord, result: TrialResult, stopped: str | None, store: CheckpointStore) -> None:
    origin = record.origin or {}
    where = f"imported from Harbor job {origin.get('job_id')}, trial {origin.get('trial')}"
    if stopped is None:
        record.status = RunStatus.COMPLETED
        record.message = where
        from studio.runs.final import assemble_final

        assemble_final(store, record)
        return
    at = next(sub for sub in record.subtasks if not sub.done)
    kept = [sub.id for sub in record.subtasks if sub.done]
    failed = at.status == SubtaskStatus.FAILED or result.exception_info is not None
    record.status = RunStatus.FAILED if failed else RunStatus.INTERRUPTED
    later = [s.step_name for s in result.step_results or [] if s.step_name not in kept and s.step_name != at.id]
    record.message = (
        f"{where}: stopped at {at.id}, which {stopped}; "
        + (f"checkpoints kept: {', '.join(kept)}" if kept else "no checkpoint kept")
        + (
            f"; Harbor went on with {', '.join(later)} after it, not imported since they build on an unfinished step"
            if later
            else ""
        )
    )
