"""`dbstudio export harbor PROJECT OUT` and `dbstudio import harbor JOB_DIR PROJECT`: a project as a
Harbor multi-step task for runs at scale, and Harbor's trials back as runs of the project.
The format word comes first so that other formats can join later."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.errors import StudioError
from studio.runs.harbor_format import DEFAULT_AGENT, DEFAULT_IMAGE, ENVIRONMENTS, PAPER_CPUS, PAPER_MEMORY_MB

if TYPE_CHECKING:
    from studio.runs.harbor_import import TrialOutcome

EXPORT_FORMATS = ("harbor",)
IMPORT_FORMATS = ("harbor",)


def configure_export(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "harbor: writes OUT/<project id>/ (a Harbor multi-step task, one step per subtask) and "
        "OUT/job.yaml (run it with `harbor run -c OUT/job.yaml` from any folder); no evaluator file is exported; "
        "the image is checked for bash first (and python3 when a generated release needs it). "
        "See docs/scale-out.md"
    )
    # dest "kind": the positional must not share its name with --format (the output format)
    parser.add_argument("kind", metavar="format", choices=EXPORT_FORMATS, help="the format to write")
    parser.add_argument("project", help="the project folder")
    parser.add_argument("out", help="a new (or empty) folder for the export")
    parser.add_argument(
        "--image",
        help=f"the environment's base image (default: {DEFAULT_IMAGE}; it needs bash, "
        "and python3 for the project's scripts)",
    )
    parser.add_argument(
        "--agent-timeout-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every subtask's time limit by X (default 1)",
    )
    parser.add_argument(
        "--environment",
        choices=ENVIRONMENTS,
        default="docker",
        help="where Harbor runs the trials (default: the local Docker engine)",
    )
    parser.add_argument(
        "--agent",
        default=DEFAULT_AGENT,
        help=f"the Harbor agent in the job config (default {DEFAULT_AGENT}; it must support resume, "
        "or give --no-resume-trajectory)",
    )
    parser.add_argument(
        "--resume-trajectory",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="one agent session across the steps, as in a local run (default); --no-resume-trajectory "
        "starts each step afresh, for an agent without resume such as Harbor's offline nop",
    )
    parser.add_argument(
        "--no-image-check",
        dest="check_image",
        action="store_false",
        help="do not start bash in the image on the local Docker engine before exporting "
        "(for a cloud environment's image that is not on this engine)",
    )
    parser.add_argument("--model", help="the model the agent uses, e.g. anthropic/claude-sonnet-4-5")
    parser.add_argument("--attempts", type=int, default=1, metavar="N", help="trials in the job (default 1)")
    parser.add_argument(
        "--cpus",
        type=float,
        default=float(PAPER_CPUS),
        help=f"CPUs of each trial's environment (default {PAPER_CPUS}, as in the paper)",
    )
    parser.add_argument(
        "--memory-mb",
        type=int,
        default=PAPER_MEMORY_MB,
        metavar="MB",
        help=f"memory of each trial's environment in MB (default {PAPER_MEMORY_MB})",
    )
    add_format_option(parser)
    parser.set_defaults(run=run_export)


def configure_import(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "harbor: one run per finished trial of the project's task, one checkpoint per completed step; "
        "importing the same job again adds only trials not imported yet"
    )
    parser.add_argument("kind", metavar="format", choices=IMPORT_FORMATS, help="the format to read")
    parser.add_argument("job_dir", help="the Harbor job directory (jobs/<job name>)")
    parser.add_argument("project", help="the project folder the job's task was exported from")
    parser.add_argument("--runs-dir", metavar="DIR", help="where the runs live (default: the project's runs/ folder)")
    parser.add_argument(
        "--task",
        metavar="DIR",
        help="the exported task the trials ran (OUT/<project id>), when the job folder was moved away from it",
    )
    add_format_option(parser)
    parser.set_defaults(run=run_import)


def _fail(command: str, message: str) -> int:
    print(f"dbstudio {command}: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def trial_line(trial: TrialOutcome) -> str:
    """What an import did with one trial, in one line (the trial's name escaped: it comes from the job folder)."""
    from studio.untrusted import shown

    name = shown(trial.trial)
    if trial.action == "imported":
        partial = f" ({trial.message})" if trial.done < trial.total else ""
        return f"{name}: run {trial.run_id}, {trial.done}/{trial.total} checkpoints{partial}"
    if trial.action == "already imported":
        return f"{name}: already imported as run {trial.run_id}"
    if trial.action == "replaced":
        return f"{name}: {trial.message}"
    return f"{name}: not imported, {trial.message}"


def run_export(args: argparse.Namespace) -> int:
    from studio.runs.harbor_export import HarborSettings, export_harbor

    settings = HarborSettings(
        image=args.image,
        agent_timeout_scale=args.agent_timeout_scale,
        environment=args.environment,
        agent=args.agent,
        model=args.model,
        attempts=args.attempts,
        cpus=args.cpus,
        memory_mb=args.memory_mb,
        resume_trajectory=args.resume_trajectory,
        check_image=args.check_image,
    )
    try:
        done = export_harbor(Path(args.project), Path(args.out), settings)
    except StudioError as exc:
        return _fail("export", str(exc))
    if args.format == "json":
        print(
            json.dumps(
                {
                    "out": str(done.out),
                    "task": str(done.task_dir),
                    "job_config": str(done.job_config),
                    "steps": list(done.steps),
                    "files": done.files,
                },
                indent=2,
            )
        )
    else:
        print(f"wrote a Harbor task of {len(done.steps)} steps ({', '.join(done.steps)}) to {done.task_dir}")
        print(f"run it:  harbor run -c {done.job_config}")
        print(f"then:    dbstudio import harbor {done.out}/jobs/<job name> {args.project}")
    return ExitCode.OK


def run_import(args: argparse.Namespace) -> int:
    from studio.runs.harbor_import import import_harbor

    try:
        report = import_harbor(
            Path(args.job_dir),
            Path(args.project),
            Path(args.runs_dir) if args.runs_dir else None,
            task_dir=Path(args.task) if args.task else None,
        )
    except StudioError as exc:
        return _fail("import", str(exc))
    if args.format == "json":
        print(
            json.dumps(
                {"job_id": report.job_id, "runs_dir": str(report.runs_dir), "trials": [vars(t) for t in report.trials]},
                indent=2,
            )
        )
        return ExitCode.OK
    from studio.untrusted import shown

    for trial in report.trials:
        print(trial_line(trial))
    added = len(report.added)
    print(
        f"{added} run{'s' if added != 1 else ''} added to {report.runs_dir} from Harbor job {report.job_id}"
        + ("" if added or report.trials else f": the job folder {report.job_dir} holds no trial folder yet"),
        file=sys.stderr,
    )
    if not added:  # name each trial and why it added nothing, where the summary line is read
        for trial in report.trials:
            why = f"already imported as run {trial.run_id}" if trial.action == "already imported" else trial.message
            print(f"  {shown(trial.trial)}: {trial.action}: {why}", file=sys.stderr)
    return ExitCode.OK
