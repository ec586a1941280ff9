"""`dbstudio assign` and `dbstudio plan`: the review work of a project's experts on the command line.

`assign PROJECT RATER (--subtask ID | --criterion ID | --decision RUN SCOPE CRITERION) [--remove]` adds
(or removes) an assignment in review/assignments.yaml; `assign PROJECT --list` lists them.
`plan PROJECT --raters A B --width W [--expected P] [--seed N]` creates or updates the double-coding plan
in review/double-coding.yaml; `plan PROJECT --status [--format json]` says where it stands."""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.exit_codes import ExitCode


def configure_assign(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", help="the project folder (the one holding project.yaml)")
    parser.add_argument("rater", nargs="?", help="the expert's name, as they give verdicts (--rater NAME)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--subtask", metavar="ID", help="every decision of this subtask's checkpoint rubric")
    what.add_argument("--criterion", metavar="ID", help="every decision on this criterion, in every scope")
    what.add_argument("--decision", nargs=3, metavar=("RUN", "SCOPE", "CRITERION"),
                      help="one decision: a run (its id or the start of it), a scope (subtask id or final), a criterion")
    what.add_argument("--list", action="store_true", help="list every assignment with each expert's progress")
    parser.add_argument("--remove", action="store_true", help="remove the assignment instead of adding it")
    parser.set_defaults(run=run_assign)


def configure_plan(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", help="the project folder (the one holding project.yaml)")
    parser.add_argument("--raters", nargs="+", metavar="NAME", help="the experts who all judge the planned decisions")
    parser.add_argument("--width", type=float, metavar="W",
                        help="the target width of the 95%% Wilson interval of their percent agreement, in (0, 1)")
    parser.add_argument("--expected", type=float, metavar="P",
                        help="the agreement expected before any decision is double-coded, in (0, 1) (default 0.85; "
                             "once some are, the observed agreement sizes the plan)")
    parser.add_argument("--seed", type=int, metavar="N", help="the seed to draw with (default: the plan's, or a new one)")
    parser.add_argument("--status", action="store_true", help="where the plan stands, without changing it")
    parser.add_argument("--format", dest="output_format", choices=("text", "json"), default="text",
                        help="--status (and the plan made): text or json")
    parser.set_defaults(run=run_plan)


def _fail(command: str, message: str) -> int:
    print(f"dbstudio {command}: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def _queue(project: str):  # -> ReviewQueue
    from studio.cli.verdicts_cmd import load_project_checked
    from studio.judging.queue import ReviewQueue

    loaded, _, _ = load_project_checked(project)
    queue = ReviewQueue(loaded)
    queue.reload()
    return queue


def run_assign(args: argparse.Namespace) -> int:
    from studio.cli.verdicts_cmd import ProjectLoadError
    from studio.judging.errors import JudgingError

    try:
        queue = _queue(args.project)
        if args.list:
            if args.rater or args.remove:
                return _fail("assign", "--list takes the project folder only (no RATER, no --remove)")
            return _list(queue)
        return _change(queue, args)
    except (ProjectLoadError, JudgingError) as exc:
        return _fail("assign", str(exc))


def _list(queue) -> int:
    from studio.judging.assignments import described, load_assignments, my_queue

    assignments = load_assignments(queue.root, queue.loaded.project, queue.store.submissions())
    for item in assignments:
        print(described(item))
    for rater in dict.fromkeys(a.rater for a in assignments):
        print(my_queue(queue, rater).progress(), file=sys.stderr)
    if not assignments:
        print("no assignments yet: `dbstudio assign PROJECT RATER --subtask ID` adds one", file=sys.stderr)
    return ExitCode.OK


def _change(queue, args: argparse.Namespace) -> int:
    from studio.judging.assignments import change_assignment, described
    from studio.judging.decisions import select_submissions
    from studio.model.review_work import Assignment, DecisionRef

    if not args.rater:
        return _fail("assign", "give the expert's name after the project folder: assign PROJECT RATER --subtask ID")
    if args.subtask is None and args.criterion is None and args.decision is None:
        return _fail("assign", "say what to assign: --subtask ID, --criterion ID or --decision RUN SCOPE CRITERION")
    decision = None
    if args.decision is not None:
        run, scope, criterion = args.decision
        (run,) = select_submissions(queue.store, [run])
        decision = DecisionRef(run=run, scope=scope, criterion=criterion)
    try:
        item = Assignment(rater=args.rater.strip(), subtask=args.subtask, criterion=args.criterion, decision=decision)
    except ValueError as exc:  # pydantic's ValidationError: an id the model refuses
        return _fail("assign", f"{_first_error(exc)}: give ids as the project spells them")
    changed = change_assignment(queue, item, remove=args.remove)
    said = "removed" if args.remove else "assigned" if changed else "already assigned"
    print(f"{said}: {described(item)}", file=sys.stderr)
    return ExitCode.OK


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "assignment"
        return f"{where}: {first['msg']}"
    return str(exc)


def run_plan(args: argparse.Namespace) -> int:
    from studio.cli.verdicts_cmd import ProjectLoadError
    from studio.judging.double_coding import load_plan, make_plan, status
    from studio.judging.errors import JudgingError

    try:
        queue = _queue(args.project)
        if args.status:
            if args.raters or args.width is not None or args.expected is not None or args.seed is not None:
                return _fail("plan", "--status only reads the plan: leave out --raters, --width, --expected, --seed")
            plan = load_plan(queue.root)
            if plan is None:
                return _fail("plan", f"{args.project} has no double-coding plan yet: "
                                     "`dbstudio plan PROJECT --raters A B --width 0.10` draws one")
            found = status(queue, plan)
        else:
            if not args.raters or args.width is None:
                return _fail("plan", "give --raters A B and --width W (or --status to see the plan)")
            found = make_plan(queue, args.raters, args.width, args.expected, args.seed)
    except (ProjectLoadError, JudgingError) as exc:
        return _fail("plan", str(exc))
    if args.output_format == "json":
        print(json.dumps(found.as_json(), indent=2, ensure_ascii=False))
    else:
        print("\n".join(found.lines()))
    return ExitCode.OK
