"""`dbstudio verdicts queue|give|adjudicate`: the review queue of the app on the command line.

`queue PROJECT [--run RUN] [--scope S] [--disagree] [--adjudication] [--rater NAME [--mine]] [--json]` lists the
decisions (with --mine only those assigned to NAME or in the double-coding plan for them, with progress) (submission × scope × criterion) with every rater's verdict; `give PROJECT RUN SCOPE
CRITERION pass|fail|na --rater NAME [--note TEXT]` records an expert's verdict in their own file of
the verdict store; `adjudicate PROJECT RUN SCOPE CRITERION pass|fail|na --by NAME [--note TEXT]`
records the settled verdict (rater `adjudicated`) with the adjudicator's name."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from studio.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from studio.judging.queue import Decision, ReviewQueue

REVIEW_ACTIONS = ("queue", "give", "adjudicate")


def configure_review(parser: argparse.ArgumentParser) -> None:
    """The options of the review actions (the positional operands of give/adjudicate follow OUT)."""
    parser.add_argument(
        "operands",
        nargs="*",
        metavar="SCOPE CRITERION VERDICT",
        help="give, adjudicate: RUN SCOPE CRITERION pass|fail|na after the project folder",
    )
    parser.add_argument("--scope", help="queue: only this subtask id or final")
    parser.add_argument(
        "--disagree", action="store_true", help="queue: only decisions where judge and an expert differ"
    )
    parser.add_argument(
        "--adjudication",
        action="store_true",
        help="queue: only decisions where raters differ (experts, or judge and expert)",
    )
    parser.add_argument(
        "--rater",
        metavar="NAME",
        help="give: the expert's name (their verdicts go to verdicts/RUN/NAME.yaml); "
        "queue: only decisions NAME has not reviewed yet (with --mine: every decision that is NAME's)",
    )
    parser.add_argument(
        "--by", metavar="NAME", help="adjudicate: the adjudicator's name, recorded with the settled verdict"
    )
    parser.add_argument(
        "--role",
        choices=("rater", "author"),
        default="rater",
        help="give: the part the expert gives it in, recorded with the verdict (author: they wrote the "
        "criterion); adjudicate records the role adjudicator",
    )
    parser.add_argument(
        "--mine",
        action="store_true",
        help="queue: only the decisions assigned to --rater NAME (assignments and the double-coding plan), "
        "with their progress",
    )
    parser.add_argument("--note", metavar="TEXT", help="give, adjudicate: a note kept with the verdict")
    parser.add_argument("--json", dest="as_json", action="store_true", help="queue: the decisions as JSON")


def _fail(message: str) -> int:
    print(f"dbstudio verdicts: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def run_review(args: argparse.Namespace) -> int:
    from studio.cli.verdicts_cmd import ProjectLoadError, load_project_checked
    from studio.judging.errors import JudgingError
    from studio.judging.queue import ReviewQueue

    try:
        # loaded and checked as every verdicts command loads a project (each problem at its line)
        loaded, _, _ = load_project_checked(args.project)
        queue = ReviewQueue(loaded)
        queue.reload()
        if queue.left_out:
            print(f"dbstudio verdicts: left out {queue.left_out}", file=sys.stderr)
        if args.action == "queue":
            return _list(queue, args)
        return _record(queue, args)
    except (ProjectLoadError, JudgingError) as exc:
        return _fail(str(exc))


def _list(queue: ReviewQueue, args: argparse.Namespace) -> int:
    from studio.judging.queue import QueueFilter

    if args.out is not None or args.operands:
        return _fail(
            "queue takes the project folder only: choose decisions with --run, --scope, --disagree, "
            "--adjudication or --rater"
        )
    from studio.judging.decisions import select_submissions

    # refused as give refuses them: a run without verdicts, a scope without a rubric
    runs: list[str | None] = list(select_submissions(queue.store, args.runs)) if args.runs else [None]
    if args.scope is not None:
        queue.check_scope(args.scope)
    if args.mine and not args.rater:
        return _fail("queue --mine lists an expert's own decisions: name them with --rater NAME")
    chosen = [
        d
        for run in runs
        for d in queue.filtered(
            QueueFilter(
                submission=run,
                scope=args.scope,
                disagree=args.disagree,
                adjudication=args.adjudication,
                # --mine lists all of theirs, given or not, beside their progress
                not_reviewed_by=None if args.mine else args.rater,
            )
        )
    ]
    if args.mine:
        from studio.judging.assignments import my_queue, raters_with_work

        known = raters_with_work(queue)
        if args.rater not in known:
            return _fail(
                f"{args.rater!r} has no assignment and no place in the double-coding plan (experts with work: "
                f"{', '.join(known) or 'none yet'}): check the name, or give them work with `dbstudio assign` "
                "or `dbstudio plan`"
            )
        mine = my_queue(queue, args.rater)
        theirs = {queue.decisions[p].key for p in mine.positions}
        chosen = [d for d in chosen if d.key in theirs]
        print(mine.progress(), file=sys.stderr)
    if args.as_json:
        print(json.dumps([_entry(d) for d in chosen], indent=2, ensure_ascii=False))
        return ExitCode.OK
    raters = queue.raters()
    header = ["submission", "scope", "criterion", "weight", "target", "dimension", *raters, "counted"]
    rows = [
        [
            d.submission,
            d.scope,
            d.criterion.id,
            f"{d.criterion.weight:+d}" if not d.criterion.gate else "gate",
            d.criterion.target,
            d.criterion.dimension,
            *[d.ratings[r].verdict if r in d.ratings else "-" for r in raters],
            d.counted(),
        ]
        for d in chosen
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1])
    print(f"{len(chosen)} decision(s) of {len(queue.decisions)}", file=sys.stderr)
    return ExitCode.OK


def _entry(decision: Decision) -> dict[str, Any]:
    judge = decision.judge_verdict()
    return {
        "submission": decision.submission,
        "scope": decision.scope,
        "criterion": decision.criterion.id,
        "text": decision.criterion.text,
        "weight": decision.criterion.weight,
        "gate": decision.criterion.gate,
        "target": decision.criterion.target,
        "dimension": decision.criterion.dimension,
        "judge": None
        if judge is None
        else {"rater": judge.rater, "verdict": judge.verdict, "rationale": judge.note, "evidence": judge.evidence},
        "verdicts": {
            rater: {
                "verdict": v.verdict,
                "note": v.note,
                **({"by": v.by} if v.by else {}),
                **({"role": v.role} if v.role else {}),
            }
            for rater, v in sorted(decision.ratings.items())
        },
        "counted": decision.counted(),
    }


def _record(queue: ReviewQueue, args: argparse.Namespace) -> int:
    operands = ([args.out] if args.out is not None else []) + list(args.operands)
    if len(operands) != 4:
        return _fail(
            f"{args.action} needs RUN SCOPE CRITERION VERDICT after the project folder "
            f"(got {len(operands)}: {' '.join(operands) or 'none'})"
        )
    run, scope, criterion, value = operands
    if args.action == "give" and not args.rater:
        return _fail("give needs the expert's name: --rater NAME")
    if args.action == "adjudicate" and args.rater:
        return _fail(
            "adjudicate records the settled verdict under the rater 'adjudicated': leave out --rater "
            "and name the adjudicator with --by NAME"
        )
    if args.action == "adjudicate" and not (args.by or "").strip():
        return _fail("adjudicate needs the adjudicator's name: --by NAME (it is recorded with the settled verdict)")
    if args.action == "give" and args.by:
        return _fail("--by names the adjudicator of `adjudicate`; give takes the expert's name as --rater NAME")
    from studio.judging.decisions import select_submissions

    (submission,) = select_submissions(queue.store, [run])
    decision = queue.find(submission, scope, criterion)
    if args.action == "give":
        verdict = queue.give(decision, args.rater, value, note=args.note, role=args.role)
    else:
        verdict = queue.adjudicate(decision, value, by=args.by, note=args.note)
    path = queue.store.path(submission, verdict.rater)
    settled_by = f" by {verdict.by}" if verdict.by else ""
    print(
        f"{submission} {scope} {criterion}: {verdict.rater}{settled_by} {verdict.verdict} "
        f"(counted: {decision.counted()}); stored in {path}",
        file=sys.stderr,
    )
    return ExitCode.OK
