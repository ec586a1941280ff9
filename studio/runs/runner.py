"""Create, execute, resume and cancel a run, one subtask after another along the timeline.

Before each subtask the materials released at that point (and nothing else) are copied into
the persistent workspace, generated releases are written by their scripts, and the instruction
is put where the harness reads it; the harness then runs in a container with the subtask's time
limit; the workspace it leaves is stored as the subtask's checkpoint. A subtask is marked done
only once its checkpoint is stored, and a resumed run starts from the last done subtask's
checkpoint, so a run stopped at any moment loses at most the subtask that was going.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from studio.errors import StudioError
from studio.runs.disk import DiskFull, disk_full, is_no_space, low_space_note, no_space_cause
from studio.runs.engine import ContainerSpec, DockerEngine, EngineError, Mount
from studio.runs.errors import RunError
from studio.runs.generate import run_generator
from studio.runs.harness import SCRIPT_PREFIX, Harness, HarnessStep, harness_from_spec
from studio.runs.lock import holding_run, is_live
from studio.runs.ownership import ContainerUser, container_user, hand_over, make_private, take_back
from studio.runs.plan import BRIEF_IN_WORKSPACE, SubtaskPlan, checked_plan, plan_to_json, project_revision
from studio.runs.record import (
    RunRecord,
    RunSettings,
    RunStatus,
    RunSystem,
    SubtaskRecord,
    SubtaskStatus,
    load_run,
    new_run_id,
    save_run,
)
from studio.runs.store import CheckpointError, CheckpointStore
from studio.store import layout
from studio.untrusted import UntrustedFileError
from studio.untrusted.writing import write_file

WORKSPACE = "/workspace"
HOME = "/studio/home"
TASK = "/studio/task"
STORE_DIR = "store"
CANCEL_FILE = "cancel"


@dataclass(frozen=True)
class RunEvent:
    """Something a run did, for a progress display: `kind` is one of started, released,
    generated, repaired (a link the agent planted where a release goes was replaced), harness,
    checkpoint, stopped, finished."""

    kind: str
    record: RunRecord
    subtask: str | None = None
    text: str = ""


Progress = Callable[[RunEvent], None]


def default_runs_dir(project_dir: Path) -> Path:
    return Path(project_dir) / layout.RUNS_DIR


def store_of(run_dir: Path) -> CheckpointStore:
    """The checkpoint store shared by the runs beside this one."""
    return CheckpointStore(Path(run_dir).parent / STORE_DIR)


def create_run(
    project_dir: Path,
    harness_spec: str,
    image: str,
    settings: RunSettings | None = None,
    runs_dir: Path | None = None,
    engine: DockerEngine | None = None,
    system: RunSystem | None = None,
) -> Path:
    """Check everything a run needs (project, harness, engine, image) and record a new run (of
    `system`, when given)."""
    project_dir = Path(project_dir).resolve()
    loaded, plan = checked_plan(project_dir, RunError, "a run")
    project = loaded.project
    harness = harness_from_spec(harness_spec)
    container_user((settings or RunSettings()).user)  # a bad or root --user is refused now
    first = plan.subtasks[0]
    harness.environment(_harness_step(first))  # a missing API key is reported now, not hours later
    if engine is None:
        with DockerEngine.connect() as own:
            image_id = own.image_id(image)
    else:
        image_id = engine.image_id(image)
    commit, dirty = project_revision(project_dir)

    runs_dir = Path(runs_dir).resolve() if runs_dir else default_runs_dir(project_dir)
    run_id = new_run_id()
    run_dir = runs_dir / run_id
    assert project.info is not None  # plan_run refuses a project without it
    try:
        run_dir.mkdir(parents=True)
        make_private(run_dir)
        (run_dir / "logs").mkdir()
        for rel in plan.project_files():
            target = run_dir / "inputs" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(project_dir / rel, target)
        record = RunRecord(
            run_id=run_id,
            project_id=project.info.id,
            project_dir=str(project_dir),
            project_commit=commit,
            project_dirty=dirty,
            harness=_keep_harness(harness_spec, run_dir),
            system=system,
            image=image,
            image_id=image_id,
            settings=settings or RunSettings(),
            created=datetime.now(UTC),
            plan=plan_to_json(plan),
            subtasks=[SubtaskRecord(id=step.subtask) for step in plan.subtasks],
        )
        save_run(run_dir, record)
    except OSError as error:
        if not is_no_space(error):
            raise
        shutil.rmtree(run_dir, ignore_errors=True)  # a run that could not be written whole is not a run
        raise disk_full(error, runs_dir, "creating a run", "start the run again") from error
    return run_dir


def _keep_harness(spec: str, run_dir: Path) -> str:
    """A script harness is copied into the run, so a resume runs the same script."""
    if not spec.startswith(SCRIPT_PREFIX):
        return spec
    script = Path(spec[len(SCRIPT_PREFIX) :]).expanduser().resolve()
    kept = run_dir / "harness" / script.name
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(script, kept)
    return f"{SCRIPT_PREFIX}{kept}"


def _harness_step(step: SubtaskPlan) -> HarnessStep:
    return HarnessStep(
        subtask=step.subtask, first=step.position == 1, instruction=f"{TASK}/{step.subtask}/instruction.md"
    )


def execute_run(run_dir: Path, progress: Progress | None = None, engine: DockerEngine | None = None) -> RunRecord:
    """Run, or resume, the run in `run_dir` to its end; returns its record as it ends.

    A run that stops (cancelled, a harness failure, the engine gone) is saved with a message
    saying how to go on, and a failure the user must act on is raised as a RunError."""
    run_dir = Path(run_dir)
    record = load_run(run_dir)
    if record.status == RunStatus.COMPLETED:
        return record
    if record.origin is not None:  # made elsewhere (dbstudio import harbor): its record stays as imported
        raise RunError(
            f"run {record.run_id} was imported from {record.origin.get('source', 'elsewhere')} and "
            "cannot be resumed here: run the project again (dbstudio run, or a new Harbor job)"
        )
    with holding_run(run_dir, record.run_id):
        (run_dir / CANCEL_FILE).unlink(missing_ok=True)
        record.status, record.message = RunStatus.RUNNING, None
        record.owner_pid, record.owner_host = os.getpid(), socket.gethostname()
        save_run(run_dir, record)
        report = progress or (lambda event: None)
        report(RunEvent("started", record))
        own_engine = engine is None
        try:
            engine = engine or DockerEngine.connect()
            try:
                _Execution(run_dir, record, engine, report).go()
            except (OSError, StudioError) as error:  # the checkpoint store's errors are StudioErrors
                full = no_space_cause(error)
                if full is None or isinstance(error, DiskFull):
                    raise
                raise disk_full(
                    full,
                    run_dir.parent,
                    f"run {record.run_id} wrote its files",
                    f"`dbstudio runs resume {record.run_id}` goes on from its last checkpoint",
                ) from error
        except StudioError as exc:
            if record.status == RunStatus.RUNNING:
                record.status = RunStatus.INTERRUPTED if isinstance(exc, EngineError) else RunStatus.FAILED
                record.message = str(exc)
            _stop_leftovers(engine, record)
            _save_if_room(run_dir, record)
            report(RunEvent("stopped", record, text=record.message or ""))
            raise
        except BaseException as stopped:
            # Ctrl-C or SIGTERM (KeyboardInterrupt), or a bug: the subtask that was going is rerun on resume.
            record.status = RunStatus.INTERRUPTED
            why = (
                "stopped by the user"
                if isinstance(stopped, KeyboardInterrupt | SystemExit)
                else f"stopped by an internal error ({type(stopped).__name__}: a bug, see the crash report)"
            )
            record.message = f"{why}; `dbstudio runs resume {record.run_id}` goes on"
            _stop_leftovers(engine, record)
            _save_if_room(run_dir, record)
            raise
        finally:
            if own_engine and engine is not None:
                engine.close()
        report(
            RunEvent(
                "finished" if record.status == RunStatus.COMPLETED else "stopped", record, text=record.message or ""
            )
        )
        return record


def _save_if_room(run_dir: Path, record: RunRecord) -> None:
    """Save the stopped run's record; on a full disk the record on disk stays as last saved (shown as
    interrupted), and the error on its way up says why."""
    try:
        save_run(run_dir, record)
    except OSError as error:
        if not is_no_space(error):
            raise


def _stop_leftovers(engine: DockerEngine | None, record: RunRecord) -> None:
    if engine is None:
        return
    try:
        engine.kill_labelled({"dbstudio.run": record.run_id})
    except RunError:
        pass  # the engine is gone: its containers went with it


class _Execution:
    """One pass of a run from its last checkpoint on."""

    def __init__(self, run_dir: Path, record: RunRecord, engine: DockerEngine, report: Progress) -> None:
        self.run_dir = run_dir
        self.record = record
        self.engine = engine
        self.report = report
        self.store = store_of(run_dir)
        self.workspace = run_dir / "workspace"
        self.home = run_dir / "home"
        self.harness: Harness = harness_from_spec(record.harness)
        self.user: ContainerUser = container_user(record.settings.user)

    def go(self) -> None:
        record = self.record
        image_id = self.engine.image_id(record.image)
        if record.image_id is None:
            record.image_id = image_id
        make_private(self.run_dir)  # a run made before runs were private becomes so
        # A container of an earlier attempt (the CLI was killed, the app closed) must not keep
        # writing into the workspace that is about to be restored.
        self.engine.kill_labelled({"dbstudio.run": record.run_id})
        self._restore()
        for step in record.run_plan().subtasks:
            sub = record.subtask(step.subtask)
            if sub.done:
                continue
            if not self._subtask(step, sub):
                return
        self._finish()

    def _restore(self) -> None:
        last = self.record.last_checkpoint()
        if last is None or last.checkpoint is None:
            for folder in (self.workspace, self.home):
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True)
            return
        self.store.restore(self.store.manifest(last.checkpoint), self.workspace)
        self.home.mkdir(parents=True, exist_ok=True)
        if last.state is not None:
            self.store.restore(self.store.manifest(last.state), self.home)

    def _cancelled(self) -> bool:
        return (self.run_dir / CANCEL_FILE).exists()

    def _subtask(self, step: SubtaskPlan, sub: SubtaskRecord) -> bool:
        record, sid = self.record, step.subtask
        sub.status, sub.attempts = SubtaskStatus.RUNNING, sub.attempts + 1
        sub.started, sub.ended, sub.exit_code, sub.timed_out, sub.tokens = datetime.now(UTC), None, None, False, None
        sub.generated = {}
        save_run(self.run_dir, record)
        self.report(RunEvent("started", record, sid))
        sub.repairs = []
        inputs = self.run_dir / "inputs"
        if step.position == 1:
            self._release(sub, inputs / record.run_plan().brief, BRIEF_IN_WORKSPACE)
        for release in step.releases:
            self._release(sub, inputs / release.source, release.dest)
        if step.releases:
            self.report(RunEvent("released", record, sid, ", ".join(r.material for r in step.releases)))
        for generated in step.generated:
            self._hand_over()
            sub.generated[generated.material] = run_generator(
                self.engine, record, self.run_dir, sid, generated, self.user, repairs=sub.repairs
            )
            self._take_back()
            save_run(self.run_dir, record)
            self.report(RunEvent("generated", record, sid, generated.material))
        if sub.repairs:
            save_run(self.run_dir, record)
            self.report(RunEvent("repaired", record, sid, "; ".join(sub.repairs)))
        task_dir = self.run_dir / "task" / sid
        _copy(inputs / step.instruction, task_dir / "instruction.md")

        hstep = _harness_step(step)
        limit = step.time_limit_minutes * 60 * record.settings.time_limit_scale
        spec = ContainerSpec(
            image=record.image,
            command=self.harness.command(hstep),
            workdir=WORKSPACE,
            env=self.harness.environment(hstep),
            mounts=[
                Mount(self.workspace, WORKSPACE, False),
                Mount(self.home, HOME, False),
                Mount(task_dir, f"{TASK}/{sid}", True),
                *self.harness.mounts(),
            ],
            cpus=record.settings.cpus,
            memory=record.settings.memory,
            network=record.settings.network,
            timeout_s=limit,
            labels={"dbstudio.run": record.run_id, "dbstudio.subtask": sid, "dbstudio.role": "agent"},
            user=self.user.spec(),
            capabilities=self.harness.capabilities,
            read_only_root=not record.settings.writable_root,
            pids_limit=record.settings.pids_limit,
        )
        log = self.run_dir / "logs" / f"{sid}.log"
        sub.log, sub.command, sub.time_limit_s = (
            log.relative_to(self.run_dir).as_posix(),
            self.harness.describe(),
            limit,
        )
        save_run(self.run_dir, record)
        self._hand_over()
        try:
            result = self.engine.run(spec, log=log, cancel=self._cancelled)
        finally:
            self._take_back()
        sub.image_id, sub.started, sub.ended = result.image_id, result.started, result.ended
        sub.exit_code, sub.timed_out = result.exit_code, result.timed_out
        sub.tokens = _tokens(self.harness, log)
        if result.cancelled:
            sub.status = SubtaskStatus.PENDING
            record.status = RunStatus.CANCELLED
            record.message = (
                f"cancelled during {sid}; `dbstudio runs resume {record.run_id}` reruns {sid} "
                "from the checkpoint before it"
            )
            save_run(self.run_dir, record)
            return False
        if not result.timed_out and result.exit_code != 0:
            sub.status = SubtaskStatus.FAILED
            record.status = RunStatus.FAILED
            record.message = (
                f"the harness exited with code {result.exit_code} in {sid}"
                f"{low_space_note(self.run_dir)}: read its log ({log}), fix the harness or the "
                f"image, then `dbstudio runs resume {record.run_id}` reruns {sid} from the "
                "checkpoint before it"
            )
            save_run(self.run_dir, record)
            raise HarnessFailed(record.message)
        self.report(RunEvent("harness", record, sid, "timed out" if result.timed_out else "exit 0"))
        try:
            checkpoint = self.store.snapshot(self.workspace, stat_cache=self.run_dir / "statcache.json")
            state = self.store.snapshot(self.home, tree="the harness's state folder")
        except CheckpointError as refused:
            full = no_space_cause(refused)
            if full is not None:  # not the workspace's fault: the disk of the runs folder is full
                raise disk_full(
                    full,
                    self.run_dir.parent,
                    f"storing the checkpoint of {sid}",
                    f"`dbstudio runs resume {record.run_id}` reruns {sid} from the checkpoint before it",
                ) from refused
            sub.status = SubtaskStatus.FAILED
            record.status = RunStatus.FAILED
            record.message = (
                f"{sid} left a workspace that cannot be checkpointed: {refused}. "
                f"`dbstudio runs resume {record.run_id}` reruns {sid} from the checkpoint before it"
            )
            save_run(self.run_dir, record)
            raise CheckpointRefused(record.message) from None
        sub.checkpoint, sub.state = checkpoint.id, state.id
        sub.status = SubtaskStatus.TIMED_OUT if result.timed_out else SubtaskStatus.COMPLETED
        save_run(self.run_dir, record)
        self.report(RunEvent("checkpoint", record, sid, checkpoint.id))
        return True

    def _hand_over(self) -> None:
        """What a container reads or writes becomes the container user's (a no-op unless we are root)."""
        for folder in ("workspace", "home", "task", "harness", "inputs", "generated"):
            hand_over(self.run_dir / folder, self.user)

    def _take_back(self) -> None:
        for folder in ("workspace", "home", "generated"):
            take_back(self.run_dir / folder)

    def _finish(self) -> None:
        from studio.runs.final import assemble_final

        record = self.record
        assemble_final(self.store, record)
        record.status = RunStatus.COMPLETED
        record.message = None
        save_run(self.run_dir, record)

    def _release(self, sub: SubtaskRecord, source: Path, dest: str) -> None:
        """Copy a file of the run into the workspace the agent controls, never through a link it planted:
        a link or file standing in the way is replaced, and the repair recorded (studio.untrusted)."""
        try:
            sub.repairs += write_file(self.workspace, dest, source)
        except UntrustedFileError as refused:
            raise RunError(f"cannot release {dest} into {self.workspace}: {refused}") from None


