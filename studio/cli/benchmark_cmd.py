"""`dbstudio benchmark new|validate|status`: a benchmark of many projects and systems
(studio/benchmark/; docs/benchmark.md).

- `new FOLDER --id ID --title T [--project P ...]`: FOLDER/benchmark.yaml, committed.
- `validate BENCH`: the file checked against its projects, each problem as file:line:column; exit 1
  when there are errors.
- `status BENCH [--format text|json]`: every (system, project) pair: its run, its judging by the
  benchmark's judge, its attempts."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.errors import StudioError

ACTIONS = ("new", "validate", "status", "report")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS, help="new: create a benchmark folder with its benchmark.yaml, "
                                                        "under git; validate: check it against its projects; "
                                                        "status: where every (system, project) pair stands; "
                                                        "report: Table 5 from the reported outcomes")
    parser.add_argument("bench", help="new: the benchmark's folder (created if need be; it may hold the projects "
                                      "already); otherwise a benchmark.yaml, or the folder holding one")
    parser.add_argument("--id", help="new: the benchmark's id (letters, digits, '.', '-', '_')")
    parser.add_argument("--title", help="new: its title")
    parser.add_argument("--project", dest="projects", action="append", default=[], metavar="FOLDER",
                        help="new: a project folder of the benchmark (repeat for several)")
    parser.add_argument("--out", metavar="DIR", help="report: also write the matrices (CSV and one xlsx) and the JSON "
                                                     "into DIR")
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.action != "new" and (args.id or args.title or args.projects):
        return _fail(args.action, "--id, --title and --project go with `benchmark new`; edit benchmark.yaml to "
                                  "change them")
    if args.action != "report" and args.out:
        return _fail(args.action, "--out goes with `benchmark report`")
    return {"new": run_new, "validate": run_validate, "status": run_status, "report": run_report}[args.action](args)


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

    loaded = _load("status", args.bench)
    if loaded is None:
        return ExitCode.UNUSABLE
    if loaded.errors:
        for finding in loaded.errors:
            print(f"{loaded.root / finding.file}:{finding.line}:{finding.column}: {finding.message}", file=sys.stderr)
        return _fail("status", f"{loaded.path} has {len(loaded.errors)} problem(s): fix them first "
                               "(`dbstudio benchmark validate`)")
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

    loaded = _load("report", args.bench)
    if loaded is None:
        return ExitCode.UNUSABLE
    try:
        report = benchmark_report(loaded)
        written = write_report(report, Path(args.out)) if args.out else []
    except StudioError as exc:
        return _fail("report", exc)
    print(json.dumps(report.to_json(), indent=2) if args.format == "json" else report_text(report))
    if written:
        print(f"wrote {', '.join(path.name for path in written)} to {args.out}", file=sys.stderr)
    return ExitCode.OK
