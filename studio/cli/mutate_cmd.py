"""`dbstudio mutate PROJECT [--kinds K,...] [--list | --report] [--judge | --profile NAME ...] [--json]`:
mutation testing of the project's rubrics on the expert's reference package (evaluator/reference/).

Each mutant plants one of the failures the project is built to expose (a correction not applied, a status
rolled back, a figure that no longer agrees across two linked files, a required file or a section left out)
where the dependency map says it can occur; the programmatic checks, and with `--judge` (or a profile) the
LLM judge, decide every criterion of the mutant's scope, and the report says which criteria kill it, or
that it survives — a gap in the rubric, which `dbstudio review` then lists with a suggested criterion."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from studio.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from studio.mutation.runner import MutationProgress


def configure(parser: argparse.ArgumentParser) -> None:
    from studio.cli.judge_cmd import add_judge_options

    parser.epilog = (
        "Kinds: correction-not-applied, status-rolled-back, cross-file-mismatch, file-removed, section-dropped. "
        "Without --judge (or --profile) only criteria with a programmatic check are decided, and a mutant no "
        "check kills is undecided, not survived. The judge's verdicts on the reference and the mutants are kept "
        "in .dbstudio/mutation/ and reused while their evidence is unchanged; Ctrl-C stops after the mutant "
        "under way and a second run goes on from there (docs/rubric-testing.md)."
    )
    parser.add_argument("project", help="the project folder, with its reference package under evaluator/reference/")
    parser.add_argument("--kinds", metavar="K,...", type=_kinds,
                        help="only these kinds of mutant (comma-separated; default: every kind)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true",
                      help="list the mutants, where each is planted and why there, and judge nothing")
    what.add_argument("--report", action="store_true", help="show the last mutation report again, judge nothing")
    parser.add_argument("--judge", action="store_true",
                        help="run the LLM judge on the reference and each mutant (a --profile implies it)")
    parser.add_argument("--json", action="store_true", help="the report (or with --list the mutants) as JSON")
    add_judge_options(parser)
    parser.set_defaults(run=run)


def _kinds(text: str) -> list[str]:
    from studio.mutation.mutants import KINDS

    kinds = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"unknown kind {', '.join(unknown) or repr(text)}: give any of {', '.join(KINDS)}")
    return kinds


def _fail(message: str) -> int:
    print(f"dbstudio mutate: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def _progress(progress: MutationProgress) -> None:
    if progress.label != "done":
        print(f"[{progress.done + 1}/{progress.total}] {progress.label}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from studio.mutation.reference import MutationError
    from studio.mutation.report import SURVIVED, read_report, report_text
    from studio.mutation.runner import mutate_project, planned_mutants
    from studio.store import layout

    project_dir = Path(args.project).resolve()
    if (problem := layout.not_a_project(project_dir)) is not None:
        return _fail(problem)
    try:
        if args.report:
            report = read_report(project_dir)
            if report is None:
                return _fail(f"{project_dir}: no mutation report yet: run `dbstudio mutate {args.project}` first")
        elif args.list:
            mutants = planned_mutants(project_dir, args.kinds)
            if args.json:
                print(json.dumps([m.to_json() for m in mutants], indent=1, ensure_ascii=False))
            else:
                _print_list(mutants)
            return ExitCode.OK
        else:
            settings = None
            if args.judge or args.profile:
                from studio.cli.judge_cmd import cancel_on_interrupt, settings_of

                settings = settings_of(args, project_dir)
                print(f"judging with {settings.describe()}", file=sys.stderr, flush=True)
                with cancel_on_interrupt() as cancelled:
                    report = mutate_project(project_dir, settings, args.kinds, _progress, cancelled.is_set)
            else:
                report = mutate_project(project_dir, None, args.kinds, _progress)
    except MutationError as exc:
        return _fail(str(exc))
    print(json.dumps(report.to_json(), indent=1, ensure_ascii=False) if args.json else report_text(report))
    if report.cancelled:
        print("interrupted: what was judged is kept; run again to go on", file=sys.stderr)
        return ExitCode.INTERRUPTED
    failing = any(result.failing for result in report.reference.values())
    return ExitCode.PROBLEMS if failing or report.counts()[SURVIVED] else ExitCode.OK


def _print_list(mutants: list) -> None:
    from collections import Counter

    counts = Counter(m.kind.value for m in mutants)
    print(f"{len(mutants)} mutants: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()))
    for mutant in mutants:
        print(f"  {mutant.id:<16} {mutant.kind.value:<23} {mutant.broke}")
        print(f"      at {', '.join(mutant.where[:4])}{' ...' if len(mutant.where) > 4 else ''}; {mutant.because}")
