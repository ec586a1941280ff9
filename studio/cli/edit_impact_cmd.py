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
    from studio.scoring.bounds import ScoreRange
    from studio.scoring.edit_impact import Flip



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
        data = impact_json(impact, revision)
        if benchmark is not None:
            data["benchmark"] = benchmark_json(benchmark)
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(impact_text(impact, revision, args.project))
        if benchmark is not None:
            print()
            print(benchmark_text(benchmark))
    return ExitCode.OK


def _fail(message: str) -> int:
    print(f"dbstudio edit-impact: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def _saved(root: Path, rev: str) -> tuple[Project, str]:
    """The project as revision `rev` saved it, refused with its located problems when it does not load."""
    from studio.judging.edit_impact import EditImpactError
    from studio.store.saved_project import load_project_at

    loaded, revision = load_project_at(root, rev)
    problems = [p for p in loaded.problems if p.file.endswith(".yaml") and not p.file.startswith("comments/")]
    if problems or loaded.project.info is None:
        lines = [f"  {p.file}:{':'.join(map(str, loaded.locate(p)))}: {p.message}" for p in problems[:10]]
        raise EditImpactError(f"the project at revision {revision[:8]} does not load, so the rubrics the verdicts "
                              "were given on are not known:\n" + "\n".join(lines)
                              + f"\ncompare with another revision (--against REV; `dbstudio history {root}` lists them)")
    return loaded.project, revision


def _system_names(root: Path, submissions: list[str]) -> dict[str, str]:
    from studio.judging.tables import system_names

    return system_names(root, submissions)


# -- text ----------------------------------------------------------------------------------------
def _show(span: ScoreRange | None) -> str:
    from studio.scoring.edit_impact import span_text

    return span_text(span)


def impact_text(impact: ProjectEditImpact, revision: str, folder: str) -> str:
    from studio.scoring.edit_impact import flip_text

    lines = [f"{impact.project_id}: rubrics as saved at {revision[:8]} -> as in the working tree"]
    if impact.changes:
        lines.append("criteria changed: " + "; ".join(
            c.text() + (" (its verdicts stop counting)" if c.stales else "") for c in impact.changes))
    else:
        lines.append("criteria changed: none that a score reads (text, weight, gate, requires)")
    lines.append("verdicts counted: adjudicated, else the experts agreeing, else "
                 + (impact.judge or "every judge agreeing"))
    if not impact.submissions:
        lines.append("no judged submissions: no score to change")
        return "\n".join(lines)
    width = max(len("submission"), *(len(impact.systems[s.submission]) for s in impact.submissions))
    lines += ["", f"{'submission':<{width}}  {'score':<8} {'before':<14} {'after':<14} {'stale':>5} {'missing':>7}"]
    for sub in impact.submissions:
        name = impact.systems[sub.submission]
        if not sub.changed:
            lines.append(f"{name:<{width}}  unchanged: final {_show(sub.final[0])}, process {_show(sub.process[0])}")
            continue
        process_stale = sum(len(r.stale) for s, r in sub.rubrics.items() if s != "final")
        process_missing = sum(r.missing for s, r in sub.rubrics.items() if s != "final")
        final = sub.rubrics.get("final")
        rows = [("final", sub.final, len(final.stale) if final else 0, final.missing if final else 0),
                ("process", sub.process, process_stale, process_missing)]
        rows += [(scope, (r.before, r.after), len(r.stale), r.missing) for scope, r in sub.rubrics.items()
                 if scope != "final" and r.before != r.after]
        for number, (label, (was, now), stale, missing) in enumerate(rows):
            lines.append(f"{name if number == 0 else '':<{width}}  {label:<8} {_show(was):<14} {_show(now):<14} "
                         f"{stale:>5} {missing:>7}")
    lines.append("")
    if impact.flips:
        lines.append(f"orders the edit can change ({len(impact.flips)}):")
        lines += ["  " + flip_text(_named(f, impact.systems)) for f in impact.flips]
    else:
        lines.append("orders the edit can change: none (every pair ranked before keeps its order)")
    lines.append(_rejudge_text(impact, folder))
    return "\n".join(lines)


def _named(flip: Flip, systems: dict[str, str]) -> Flip:
    return flip._replace(above=systems.get(flip.above, flip.above), below=systems.get(flip.below, flip.below))


def _rejudge_text(impact: ProjectEditImpact, folder: str) -> str:
    r = impact.rejudge
    if not r.decisions and not r.checks:
        return "to judge again: nothing"
    text = (f"to judge again: {r.decisions} decision(s) in about {r.requests} judge request(s) at {r.batch} criteria "
            "a request")
    if r.checks:
        text += f", and {r.checks} decided by their programmatic checks"
    if r.judge_verdicts or r.people_verdicts:
        text += (f"; {r.judge_verdicts} judge verdict(s) and {r.people_verdicts} expert verdict(s) in the store stop "
                 "counting (they stay in the store)")
    return text + f" (`dbstudio judge {folder} --run RUN --dry-run` gives the exact requests)"


def benchmark_text(result: BenchmarkEditImpact) -> str:
    from studio.scoring.edit_impact import flip_text

    lines = [f"benchmark {result.benchmark} (judge {result.judge or 'every judge'}): means over the shared set, "
             f"{len(result.shared)} project(s) known before the edit"]
    if not result.shared:
        lines.append("  no project has a known final score for every system: no shared set to rank on")
        return "\n".join(lines)
    width = max(len("system"), *(len(s) for s in result.means))
    lines.append(f"  {'system':<{width}}  {'final before':<14} {'after':<14} {'process before':<14} {'after':<14}")
    for system, means in result.means.items():
        final, process = means["final"], means["process"]
        lines.append(f"  {system:<{width}}  {_show(final[0]):<14} {_show(final[1]):<14} {_show(process[0]):<14} "
                     f"{_show(process[1]):<14}")
    if result.flips:
        lines.append(f"  orders the edit can change ({len(result.flips)}):")
        lines += ["    " + flip_text(f) for f in result.flips]
    else:
        lines.append("  orders the edit can change: none")
    return "\n".join(lines)


# -- JSON ----------------------------------------------------------------------------------------
def _span(span: ScoreRange | None) -> dict | None:
    return None if span is None else {"low": round(span.low, 4), "high": round(span.high, 4), "exact": span.exact}


def _flip(flip: Flip, systems: dict[str, str] | None = None) -> dict:
    named = flip if systems is None else _named(flip, systems)
    return {"measure": flip.measure, "above": named.above, "below": named.below,
            "before": [_span(s) for s in flip.before], "after": [_span(s) for s in flip.after],
            "certain": flip.certain, "tie_only": flip.tie_only, "exact": flip.exact}


def impact_json(impact: ProjectEditImpact, revision: str) -> dict:
    submissions = []
    for sub in impact.submissions:
        submissions.append({
            "submission": sub.submission, "system": impact.systems[sub.submission], "changed": sub.changed,
            "stale": sub.stale, "missing": sub.missing,
            "final": {"before": _span(sub.final[0]), "after": _span(sub.final[1])},
            "process": {"before": _span(sub.process[0]), "after": _span(sub.process[1])},
            "rubrics": {scope: {"before": _span(r.before), "after": _span(r.after), "stale": list(r.stale),
                                "added": list(r.added), "removed": list(r.removed), "missing": r.missing}
                        for scope, r in sub.rubrics.items()}})
    r = impact.rejudge
    return {"project": impact.project_id, "against": revision, "after": "working tree", "judge": impact.judge,
            "changes": [{"scope": c.scope, "criterion": c.criterion, "fields": list(c.fields), "stales": c.stales}
                        for c in impact.changes],
            "submissions": submissions, "flips": [_flip(f, impact.systems) for f in impact.flips],
            "rejudge": {"decisions": r.decisions, "checks": r.checks, "requests": r.requests, "batch": r.batch,
                        "judge_verdicts": r.judge_verdicts, "people_verdicts": r.people_verdicts}}


def benchmark_json(result: BenchmarkEditImpact) -> dict:
    return {"benchmark": result.benchmark, "judge": result.judge, "project": result.project_id,
            "shared": result.shared, "left_out": result.left_out,
            "means": {system: {measure: {"before": _span(pair[0]), "after": _span(pair[1])}
                               for measure, pair in means.items()} for system, means in result.means.items()},
            "flips": [_flip(f) for f in result.flips]}
