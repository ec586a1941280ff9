"""`dbstudio edit-impact PROJECT [--against REV] [--benchmark BENCHMARK] [--json]`: before re-judging,
which judged submissions' scores a rubric edit makes stale and which orders it can reverse. Before:
the rubrics at revision REV (default HEAD), which the stored verdicts were given on; after: the
working tree. docs/edit-impact.md gives the rules."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.errors import StudioError

if TYPE_CHECKING:
    from studio.benchmark.edit_impact import BenchmarkEditImpact
    from studio.judging.edit_impact import ProjectEditImpact
    from studio.model import Project



def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("A verdict counts only on the criterion version it was given on (text, weight and gate), as in "
                     "every score: an edit of those stales it, and the score after the edit is the exact range over "
                     "every completion of the stale and new verdicts. Exit 0 whatever the impact.")
    parser.add_argument("project", help="the project folder (the one holding project.yaml)")
    parser.add_argument("--against", metavar="REV", default="HEAD",
                        help="the saved revision the rubrics are compared with (default: HEAD, the last save)")
    parser.add_argument("--benchmark", metavar="BENCHMARK",
                        help="a benchmark holding the project (its benchmark.yaml or folder): also whether its "
                             "systems' order by their means over the shared project set can change")
    parser.add_argument("--judge", metavar="judge:MODEL",
                        help="the one judge whose verdicts count (default: every judge; with --benchmark, its judge)")
    parser.add_argument("--run", dest="runs", action="append", metavar="RUN",
                        help="only this run or submission (repeat for several; default: every judged one)")
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from studio.cli.verdicts_cmd import load_project_checked
    from studio.judging.decisions import select_submissions
    from studio.judging.edit_impact import project_edit_impact
    from studio.judging.verdict_store import VerdictStore
    from studio.judging.verdicts import is_judge

    if args.benchmark is not None and (args.judge or args.runs):
        return _fail("--benchmark scores each system's reported submission with the benchmark's judge: leave out "
                     "--judge and --run")
    if args.judge is not None and not is_judge(args.judge):
        return _fail(f"--judge {args.judge}: a judge is named judge:MODEL, e.g. judge:gpt-5")
    try:
        after, _, _ = load_project_checked(args.project)
        before, revision = _saved(Path(args.project), args.against)
        benchmark: BenchmarkEditImpact | None = None
        if args.benchmark is not None:
            from studio.benchmark.edit_impact import benchmark_edit_impact

            benchmark = benchmark_edit_impact(args.benchmark, after.root, before, after.project)
            impact = benchmark.project
        else:
            store = VerdictStore(after.root)
            submissions = select_submissions(store, args.runs) if args.runs else None
            impact = project_edit_impact(after.root, before, after.project, judge=args.judge, submissions=submissions,
                                         systems=_system_names(after.root, submissions or store.submissions()))
    except StudioError as exc:
        return _fail(str(exc))
    if args.format == "json":
        from studio.judging.edit_impact_report import impact_json

        data = {"against": revision, "after": "working tree", **impact_json(impact)}
        if benchmark is not None:
            data["benchmark"] = benchmark.to_json()
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(impact_text(impact, revision, args.project))
        if benchmark is not None:
            print()
            print(benchmark.text())
    return ExitCode.OK


def _fail(message: str) -> int:
    print(f"dbstudio edit-impact: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def _saved(root: Path, rev: str) -> tuple[Project, str]:
    """The project as revision `rev` saved it, refused with its located problems when it does not load."""
    from studio.judging.edit_impact import refuse_problems
    from studio.store.saved_project import load_project_at

    loaded, revision = load_project_at(root, rev)
    refuse_problems(loaded, f"at revision {revision[:8]}",
                    f"compare with another revision (--against REV; `dbstudio history {root}` lists them)")
    return loaded.project, revision


def _system_names(root: Path, submissions: list[str]) -> dict[str, str]:
    from studio.judging.tables import system_names

    return system_names(root, submissions)


def impact_text(impact: ProjectEditImpact, revision: str, folder: str) -> str:
    from studio.judging.edit_impact_report import changes_text, choice_text, flips_text, impact_rows, rejudge_text

    lines = [f"{impact.project_id}: rubrics as saved at {revision[:8]} -> as in the working tree",
             changes_text(impact), choice_text(impact.judge)]
    if not impact.submissions:
        lines.append("no judged submissions: no score to change")
        return "\n".join(lines)
    rows = impact_rows(impact)
    width = max(len("submission"), *(len(row.submission) for row in rows))
    lines += ["", f"{'submission':<{width}}  {'score':<8} {'before':<14} {'after':<14} {'stale':>5} {'missing':>7}"]
    shown = None
    for row in rows:
        name = row.submission if row.submission != shown else ""
        shown = row.submission
        lines.append(f"{name:<{width}}  {row.score:<8} {row.before:<14} {row.after:<14} {row.stale:>5} "
                     f"{row.missing:>7}{'' if row.changed else '  (unchanged)'}")
    heading, *flips = flips_text(impact)
    lines += ["", heading, *("  " + line for line in flips), rejudge_text(impact, folder)]
    return "\n".join(lines)
