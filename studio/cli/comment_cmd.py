"""`dbstudio comment PROJECT add|reply|resolve|reopen|list ...`: comment threads on subtasks and criteria
(kept in comments/, committed by `dbstudio save`); `dbstudio blame PROJECT ID`: who changed each field last."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.errors import StudioError

# action -> the words it takes after it, as usage shows them
ACTIONS = {"add": ("TARGET", "TEXT"), "reply": ("THREAD", "TEXT"), "resolve": ("THREAD",), "reopen": ("THREAD",),
           "list": ()}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    parser.add_argument("action", choices=list(ACTIONS), help="add TARGET TEXT: open a thread on a subtask or "
                        "criterion; reply THREAD TEXT; resolve THREAD; reopen THREAD; list")
    parser.add_argument("words", nargs="*", metavar="ARG", help="the action's TARGET, THREAD and TEXT")
    parser.add_argument("--target", help="list: only the threads on this subtask or criterion")
    parser.add_argument("--open", dest="only_open", action="store_true", help="list: only threads not resolved")
    add_format_option(parser)
    parser.set_defaults(run=run)


def _usage(action: str) -> str:
    return f"dbstudio comment PROJECT {action} {' '.join(ACTIONS[action])}".rstrip()


def run(args: argparse.Namespace) -> int:
    from studio.collab import comments

    wanted = ACTIONS[args.action]
    if len(args.words) != len(wanted):
        given = f"{len(args.words)} word{'s' if len(args.words) != 1 else ''}"
        print(f"dbstudio comment: {args.action} takes {' '.join(wanted) or 'no further words'}, got {given}: "
              f"`{_usage(args.action)}` (quote a TEXT of several words)", file=sys.stderr)
        return ExitCode.UNUSABLE
    if (args.target or args.only_open) and args.action != "list":
        print(f"dbstudio comment: --target and --open go with list, not {args.action}", file=sys.stderr)
        return ExitCode.UNUSABLE
    root = Path(args.path)
    try:
        if args.action == "list":
            threads = comments.list_threads(root, args.target, args.only_open)
            for problem in comments.unreadable_threads(root):
                print(f"dbstudio comment: warning: not listed, does not load: {problem}", file=sys.stderr)
            return _print_threads(threads, args.format)
        if args.action == "add":
            thread = comments.add_thread(root, *args.words)
        elif args.action == "reply":
            thread = comments.reply(root, *args.words)
        else:
            thread = (comments.resolve if args.action == "resolve" else comments.reopen)(root, *args.words)
    except StudioError as exc:
        print(f"dbstudio comment: {exc}", file=sys.stderr)
        return ExitCode.UNUSABLE
    done = {"add": "opened", "reply": "replied to", "resolve": "resolved", "reopen": "reopened"}[args.action]
    if args.format == "json":
        print(json.dumps(thread.model_dump(mode="json", exclude_none=True), indent=2))
    else:
        print(f"{done} thread {thread.id} on {thread.target} (comments/{thread.id}.yaml; not saved yet: "
              "`dbstudio save` records it)")
    return ExitCode.OK


def _print_threads(threads: list, output: str) -> int:
    if output == "json":
        print(json.dumps([thread.model_dump(mode="json", exclude_none=True) for thread in threads], indent=2))
        return ExitCode.OK
    if not threads:
        print("no comment threads")
    for thread in threads:
        state = f"resolved by {thread.resolved_by} {thread.resolved_at:%Y-%m-%d}" if thread.resolved else "open"
        print(f"{thread.id}  {thread.target}  {state}")
        for index, message in enumerate(thread.messages):
            lead = "  " if index == 0 else "    > "
            print(f"{lead}{message.author} {message.at:%Y-%m-%d %H:%M}: {message.text}")
    return ExitCode.OK


def configure_blame(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    parser.add_argument("object_id", metavar="ID", help="a subtask id (T03) or criterion id (T03-C02)")
    add_format_option(parser)
    parser.set_defaults(run=run_blame)


def run_blame(args: argparse.Namespace) -> int:
    from studio.collab.authors import field_authors
    from studio.store.history import ProjectRepository
    from studio.store.layout import project_folder
    from studio.store.object_diff import shown

    try:
        found = field_authors(ProjectRepository(project_folder(Path(args.path))), args.object_id)
    except StudioError as exc:
        print(f"dbstudio blame: {exc}", file=sys.stderr)
        return ExitCode.UNUSABLE
    if args.format == "json":
        print(json.dumps([{"field": f.field, "value": f.value, "author": f.author, "date": f.date.isoformat(),
                           "commit": f.commit, "message": f.message} for f in found], indent=2, default=str))
        return ExitCode.OK
    width = max((len(f.field) for f in found), default=0)
    authors = max((len(f.author) for f in found), default=0)
    for f in found:
        value = " ".join(shown(f.value).split())
        value = value if len(value) <= 60 else value[:57] + "..."
        print(f"{f.field:<{width}}  {f.author:<{authors}}  {f.date:%Y-%m-%d}  {f.commit[:8]}  {value}")
    return ExitCode.OK
