"""`dbstudio remote`, `sync`, `conflicts`, `resolve` and `merge-driver`: experts sharing one
project through a shared git repository (docs/collaboration.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option


def configure_remote(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder")
    parser.add_argument("remote_action", choices=("list", "add", "remove"), metavar="list|add|remove",
                        help="list the remotes, add NAME URL (a bare repository's path, ssh or https), remove NAME")
    parser.add_argument("name", nargs="?", help="the remote's name (add, remove)")
    parser.add_argument("url", nargs="?", help="its address (add)")
    parser.set_defaults(run=run_remote)


def run_remote(args: argparse.Namespace) -> int:
    import git

    from studio.collab.sync import CollabError, _open, install_driver
    from studio.store.repository_state import git_message

    project = _open(Path(args.path))
    repo = project.repo
    names = [remote.name for remote in repo.remotes]
    if args.remote_action == "list":
        for remote in repo.remotes:
            print(f"{remote.name}\t{remote.url}")
        if not names:
            print("no remote: add one with `dbstudio remote PROJECT add origin URL`")
        return ExitCode.OK
    if args.remote_action == "add":
        if not args.name or not args.url:
            raise CollabError("name the remote and its address: `dbstudio remote PROJECT add origin URL`")
        if args.name in names:
            raise CollabError(f"a remote '{args.name}' exists already ({repo.remote(args.name).url}): "
                              f"remove it first, or pick another name")
        try:
            repo.create_remote(args.name, args.url)
        except git.GitCommandError as error:
            raise CollabError(f"git refused the remote '{args.name}' ({git_message(error)})") from None
        written = install_driver(project)
        print(f"added {args.name} {args.url}" + ("; committed .gitattributes (project files merge by object)"
                                                  if written else ""))
        return ExitCode.OK
    if not args.name or args.name not in names:
        raise CollabError(f"no remote '{args.name or ''}' to remove (remotes: {', '.join(names) or 'none'})")
    repo.delete_remote(repo.remote(args.name))
    print(f"removed {args.name}")
    return ExitCode.OK


def configure_sync(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder")
    parser.add_argument("--remote", help="the remote to sync with (default: the branch's, else origin)")
    parser.add_argument("--no-push", action="store_true", help="fetch and merge only")
    add_format_option(parser)
    parser.set_defaults(run=run_sync)


def run_sync(args: argparse.Namespace) -> int:
    from studio.collab.sync import sync

    result = sync(Path(args.path), args.remote, push=not args.no_push)
    if args.format == "json":
        print(json.dumps({"remote": result.remote, "branch": result.branch, "merged": result.merged,
                          "pushed": result.pushed, "clean": result.clean, "notes": result.notes,
                          "conflicts": [conflict.to_json() for conflict in result.conflicts]}, indent=2))
    else:
        for note in result.notes:
            print(note)
        print(result.summary())
        _print_conflicts(result.conflicts)
    return ExitCode.OK if result.clean else ExitCode.PROBLEMS


def configure_conflicts(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder")
    add_format_option(parser)
    parser.set_defaults(run=run_conflicts)


def run_conflicts(args: argparse.Namespace) -> int:
    from studio.collab.resolve import conflicts

    found = conflicts(Path(args.path))
    if args.format == "json":
        print(json.dumps([conflict.to_json() for conflict in found], indent=2, ensure_ascii=False))
    elif not found:
        print("no conflicts: no merge is waiting to be settled")
    else:
        _print_conflicts(found)
    return ExitCode.PROBLEMS if found else ExitCode.OK


def _print_conflicts(found: list[Any]) -> None:
    for conflict in found:
        if conflict.kind == "field":
            print(f"{conflict.file} {conflict.field}: base {conflict.short('base')} | ours {conflict.short('ours')} "
                  f"| theirs {conflict.short('theirs')}")
        else:
            what = "text changed on both sides" if conflict.kind == "text" else "changed on both sides (git cannot merge it)"
            print(f"{conflict.file}: {what}")
    if found:
        print("settle each: dbstudio resolve PROJECT FILE FIELD --take ours|theirs|base "
              "(FIELD is '(whole file)' for a whole file)", file=sys.stderr)


def configure_resolve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder")
    parser.add_argument("file", nargs="?", help="the file, relative to the project folder")
    parser.add_argument("field", nargs="?", default="(whole file)",
                        help="the field as `dbstudio conflicts` names it, e.g. criteria[T05-C02].weight")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--take", choices=("ours", "theirs", "base"), help="keep this side's value")
    how.add_argument("--value", help="set this value (YAML: a number, a text, a list)")
    how.add_argument("--abort", action="store_true", help="abandon the merge in progress")
    how.add_argument("--finish", action="store_true",
                     help="commit a merge whose conflicts are settled, once its validation findings are fixed")
    parser.add_argument("-m", "--message", help="the merge commit's message once the last conflict is settled")
    parser.set_defaults(run=run_resolve)


def run_resolve(args: argparse.Namespace) -> int:
    from studio.collab.resolve import abort, find, finish, resolve
    from studio.collab.sync import CollabError

    folder = Path(args.path)
    if args.abort:
        abort(folder)
        print("merge abandoned: the project is as it was before the sync")
        return ExitCode.OK
    if args.finish:
        done = finish(folder, args.message)
        return _report(done, None)
    if not args.file:
        raise CollabError("name the FILE (and FIELD) to settle: `dbstudio conflicts PROJECT` lists them")
    conflict = find(folder, args.file, args.field)
    if args.take:
        done = resolve(folder, conflict, take=args.take, message=args.message)
    else:
        done = resolve(folder, conflict, value=_value(args.value), message=args.message)
    return _report(done, conflict)


def _report(done: Any, conflict: Any) -> int:
    if done.problems:
        print("every conflict is settled, but the merged project does not validate; fix these in the files:",
              file=sys.stderr)
        for line in done.problems:
            print(f"  {line}", file=sys.stderr)
        print("then commit the merge: dbstudio resolve PROJECT --finish", file=sys.stderr)
        return ExitCode.PROBLEMS
    if done.commit:
        print(f"merge committed: {done.commit[:12]}; sync again to share it")
    else:
        print(f"settled {conflict.file} {conflict.field}; {len(done.remaining)} conflict(s) left")
    return ExitCode.OK


def _value(text: str) -> Any:
    """A --value as YAML would read it (`7` a number, `[a, b]` a list, anything else a text)."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def configure_merge_driver(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", help="%%O: the common ancestor's version")
    parser.add_argument("ours", help="%%A: ours, overwritten with the merge")
    parser.add_argument("theirs", help="%%B: theirs")
    parser.add_argument("pathname", help="%%P: the file's path in the repository")
    parser.set_defaults(run=run_merge_driver)


def run_merge_driver(args: argparse.Namespace) -> int:
    from studio.collab.driver import run_driver

    return run_driver(Path(args.base), Path(args.ours), Path(args.theirs), args.pathname)
