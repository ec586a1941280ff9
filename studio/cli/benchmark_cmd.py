"""`dbstudio benchmark new|validate|status`: a benchmark of many projects and systems
(studio/benchmark/; docs/benchmark.md).

- `new FOLDER --id ID --title T [--project P ...]`: FOLDER/benchmark.yaml, committed.
- `validate BENCH`: the file checked against its projects, each problem as file:line:column; exit 1
  when there are errors.
- `status BENCH [--format text|json]`: every (system, project) pair: its run, its judging by the
  benchmark's judge, its attempts.
- `robustness BENCH [--delta N] [--metric final|process] [--json]`: each system's rank and its
  rank intervals under leaving a project or a criterion out, weights within +-N, and judge error
  within the expert sample's budget (docs/robustness.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.cli.benchmark_harbor_cmd import HARBOR_ACTIONS, configure_harbor, run_harbor, wants_harbor
from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.errors import StudioError

ACTIONS = ("new", "validate", "status", "report", "robustness", "run", "judge") + HARBOR_ACTIONS
# --concurrency's range: each pair at once is a container of its own on the local engine, so a
# typo such as 1000 is refused rather than started
MIN_CONCURRENCY, MAX_CONCURRENCY = 1, 64


def pairs_at_once(value: str) -> int:
    """argparse type of --concurrency: a whole number from MIN_CONCURRENCY to MAX_CONCURRENCY."""
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not MIN_CONCURRENCY <= number <= MAX_CONCURRENCY:
        raise argparse.ArgumentTypeError(f"give a whole number of pairs from {MIN_CONCURRENCY} to "
                                         f"{MAX_CONCURRENCY} (got {value!r})")
    return number


def weight_delta(value: str) -> int:
    """argparse type of --delta: a whole number of weight points from 0 to 9."""
    from studio.scoring.robust_weights import MAX_DELTA

    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not 0 <= number <= MAX_DELTA:
        raise argparse.ArgumentTypeError(f"give a whole number of weight points from 0 to {MAX_DELTA} (got {value!r}): "
                                         "a weight keeps a magnitude from 1 to 10")
    return number


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS, help="new: create a benchmark folder with its benchmark.yaml, "
                                                        "under git; validate: check it against its projects; "
                                                        "status: where every (system, project) pair stands; "
                                                        "report: Table 5 from the reported outcomes; robustness: "
                                                        "each system's rank intervals; run: the pairs "
                                                        "without a run, on the local Docker engine; judge: the "
                                                        "reported runs not fully judged, by the benchmark's judge")
    parser.add_argument("bench", help="new: the benchmark's folder (created if need be; it may hold the projects "
                                      "already); otherwise a benchmark.yaml, or the folder holding one")
    parser.add_argument("--id", help="new: the benchmark's id (letters, digits, '.', '-', '_')")
    parser.add_argument("--title", help="new: its title")
    parser.add_argument("--project", dest="projects", action="append", default=[], metavar="FOLDER",
                        help="new: a project folder of the benchmark (repeat for several)")
    parser.add_argument("--out", metavar="DIR", help="report: also write the matrices (CSV and one xlsx) and the JSON "
                                                     "into DIR")
    parser.add_argument("--delta", type=weight_delta, default=None, metavar="N",
                        help="robustness: how far each weight may move, in points (default 1)")
    parser.add_argument("--metric", choices=("final", "process"), default=None,
                        help="robustness: rank by the final-score mean (default) or the process-score mean")
    parser.add_argument("--concurrency", type=pairs_at_once, default=1, metavar="N",
                        help=f"run: pairs run at once, {MIN_CONCURRENCY} to {MAX_CONCURRENCY} (default 1; each in "
                             "containers of its own)")
    parser.add_argument("--endpoint", metavar="URL", help="judge: the OpenAI-compatible endpoint (default: the pinned "
                                                          "judge's, else the profile's, else OPENAI_BASE_URL)")
    parser.add_argument("--model", metavar="M", help="judge: the model asked (default: the profile's, else the pinned "
                                                     "rater's judge:MODEL)")
    parser.add_argument("--profile", metavar="NAME", help="judge: a judge profile over the pinned one (docs/judging.md)")
    add_format_option(parser)
    # export|import harbor: their own block (benchmark_harbor_cmd.py)
    configure_harbor(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if wants_harbor(args):
        return run_harbor(args)
    if args.action != "new" and (args.id or args.title or args.projects):
        return _fail(args.action, "--id, --title and --project go with `benchmark new`; edit benchmark.yaml to "
                                  "change them")
    if args.action != "report" and args.out:
        return _fail(args.action, "--out goes with `benchmark report`")
    if args.action != "judge" and (args.endpoint or args.model or args.profile):
        return _fail(args.action, "--endpoint, --model and --profile go with `benchmark judge`")
    if args.action != "run" and args.concurrency != 1:
        return _fail(args.action, "--concurrency goes with `benchmark run`")
    if args.action != "robustness" and (args.delta is not None or args.metric is not None):
        return _fail(args.action, "--delta and --metric go with `benchmark robustness`")
    return {"new": run_new, "validate": run_validate, "status": run_status, "report": run_report,
            "robustness": run_robustness, "run": run_pairs, "judge": run_judge}[args.action](args)


def _fail(action: str, message: object) -> int:
    print(f"dbstudio benchmark {action}: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def run_new(args: argparse.Namespace) -> int:
    from studio.benchmark.create import create_benchmark

    if not args.id or not args.title:
        return _fail("new", "give the benchmark an --id and a --title, e.g. --id kestrel-suite --title 'Kestrel suite'")
    try:
        path = create_benchmark(Path(args.bench), args.id, args.title, args.projects)
    except StudioError as exc:
        return _fail("new", exc)
    print(f"created {path} with {len(args.projects)} project(s); add systems and outcomes to it, then "
          f"`dbstudio benchmark status {args.bench}`")
    return ExitCode.OK


def _load(action: str, bench: str):
    from studio.benchmark.loader import NotABenchmarkError, load_benchmark

    try:
        return load_benchmark(bench)
    except NotABenchmarkError as exc:
        _fail(action, exc)
        return None


def _usable(action: str, bench: str):  # noqa: ANN202 (a LoadedBenchmark, or the exit code)
    """The benchmark when it has no errors; else its errors said, each at its place, and exit 2."""
    loaded = _load(action, bench)
    if loaded is None:
        return ExitCode.UNUSABLE
    if loaded.errors or loaded.benchmark is None:
        for finding in loaded.errors:
            print(f"{loaded.root / finding.file}:{finding.line}:{finding.column}: {finding.message}", file=sys.stderr)
        return _fail(action, f"{loaded.path} has {len(loaded.errors)} problem(s): fix them first "
                             "(`dbstudio benchmark validate`)")
    return loaded


def run_validate(args: argparse.Namespace) -> int:
    loaded = _load("validate", args.bench)
    if loaded is None:
        return ExitCode.UNUSABLE
    findings = loaded.findings
    if args.format == "json":
        print(json.dumps({"benchmark": str(loaded.path), "findings": [f.to_json() for f in findings]}, indent=2))
    else:
        for finding in findings:
            print(f"{loaded.root / finding.file}:{finding.line}:{finding.column}: {finding.severity.value}: "
                  f"{finding.message}")
        if not loaded.errors and loaded.benchmark is not None:
            b = loaded.benchmark
            print(f"{b.id}: {len(loaded.projects)} project(s), {len(b.systems)} system(s), "
                  f"{len(loaded.reported())} reported outcome(s) of {len(loaded.projects) * len(b.systems)} pairs")
    return ExitCode.PROBLEMS if loaded.errors else ExitCode.OK


def run_status(args: argparse.Namespace) -> int:
    from studio.benchmark.status import benchmark_status

    loaded = _usable("status", args.bench)
    if isinstance(loaded, int):
        return loaded
    pairs = benchmark_status(loaded)
    if args.format == "json":
        print(json.dumps({"benchmark": str(loaded.path), "judge": loaded.benchmark.judge_rater,
                          "pairs": [p.to_json() for p in pairs]}, indent=2))
        return ExitCode.OK
    width = max([len(p.system) for p in pairs] + [6])
    pwidth = max([len(p.project) for p in pairs] + [7])
    print(f"{'system':<{width}}  {'project':<{pwidth}}  {'submission':<24}  status")
    for p in pairs:
        submission = "—" if p.outcome is None else p.outcome.submission
        print(f"{p.system:<{width}}  {p.project:<{pwidth}}  {submission:<24}  {p.text}")
    scored = sum(1 for p in pairs if p.judging == "scored")
    print(f"{scored} of {len(pairs)} pairs scored"
          + (f" by {loaded.benchmark.judge_rater}" if loaded.benchmark.judge_rater else
             " (no judge named in benchmark.yaml: every judge's verdicts count)"))
    return ExitCode.OK


def run_report(args: argparse.Namespace) -> int:
    from studio.benchmark.report import benchmark_report, report_text, write_report

    loaded = _usable("report", args.bench)  # its errors located, as status, run and judge say them
    if isinstance(loaded, int):
        return loaded
    try:
        from studio.benchmark.reading import BenchmarkReading
        from studio.benchmark.report import with_lineage

        reading = BenchmarkReading(loaded)  # each project read once, for Table 5 and the lineage alike
        report = with_lineage(benchmark_report(loaded, reading), loaded, reading)
        written = write_report(report, Path(args.out)) if args.out else []
    except StudioError as exc:
        return _fail("report", exc)
    print(json.dumps(report.to_json(), indent=2) if args.format == "json" else report_text(report))
    if written:
        print(f"wrote {', '.join(path.name for path in written)} to {args.out}", file=sys.stderr)
    return ExitCode.OK


def run_robustness(args: argparse.Namespace) -> int:
    from studio.benchmark.robustness import benchmark_robustness, robustness_text

    loaded = _usable("robustness", args.bench)
    if isinstance(loaded, int):
        return loaded
    try:
        result = benchmark_robustness(loaded, args.metric or "final", 1 if args.delta is None else args.delta)
    except StudioError as exc:
        return _fail("robustness", exc)
    print(json.dumps(result.to_json(), indent=2) if args.format == "json" else robustness_text(result))
    return ExitCode.OK


def run_judge(args: argparse.Namespace) -> int:
    from studio.benchmark.judging import judge_benchmark, judge_settings, to_judge

    loaded = _usable("judge", args.bench)
    if isinstance(loaded, int):
        return loaded
    pending = to_judge(loaded)
    try:  # each project's own profile file, checked before anything is asked
        settings = judge_settings(loaded, args.endpoint, args.model, args.profile, {p.project for p in pending})
    except StudioError as exc:
        return _fail("judge", exc)
    if not pending:
        print("nothing to judge: every reported run that stopped is scored (`dbstudio benchmark status` shows each pair)")
        return ExitCode.OK
    described = {project: s.describe() for project, s in sorted(settings.items())}
    if len(set(described.values())) == 1:
        print(f"judging {len(pending)} pair(s) with {next(iter(described.values()))}", flush=True)
    else:  # the projects' profile files differ: say so, each project's judge shown
        print(f"judging {len(pending)} pair(s); the projects' profiles differ (pin the settings under judge.settings "
              "in benchmark.yaml to judge them all alike):", flush=True)
        for project, text in described.items():
            print(f"  {project}: {text}", flush=True)
    results = judge_benchmark(loaded, settings, progress=lambda p: print(
        f"  [{p.done}/{p.total}] {p.submission} {p.scope}", flush=True))
    pinned = loaded.benchmark.judge_rater
    trouble = 0
    for r in results:
        where = f"{r.system} on {r.project} ({r.submission})"
        if r.error is not None:
            trouble += 1
            print(f"{where}: not judged: {r.error}")
            continue
        summary = r.summary
        assert summary is not None
        trouble += bool(summary.missing)
        skipped = f"; no checkpoint for {', '.join(r.skipped)}" if r.skipped else ""
        print(f"{where}: judged {summary.judged}, reused {summary.reused}, missing {summary.missing}{skipped}")
        others = [rater for rater in summary.raters if pinned and rater != pinned]
        if others:
            print(f"  stored as {', '.join(others)}, but benchmark.yaml reports {pinned}'s verdicts: the report will "
                  "not count these (pin the rater that answered, or ask the pinned model)", file=sys.stderr)
    print(f"{len(results) - trouble} of {len(pending)} pair(s) judged in full; `dbstudio benchmark report "
          f"{args.bench}` for Table 5")
    return ExitCode.PROBLEMS if trouble else ExitCode.OK


def run_pairs(args: argparse.Namespace) -> int:
    from studio.benchmark.running import run_benchmark, to_run

    loaded = _usable("run", args.bench)
    if isinstance(loaded, int):
        return loaded
    pending = to_run(loaded)
    if not pending:
        print("nothing to run: every pair has a run (`dbstudio benchmark status` shows each)")
        return ExitCode.OK
    print(f"running {len(pending)} pair(s), {args.concurrency} at once", flush=True)

    def shown(system: str, project: str, event: object) -> None:
        kind, subtask = getattr(event, "kind", ""), getattr(event, "subtask", "") or ""
        if kind in ("started", "checkpoint", "stopped", "finished"):
            print(f"  {system} on {project}:{' ' + subtask if subtask else ''} {kind}", flush=True)

    results = run_benchmark(loaded, args.concurrency, shown)
    failed = 0
    for r in results:
        failed += r.status != "completed"
        detail = f": {r.detail}" if r.detail else ""
        if r.submission is None:  # refused before a run existed (no image, an unknown harness): nothing written
            print(f"{r.system} on {r.project}: {r.status}{detail}")
            continue
        what = "resumed" if r.resumed else "ran"
        print(f"{r.system} on {r.project}: {what} {r.submission}, {r.status}{detail}")
    print(f"{len(results) - failed} of {len(results)} pair(s) completed; outcomes in {loaded.path}")
    return ExitCode.PROBLEMS if failed else ExitCode.OK
