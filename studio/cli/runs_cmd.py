"""`dbstudio run PROJECT ...` and `dbstudio runs list|show|resume|cancel|export|diff`: trial runs
in Docker along the project timeline, their checkpoints and their final package."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from studio.cli.exit_codes import ExitCode
from studio.runs.confinement import DEFAULT_PIDS_LIMIT

ACTIONS = ("list", "show", "resume", "cancel", "export", "diff")


def _runs_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs-dir", metavar="DIR", help="where the runs live (default: the project's runs/ folder)")


def configure_run(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "HARNESS is script:PATH (a script run once per subtask in the workspace) or a preset: "
        "claude-code, codex, gemini, qwen, kimi (docs/runs.md)"
    )
    parser.add_argument("project", help="the project folder")
    parser.add_argument("--harness", required=True, help="script:PATH or a preset name")
    parser.add_argument("--image", required=True, help="a Docker image on the local engine")
    parser.add_argument("--system", metavar="ID",
                        help="the benchmark system the run tries (docs/benchmark.md); store-mode scores group runs by it")
    parser.add_argument("--model", metavar="M", help="with --system: the model the harness runs, as recorded")
    parser.add_argument("--harness-version", metavar="V", help="with --system: the harness CLI's version, as recorded")
    parser.add_argument("--cpus", type=float, default=2.0, help="CPUs per container (default 2)")
    parser.add_argument("--memory", default="8g", help="memory per container, e.g. 8g (default)")
    parser.add_argument("--network", action="store_true", help="let the agent reach the network (off by default)")
    parser.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every subtask's time limit by X (e.g. 0.05 for a smoke run)",
    )
    parser.add_argument(
        "--user",
        metavar="UID:GID",
        help="the containers' user (default: yours; 1000:1000 when run as root; never root)",
    )
    parser.add_argument(
        "--pids-limit",
        type=int,
        default=DEFAULT_PIDS_LIMIT,
        metavar="N",
        help=f"processes and threads per container (default {DEFAULT_PIDS_LIMIT})",
    )
    parser.add_argument(
        "--writable-root",
        action="store_true",
        help="let the image write outside /workspace, HOME and /tmp (its root is read-only by default)",
    )
    _runs_dir_option(parser)
    parser.set_defaults(run=run_new)


def configure_runs(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "list PROJECT; show RUN; resume RUN; cancel RUN; export RUN SUBTASK|final OUT "
        "(a folder, or OUT.tar.gz; --force replaces an existing archive); diff RUN SUBTASK_A SUBTASK_B. RUN is a run id or a run folder."
    )
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument("target", help="PROJECT for list, else RUN")
    parser.add_argument("rest", nargs="*", help="export: SUBTASK|final OUT; diff: SUBTASK_A SUBTASK_B")
    parser.add_argument("--stat", action="store_true", help="diff: list the files only, no text diff")
    parser.add_argument("--force", action="store_true", help="export: replace an existing OUT.tar.gz")
    _runs_dir_option(parser)
    parser.set_defaults(run=run_runs)


def _stop_on_sigterm() -> None:
    # A terminated run is saved as interrupted (the runner's handler of any exception).
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _printer(verbose: bool = True) -> Any:
    from studio.runs.runner import RunEvent

    def show(event: RunEvent) -> None:
        done, total = event.record.progress()
        where = f"[{done}/{total}] {event.subtask}" if event.subtask else f"[{done}/{total}]"
        lines = {
            "started": f"{where} started" if event.subtask else f"run {event.record.run_id}: going",
            "released": f"{where} materials released: {event.text}",
            "generated": f"{where} generated release written: {event.text}",
            "repaired": f"{where} the agent's links in the way of the release were replaced: {event.text}",
            "harness": f"{where} harness finished ({event.text})",
            "checkpoint": f"{where} checkpoint {event.text[:12]}",
            "finished": f"run {event.record.run_id}: completed",
            "stopped": f"run {event.record.run_id}: {event.record.status.value}: {event.text}",
        }
        print(lines.get(event.kind, f"{where} {event.kind} {event.text}"), flush=True)

    return show


def run_new(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from studio.runs.errors import RunError
    from studio.runs.record import RunSettings, RunSystem
    from studio.runs.runner import create_run

    if args.system is None and (args.model or args.harness_version):
        raise RunError("--model and --harness-version describe a --system: give its id too (--system ID)")
    system = None
    if args.system is not None:
        try:
            system = RunSystem(id=args.system, model=args.model, harness_version=args.harness_version)
        except ValidationError:
            raise RunError(f"--system {args.system!r}: not a system id: use letters, digits, '.', '-' and '_', "
                           "starting with a letter or digit (as in benchmark.yaml)") from None

    try:
        settings = RunSettings(
            cpus=args.cpus,
            memory=args.memory,
            network=args.network,
            time_limit_scale=args.time_scale,
            user=args.user,
            pids_limit=args.pids_limit,
            writable_root=args.writable_root,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        option = "--" + str(error["loc"][0]).replace("_", "-").replace("time-limit-scale", "time-scale")
        raise RunError(f"{option}: {error['msg']}") from None
    run_dir = create_run(
        Path(args.project), args.harness, args.image, settings, Path(args.runs_dir) if args.runs_dir else None,
        system=system,
    )
    print(f"run {run_dir.name} in {run_dir}", flush=True)
    return _execute(run_dir)


def _execute(run_dir: Path, resuming: bool = False) -> int:
    from studio.runs.record import RunStatus, load_run
    from studio.runs.runner import execute_run

    if resuming:
        done = load_run(run_dir)
        if done.status == RunStatus.COMPLETED:
            finished, total = done.progress()
            print(
                f"run {done.run_id} is complete ({finished}/{total} subtasks, final package "
                f"{(done.final or 'none')[:12]}): there is nothing to resume. Read it with `dbstudio runs show "
                f"{done.run_id}` or export it with `dbstudio runs export {done.run_id} final OUT`; to run the "
                f"project again, start a new run with `dbstudio run {done.project_dir} --harness ... --image ...`"
            )
            return ExitCode.OK
    _stop_on_sigterm()
    try:
        record = execute_run(run_dir, _printer())
    except KeyboardInterrupt:
        print(f"run {run_dir.name}: stopped; `dbstudio runs resume {run_dir.name}` goes on", file=sys.stderr)
        return ExitCode.INTERRUPTED
    if record.status == RunStatus.COMPLETED:
        if record.final_missing:
            print(f"final package: missing {', '.join(record.final_missing)}")
        return ExitCode.OK
    return ExitCode.PROBLEMS


def _run_dir(target: str, runs_dir: str | None) -> Path:
    from studio.runs.record import RECORD_FILE, find_run

    path = Path(target)
    if (path / RECORD_FILE).is_file():
        return path
    if runs_dir:
        return find_run(target, Path(runs_dir))
    here = Path.cwd()
    default = here / "runs" if (here / "project.yaml").is_file() else here
    return find_run(target, default)


def run_runs(args: argparse.Namespace) -> int:
    wanted = {"export": 2, "diff": 2}.get(args.action, 0)
    if len(args.rest) != wanted:
        usage = {"export": "RUN SUBTASK|final OUT", "diff": "RUN SUBTASK_A SUBTASK_B"}.get(args.action, args.target)
        print(f"dbstudio runs {args.action}: give {usage}", file=sys.stderr)
        return ExitCode.UNUSABLE
    if args.action == "list":
        return _list(Path(args.target), args.runs_dir)
    run_dir = _run_dir(args.target, args.runs_dir)
    if args.action == "show":
        return _show(run_dir)
    if args.action == "resume":
        return _execute(run_dir, resuming=True)
    if args.action == "cancel":
        from studio.runs.runner import cancel_run

        record = cancel_run(run_dir)
        print(
            f"run {record.run_id}: cancel requested"
            if record.status.value == "running"
            else f"run {record.run_id}: {record.status.value}"
        )
        return ExitCode.OK
    if args.action == "export":
        return _export(run_dir, args.rest[0], Path(args.rest[1]), args.force)
    return _diff(run_dir, args.rest[0], args.rest[1], args.stat)


def _list(project: Path, runs_dir: str | None) -> int:
    from studio.runs.record import list_runs, shown_status
    from studio.runs.runner import default_runs_dir

    folder = Path(runs_dir) if runs_dir else default_runs_dir(project)
    runs = list_runs(folder)
    if not runs:
        print(f"no runs in {folder}")
        return ExitCode.OK
    print(f"{'run':<24} {'status':<12} {'done':>5}  {'harness':<28} image")
    for path, record in runs:
        done, total = record.progress()
        harness = record.harness if len(record.harness) <= 28 else "…" + record.harness[-27:]
        print(
            f"{record.run_id:<24} {shown_status(path, record).value:<12} {done:>2}/{total:<2}  {harness:<28} "
            f"{record.image}"
        )
    return ExitCode.OK


def _show(run_dir: Path) -> int:
    from studio.runs.record import load_run, shown_status

    record = load_run(run_dir)
    done, total = record.progress()
    commit = (record.project_commit or "no commit")[:12] + (
        " (with uncommitted changes)" if record.project_dirty else ""
    )
    print(f"run {record.run_id}: {shown_status(run_dir, record).value}, {done}/{total} subtasks")
    print(f"  project {record.project_id} at {commit} ({record.project_dir})")
    print(f"  harness {record.harness}; image {record.image} ({(record.image_id or '?')[:19]})")
    if record.system is not None:
        details = [f"model {record.system.model}" if record.system.model else "",
                   f"harness version {record.system.harness_version}" if record.system.harness_version else ""]
        print(f"  system {record.system.id}" + "".join(f"; {d}" for d in details if d))
    s = record.settings
    print(
        f"  limits {s.cpus:g} CPUs, {s.memory} memory, network {'on' if s.network else 'off'}"
        + (f", time limits x{s.time_limit_scale:g}" if s.time_limit_scale != 1 else "")
        + f", {s.pids_limit} pids, root file system {'writable' if s.writable_root else 'read-only'}"
        + (f", user {s.user}" if s.user else "")
    )
    if record.message:
        print(f"  {record.message}")
    for sub in record.subtasks:
        took = f"{(sub.ended - sub.started).total_seconds():.1f} s" if sub.started and sub.ended else ""
        extra = [
            f"exit {sub.exit_code}" if sub.exit_code is not None else "",
            took,
            f"checkpoint {sub.checkpoint[:12]}" if sub.checkpoint else "",
            ", ".join(f"{k} {v}" for k, v in (sub.tokens or {}).items()),
        ]
        print(f"  {sub.id:<10} {sub.status.value:<10} " + "  ".join(part for part in extra if part))
        for repair in sub.repairs:  # a link the agent planted where a release went: replaced, not followed
            print(f"    repaired before {sub.id}: {repair}")
    if record.final:
        print(
            f"  final package {record.final[:12]}"
            + (f"; missing {', '.join(record.final_missing)}" if record.final_missing else "")
        )
    return ExitCode.OK


def _manifest(run_dir: Path, which: str) -> Any:
    from studio.runs.errors import RunError
    from studio.runs.record import load_run
    from studio.runs.runner import store_of

    record = load_run(run_dir)
    if which == "final":
        if record.final is None:
            raise RunError(f"run {record.run_id} has no final package yet: it is assembled when the run completes")
        return store_of(run_dir).manifest(record.final)
    sub = record.subtask(which)
    if sub.checkpoint is None:
        raise RunError(f"run {record.run_id} has no checkpoint of {which} yet (status {sub.status.value})")
    return store_of(run_dir).manifest(sub.checkpoint)


def _export(run_dir: Path, which: str, out: Path, force: bool) -> int:
    from studio.runs.errors import RunError
    from studio.runs.runner import store_of

    manifest = _manifest(run_dir, which)
    store = store_of(run_dir)
    if out.name.endswith((".tar.gz", ".tgz")):
        if (out.exists() or out.is_symlink()) and not force:
            raise RunError(f"{out} already exists: give --force to replace it, or another name")
        if out.is_dir() and not out.is_symlink():
            raise RunError(f"{out} is a folder: give the archive another name")
        store.export_tar(manifest, out)
    else:
        store.export_folder(manifest, out)
    print(f"wrote {which} of run {run_dir.name} ({len(manifest.files())} files) to {out}")
    return ExitCode.OK


def _diff(run_dir: Path, a: str, b: str, stat_only: bool) -> int:
    from studio.runs.runner import store_of
    from studio.untrusted import shown

    store = store_of(run_dir)
    first, second = _manifest(run_dir, a), _manifest(run_dir, b)
    diff = store.diff(first, second)
    for mark, paths in (("A", diff.added), ("D", diff.removed), ("M", diff.changed)):
        for path in paths:
            print(f"{mark} {shown(path)}")  # an agent's name may hold newlines or terminal escapes
    if not stat_only:
        for path in diff.changed:
            text = store.text_diff(first, second, path)
            print(f"\n{text}" if text is not None else f"\nbinary file {shown(path)} differs")
    if diff.is_empty():
        print(f"no difference between {a} and {b}")
    return ExitCode.OK
