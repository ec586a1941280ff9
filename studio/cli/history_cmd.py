"""Project versioning commands: new, status, save, history, diff, restore."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option
from studio.errors import StudioError
from studio.store.history import ProjectRepository, RestoreResult
from studio.store.object_diff import diff_object
from studio.store.workspace import DEFAULT_TEMPLATE, create_project, project_templates, templates


def configure_new(new: argparse.ArgumentParser) -> None:
    new.add_argument("path", nargs="?", help="new project folder")
    new.add_argument("--id", help="project id, e.g. acme-audit (required)")
    new.add_argument("--title", help="the project's title (required)")
    new.add_argument("--domain", type=_text, help="the project's domain, e.g. Finance, Law, Engineering "
                     "(default: the template's)")
    new.add_argument("--role", type=_text, help="the professional role the agent plays, e.g. 'Transaction "
                     "associate' (default: the template's)")
    new.add_argument("--template", default=DEFAULT_TEMPLATE,
                     help=f"template name (default: {DEFAULT_TEMPLATE}; --list-templates shows them)")
    new.add_argument("--list-templates", action="store_true", help="list the templates with what each holds, and stop")
    new.add_argument("--own-repo", action="store_true", help="give the project its own repository even inside another")
    new.set_defaults(run=run_new)


def _text(value: str) -> str:
    """A project.yaml text given on the command line: not blank, on one line."""
    text = " ".join(value.split())
    if not text:
        raise argparse.ArgumentTypeError("give a non-empty text")
    return text


def configure_status(status: argparse.ArgumentParser) -> None:
    status.add_argument("path")
    add_format_option(status)
    status.set_defaults(run=run_status)


def configure_save(save: argparse.ArgumentParser) -> None:
    save.add_argument("path")
    save.add_argument("-m", "--message", required=True)
    save.add_argument("files", nargs="*", help="only these files (relative to the project folder)")
    save.add_argument("--force", action="store_true",
                      help="save even when a changed file does not parse (YAML syntax or schema errors)")
    save.set_defaults(run=run_save)


def configure_history(history: argparse.ArgumentParser) -> None:
    history.add_argument("path")
    which = history.add_mutually_exclusive_group()
    which.add_argument("--file", help="only revisions touching this file (relative to the project folder)")
    which.add_argument("--object", "--item", dest="object", metavar="ID", help="only revisions that changed this subtask (T03) or criterion "
                       "(T03-C02) itself, as the app's Versions panel shows them")
    history.add_argument("-n", "--max-count", type=int)
    add_format_option(history)
    history.set_defaults(run=run_history)


def configure_diff(diff: argparse.ArgumentParser) -> None:
    diff.add_argument("path")
    diff.add_argument("object_id", help="a subtask id (T03) or criterion id (T03-C02)")
    diff.add_argument("old", help="older revision (commit id, HEAD~2, ...)")
    diff.add_argument("new", nargs="?", help="newer revision (default: the files on disk)")
    diff.set_defaults(run=run_diff)


def configure_restore(restore: argparse.ArgumentParser) -> None:
    restore.add_argument("path")
    restore.add_argument("file", help="file or folder relative to the project folder")
    restore.add_argument("revision")
    restore.set_defaults(run=run_restore)


def _fail(command: str, exc: Exception) -> int:
    print(f"dbstudio {command}: {exc}", file=sys.stderr)
    return ExitCode.UNUSABLE


def _warn(command: str, repo: ProjectRepository) -> None:
    for warning in repo.warnings():
        print(f"dbstudio {command}: warning: {warning}", file=sys.stderr)


def run_new(args: argparse.Namespace) -> int:
    if args.list_templates:
        return _list_templates()
    missing = [name for name, value in (("PATH", args.path), ("--id", args.id), ("--title", args.title)) if not value]
    if missing:
        print(f"dbstudio new: give {', '.join(missing)}, e.g. dbstudio new acme-audit --id acme-audit --title "
              "'Acme IT audit' (--list-templates shows the templates)", file=sys.stderr)
        return ExitCode.UNUSABLE
    try:
        details = {key: value for key, value in (("domain", args.domain), ("role", args.role)) if value}
        repo = create_project(Path(args.path), args.id, args.title, template=args.template,
                              own_repository=True if args.own_repo else None, details=details)
        from studio.collab.driver import ensure_driver

        ensure_driver(repo.repo, repo.root)  # the clone's git runs the object merge (.gitattributes is committed)
    except StudioError as exc:
        return _fail("new", exc)
    print(f"created {args.path} ({repo.history(max_count=1)[0].short}); templates: {', '.join(templates())}")
    return ExitCode.OK


def _list_templates() -> int:
    listed = project_templates()
    width = max((len(template.name) for template in listed), default=0)
    for template in listed:
        default = "(default) " if template.name == DEFAULT_TEMPLATE else ""
        print(f"{template.name:<{width}}  {default}{template.description or '(no description)'}")
    return ExitCode.OK


def run_status(args: argparse.Namespace) -> int:
    try:
        repo = ProjectRepository(Path(args.path))
        changes = repo.status()
    except StudioError as exc:
        return _fail("status", exc)
    _warn("status", repo)
    if args.format == "json":
        print(json.dumps([{"path": c.path, "change": c.change} for c in changes], indent=2))
        return ExitCode.OK
    for change in changes:
        print(f"{change.change:9} {change.path}")
    if not changes:
        print("no unsaved changes")
    return ExitCode.OK


def run_save(args: argparse.Namespace) -> int:
    from studio.validation.save_check import SaveRefusedError, save_revision

    try:
        result = save_revision(Path(args.path), args.message, args.files or None, force=args.force)
    except SaveRefusedError as refused:
        print(f"dbstudio save: {refused.summary}, or save anyway with --force:", file=sys.stderr)
        for finding in refused.blocking:
            print(f"  {finding.render()}", file=sys.stderr)
        return ExitCode.PROBLEMS
    except StudioError as exc:
        return _fail("save", exc)
    revision, others = result.revision, result.others
    print(f"saved {revision.short}: {revision.message.splitlines()[0]}")
    for finding in result.forced:
        print(f"dbstudio save: warning: saved although it does not parse: {finding.render()}", file=sys.stderr)
    if others:
        print(f"dbstudio save: warning: the project has {len(others)} validation problem{'s' if len(others) != 1 else ''}"
              f" (`dbstudio validate {args.path}` lists them)", file=sys.stderr)
    _warn("save", ProjectRepository(Path(args.path)))
    return ExitCode.OK


def run_history(args: argparse.Namespace) -> int:
    if args.object:
        return _object_history(args)
    try:
        revisions = ProjectRepository(Path(args.path)).history(args.file, args.max_count)
    except StudioError as exc:
        return _fail("history", exc)
    if args.format == "json":
        print(json.dumps([{"sha": r.sha, "author": r.author, "date": r.date.isoformat(),
                           "message": r.message, "files": list(r.files)} for r in revisions], indent=2))
        return ExitCode.OK
    # Authors in full, in a column as wide as the longest name shown.
    width = max((len(r.author) for r in revisions), default=0)
    for r in revisions:
        print(f"{r.short}  {r.date:%Y-%m-%d %H:%M}  {r.author:<{width}}  {r.message.splitlines()[0]}")
    return ExitCode.OK


def _object_history(args: argparse.Namespace) -> int:
    import re

    from studio.editing.object_history import object_scope
    from studio.editing.session import ProjectSession
    from studio.model.base import ID_PATTERN
    from studio.store.history_scope import object_log
    from studio.store.layout import project_folder

    object_id = args.object
    if not re.fullmatch(ID_PATTERN, object_id):
        print(f"dbstudio history: '{object_id}' is not a subtask or criterion id: ids use letters, digits, '.', "
              "'-' and '_'", file=sys.stderr)
        return ExitCode.UNUSABLE
    try:
        session = ProjectSession(project_folder(Path(args.path)))
        scope = object_scope(session.documents, object_id)
        repo = ProjectRepository(session.root)
        entries = object_log(repo, scope)
    except StudioError as exc:
        return _fail("history", exc)
    if not entries and object_id not in session.documents.subtask_ids():
        from studio.editing.fields import criterion_location

        try:
            criterion_location(session.documents, object_id)
        except StudioError:
            print(f"dbstudio history: no subtask or criterion '{object_id}' in the project or its saved "
                  "revisions", file=sys.stderr)
            return ExitCode.UNUSABLE
    entries = entries[:args.max_count] if args.max_count else entries
    if args.format == "json":
        print(json.dumps([{"sha": e.sha, "author": e.author, "date": e.date.isoformat(), "message": e.message}
                          for e in entries], indent=2))
        return ExitCode.OK
    width = max((len(e.author) for e in entries), default=0)
    for e in entries:
        print(f"{e.short}  {e.date:%Y-%m-%d %H:%M}  {e.author:<{width}}  {e.message.splitlines()[0]}")
    return ExitCode.OK


def run_diff(args: argparse.Namespace) -> int:
    try:
        diff = diff_object(ProjectRepository(Path(args.path)), args.object_id, args.old, args.new)
    except StudioError as exc:
        return _fail("diff", exc)
    print(diff.render())
    return ExitCode.OK


def run_restore(args: argparse.Namespace) -> int:
    try:
        result = ProjectRepository(Path(args.path)).restore(args.file, args.revision)
    except StudioError as exc:
        return _fail("restore", exc)
    print(_restored(result))
    return ExitCode.OK


def _restored(result: RestoreResult) -> str:
    shown = result.path or "the project folder"
    lines = [f"restored {shown} as of {result.revision[:8]} (not saved yet: run `dbstudio save`)"]
    if len(result.written) > 1 or result.written != (result.path,):
        lines += [f"  written  {name}" for name in result.written]
    lines += [f"  removed  {name} (not at that revision; its saved bytes stay in history)" for name in result.removed]
    lines += [f"  kept     {name} (not at that revision, but has unsaved changes)" for name in result.kept]
    return "\n".join(lines)
