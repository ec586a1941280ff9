"""`dbstudio benchmark export harbor BENCH OUT` and `benchmark import harbor BENCH JOB_DIR`: the whole
benchmark as one Harbor job, and its trials back (studio/benchmark/harbor.py; docs/benchmark.md).
Kept apart from benchmark_cmd.py, which only hands these two actions over."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.cli.exit_codes import ExitCode
from studio.errors import StudioError
from studio.runs.harbor_format import DEFAULT_IMAGE, ENVIRONMENTS, PAPER_CPUS, PAPER_MEMORY_MB

HARBOR_ACTIONS = ("export", "import")
FORMATS = ("harbor",)
EPILOG = ("export harbor BENCH OUT: every project as a Harbor task and OUT/job.yaml running each under every "
          "system's agent; import harbor BENCH JOB_DIR: the job's trials into their projects' runs and "
          "benchmark.yaml's outcomes")
# the options export harbor takes, with their defaults (given to any other action, they are refused)
OPTIONS = {"image": None, "agent_timeout_scale": 1.0, "environment": "docker", "attempts": 1,
           "cpus": float(PAPER_CPUS), "memory_mb": PAPER_MEMORY_MB, "resume_trajectory": True, "check_image": True}


def configure_harbor(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="export harbor BENCH OUT / import harbor BENCH JOB_DIR: the benchmark, then the new "
                             "folder for the export or the Harbor job directory (jobs/<job name>)")
    parser.add_argument("--image", help=f"export: the tasks' base image (default {DEFAULT_IMAGE})")
    parser.add_argument("--agent-timeout-scale", type=float, default=1.0, metavar="X",
                        help="export: multiply every subtask's time limit by X (default 1)")
    parser.add_argument("--environment", choices=ENVIRONMENTS, default="docker",
                        help="export: where Harbor runs the trials (default: the local Docker engine)")
    parser.add_argument("--attempts", type=int, default=1, metavar="N",
                        help="export: trials of each (system, project) pair in the job (default 1)")
    parser.add_argument("--cpus", type=float, default=float(PAPER_CPUS),
                        help=f"export: CPUs of each trial's environment (default {PAPER_CPUS})")
    parser.add_argument("--memory-mb", type=int, default=PAPER_MEMORY_MB, metavar="MB",
                        help=f"export: memory of each trial's environment in MB (default {PAPER_MEMORY_MB})")
    parser.add_argument("--resume-trajectory", action=argparse.BooleanOptionalAction, default=True,
                        help="export: one agent session across the steps, as in a local run (default); "
                             "--no-resume-trajectory starts each step afresh, for agents without resume")
    parser.add_argument("--no-image-check", dest="check_image", action="store_false",
                        help="export: do not start bash in the image on the local Docker engine first "
                             "(for a cloud environment's image that is not on this engine)")


def wants_harbor(args: argparse.Namespace) -> bool:
    """Whether run_harbor handles (or refuses) these arguments."""
    return args.action in HARBOR_ACTIONS or bool(args.paths) or any(
        getattr(args, name) != default for name, default in OPTIONS.items())


def _fail(action: str, message: object) -> int:
    print(f"dbstudio benchmark {action}: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def run_harbor(args: argparse.Namespace) -> int:
    action = args.action
    if action not in HARBOR_ACTIONS:
        return _fail(action, "--image, --agent-timeout-scale, --environment, --attempts, --cpus, --memory-mb, "
                             "--no-resume-trajectory, --no-image-check and a second path go with "
                             "`benchmark export harbor`")
    usage = "benchmark export harbor BENCH OUT" if action == "export" else "benchmark import harbor BENCH JOB_DIR"
    if args.bench not in FORMATS or len(args.paths) != 2:
        return _fail(action, f"give the format and two paths: dbstudio {usage}")
    if action == "import" and any(getattr(args, name) != default for name, default in OPTIONS.items()):
        return _fail(action, "--image, --agent-timeout-scale, --environment, --attempts, --cpus, --memory-mb, "
                             "--no-resume-trajectory and --no-image-check go with `benchmark export harbor`")
    others = [flag for flag, given in (("--id", args.id), ("--title", args.title), ("--project", args.projects),
                                       ("--out", args.out), ("--concurrency", args.concurrency != 1),
                                       ("--endpoint", args.endpoint), ("--model", args.model),
                                       ("--profile", args.profile)) if given]
    if others:
        return _fail(action, f"{', '.join(others)} do not go with `{usage}` (a system's model is in benchmark.yaml)")
    from studio.cli.benchmark_cmd import _usable

    loaded = _usable(action, args.paths[0])
    if isinstance(loaded, int):
        return loaded
    return (_export if action == "export" else _import)(args, loaded)


def _export(args: argparse.Namespace, loaded) -> int:  # noqa: ANN001 (a LoadedBenchmark)
    from studio.benchmark.harbor import export_benchmark_harbor
    from studio.runs.harbor_export import HarborSettings

    settings = HarborSettings(image=args.image, agent_timeout_scale=args.agent_timeout_scale,
                              environment=args.environment, attempts=args.attempts, cpus=args.cpus,
                              memory_mb=args.memory_mb, resume_trajectory=args.resume_trajectory,
                              check_image=args.check_image)
    try:
        done = export_benchmark_harbor(loaded, Path(args.paths[1]), settings)
    except StudioError as exc:
        return _fail("export", exc)
    if args.format == "json":
        print(json.dumps({"out": str(done.out), "job_config": str(done.job_config), "systems": str(done.systems_file),
                          "tasks": {p: str(path) for p, path in done.tasks.items()},
                          "agents": [vars(a) for a in done.agents], "files": done.files}, indent=2))
        return ExitCode.OK
    print(f"wrote {len(done.tasks)} Harbor task(s) ({', '.join(done.tasks)}) and {done.job_config} with "
          f"{len(done.agents)} agent(s):")
    for agent in done.agents:
        print(f"  {agent.system}: {agent.name or agent.import_path} with {agent.model}")
    print(f"run it:  cd {done.out} && harbor run -c {done.job_config.name}")
    print(f"then:    dbstudio benchmark import harbor {args.paths[0]} {done.out}/jobs/<job name>")
    return ExitCode.OK


def _import(args: argparse.Namespace, loaded) -> int:  # noqa: ANN001 (a LoadedBenchmark)
    from studio.benchmark.harbor import import_benchmark_harbor
    from studio.cli.harbor_cmd import trial_line

    try:
        report = import_benchmark_harbor(loaded, Path(args.paths[1]))
    except StudioError as exc:
        return _fail("import", exc)
    if args.format == "json":
        print(json.dumps({"job_id": report.job_id, "benchmark": str(loaded.path),
                          "trials": [{"project": p, **vars(t)} for p, t in report.trials],
                          "outcomes": [dict(zip(("system", "project", "submission", "reason"), o, strict=True))
                                       for o in report.outcomes],
                          "removed": [dict(zip(("system", "project", "submission"), o, strict=True))
                                      for o in report.removed]}, indent=2))
    else:
        for project, trial in report.trials:
            print((f"{project}: " if project else "") + trial_line(trial))
        for system, project, run_id in report.removed:
            print(f"outcome {system} on {project}: {run_id} taken out (Harbor cancelled that trial and ran it again)")
        for system, project, run_id, reason in report.outcomes:
            print(f"outcome {system} on {project}: {run_id}" + (f" (selected: false, {reason})" if reason else ""))
        print(f"{len(report.outcomes)} outcome(s) added to {loaded.path} from Harbor job {report.job_id}",
              file=sys.stderr)
    return ExitCode.PROBLEMS if report.problems else ExitCode.OK