class HarnessFailed(RunError):
    """The harness exited non-zero: the subtask has no checkpoint and is rerun on resume."""


class CheckpointRefused(RunError):
    """The workspace broke a limit of studio.untrusted (a file too large, a hard link out): no checkpoint."""


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def _tokens(harness: Harness, log: Path) -> dict[str, int] | None:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    counts = harness.tokens(text)
    return None if counts is None else counts.as_dict()


def cancel_run(run_dir: Path) -> RunRecord:
    """Ask the process executing the run to stop it; a run no process executes is marked cancelled."""
    run_dir = Path(run_dir)
    record = load_run(run_dir)
    if record.status == RunStatus.COMPLETED:
        raise RunError(f"run {record.run_id} has completed: there is nothing to cancel")
    (run_dir / CANCEL_FILE).touch()
    if not is_live(run_dir):
        record.status = RunStatus.CANCELLED
        record.message = f"cancelled; `dbstudio runs resume {record.run_id}` goes on from its last checkpoint"
        for sub in record.subtasks:
            if sub.status == SubtaskStatus.RUNNING:
                sub.status = SubtaskStatus.PENDING
        save_run(run_dir, record)
        try:
            with DockerEngine.connect() as engine:
                engine.kill_labelled({"dbstudio.run": record.run_id})
        except RunError:
            pass
    return record
