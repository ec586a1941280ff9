"""`dbstudio rename` and `dbstudio material import`: the app's edit commands from the command
line. Each applies one edit to the project's files (comments kept), writes them atomically through
the external-edit guard, then validates the result; `dbstudio save` commits."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from studio.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from studio.editing.commands import Command
    from studio.editing.documents import ProjectDocuments

KINDS = ("subtask", "material", "criterion", "stage", "deliverable", "reference", "project", "output")
MATERIAL_KINDS = ("source_record", "new_evidence", "client_feedback", "scripted_feedback", "template")
PROVENANCES = ("original_record", "reconstructed_material", "scenario_assumption")


def configure_rename(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    parser.add_argument("kind", choices=KINDS, help="what the id names (output: a subtask's output path)")
    parser.add_argument("old", help="the id now (an output: SUBTASK:PATH, e.g. T03:outputs/register.md)")
    parser.add_argument("new", help="the new id (an output: its new PATH)")
    parser.add_argument("--dry-run", action="store_true",
                        help="list every change the rename would make (YAML fields, instruction and brief lines) "
                             "and change nothing")
    parser.set_defaults(run=run_rename)


def configure_material(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("import", "replace", "import-folder"),
                        help="import: copy a file under materials/ and schedule it; replace: put a file in place of "
                             "material --id's file (its id, release and everything naming it stay); import-folder: "
                             "every file of the folder FILE, each proposed an id, title, kind and release")
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    parser.add_argument("file", help="the file to import, or the new file")
    parser.add_argument("--id", dest="material_id", help="import, replace: the material's id, e.g. M19")
    parser.add_argument("--dry-run", action="store_true", help="import-folder: list the proposals, import nothing")
    parser.add_argument("--title", help="import: what the file is, as the agent will see it listed")
    parser.add_argument("--kind", choices=MATERIAL_KINDS, help="import: the material's kind")
    parser.add_argument("--provenance", default="original_record", choices=PROVENANCES,
                        help="where the content comes from (default: original_record)")
    parser.add_argument("--before", metavar="SUBTASK", help="release it just before this subtask (default: at start)")
    parser.add_argument("--as", dest="name", metavar="NAME",
                        help="file name under materials/ (default: the file's own name, or a free variant of it)")
    parser.set_defaults(run=run_material)


def _import_folder(args: argparse.Namespace) -> int:
    from studio.editing.material_folder import import_proposals, propose_materials
    from studio.editing.session import ProjectSession
    from studio.store import layout

    session = ProjectSession(layout.project_folder(args.path))
    proposals = propose_materials(session.documents, Path(args.file), session.loaded.project.timeline())
    for p in proposals:
        release = f"before {p.before}" if p.before else "at start"
        print(f"  {p.material_id:<5} {p.source.name:<40} {p.kind:<16} {release:<12} {p.title}  ({p.why})")
    if args.dry_run:
        print(f"{len(proposals)} file(s) proposed (dry run, nothing imported); import them with the same command "
              "without --dry-run, or one by one with material import to choose otherwise", file=sys.stderr)
        return ExitCode.OK
    return _edit(args.path, lambda documents: import_proposals(documents, proposals))


def configure_handoff(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list", "add", "edit", "remove"),
                        help="list the handoffs with their numbers; add one; edit number --index in place; remove it")
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    parser.add_argument("--index", type=int, metavar="N", help="edit, remove: the handoff's number (see list)")
    parser.add_argument("--from", dest="source", metavar="SUBTASK:PATH", help="the output handed over")
    parser.add_argument("--to", metavar="SUBTASK", help="the later subtask that works on it")
    parser.add_argument("--carries", metavar="TEXT", help="what must survive the handoff ('' says nothing)")
    parser.set_defaults(run=run_handoff)


def run_handoff(args: argparse.Namespace) -> int:
    from studio.editing.dependencies import add_handoff, remove_handoff, set_handoff
    from studio.editing.session import ProjectSession
    from studio.store import layout

    if args.action == "list":
        project = ProjectSession(layout.project_folder(args.path)).loaded.project
        handoffs = project.dependencies.handoffs if project.dependencies is not None else []
        for number, handoff in enumerate(handoffs):
            print(f"{number:>3}  {handoff.artifact} -> {handoff.to}" + (f": {handoff.carries}" if handoff.carries
                                                                        else ""))
        return ExitCode.OK
    if args.action in ("edit", "remove") and args.index is None:
        print(f"dbstudio handoff {args.action}: give the handoff's --index (dbstudio handoff list shows them)",
              file=sys.stderr)
        return ExitCode.UNUSABLE
    if args.action == "remove":
        return _edit(args.path, lambda documents: remove_handoff(documents, args.index))
    if args.action == "add":
        if not args.source or not args.to:
            print("dbstudio handoff add: give --from SUBTASK:PATH and --to SUBTASK", file=sys.stderr)
            return ExitCode.UNUSABLE
        return _edit(args.path, lambda documents: add_handoff(documents, args.source, args.to, args.carries or None))

    def edit(documents: ProjectDocuments) -> Command:
        from studio.editing.fields import object_location

        rel, path = object_location(documents, "handoff", str(args.index))
        current = documents.node(rel, path)
        carries = current.get("carries") if args.carries is None else args.carries
        return set_handoff(documents, args.index, args.source or current.get("from"), args.to or current.get("to"),
                           carries)
    return _edit(args.path, edit)


def _edit(path: str, build: Callable[[ProjectDocuments], Command]) -> int:
    from studio.editing.session import ProjectSession
    from studio.store import layout
    from studio.validation import validate_project

    root = layout.project_folder(path)
    session = ProjectSession(root)
    command = build(session.documents)
    session.apply(command)
    written = session.save()
    print(f"{command.label}: {len(written)} file{'s' if len(written) != 1 else ''} changed")
    for rel in written:
        print(f"  {rel}")
    findings = validate_project(root)
    for finding in findings:
        print(finding.render())
    if findings:
        print(f"{len(findings)} problem{'s' if len(findings) != 1 else ''} found after the edit", file=sys.stderr)
        return ExitCode.PROBLEMS
    return ExitCode.OK


def run_rename(args: argparse.Namespace) -> int:
    from studio.editing.rename import rename, rename_output, rename_preview

    def build(documents: ProjectDocuments) -> Command:
        if args.kind != "output":
            return rename(documents, args.kind, args.old, args.new)
        subtask, _, old = args.old.partition(":")
        if not old:
            from studio.editing.ids import IdError

            raise IdError(f"give the output as SUBTASK:PATH (e.g. T03:outputs/register.md), not '{args.old}'")
        new = args.new.split(":", 1)[1] if args.new.startswith(f"{subtask}:") else args.new
        return rename_output(documents, subtask, old, new)

    if args.dry_run:
        from studio.editing.session import ProjectSession
        from studio.store import layout

        documents = ProjectSession(layout.project_folder(args.path)).documents
        command = build(documents)
        changes = rename_preview(documents, command)  # type: ignore[arg-type]
        print(f"{command.label}: {len(changes)} change{'s' if len(changes) != 1 else ''} (dry run, nothing written)")
        for change in changes:
            print(f"  {change}")
        return ExitCode.OK
    return _edit(args.path, build)


def run_material(args: argparse.Namespace) -> int:
    from studio.editing.materials import import_material, replace_material_file

    if args.action == "import-folder":
        return _import_folder(args)
    if not args.material_id:
        print(f"dbstudio material {args.action}: give the material's --id", file=sys.stderr)
        return ExitCode.UNUSABLE
    if args.action == "replace":
        return _edit(args.path, lambda documents: replace_material_file(
            documents, args.material_id, Path(args.file), args.name))
    missing = [flag for flag, value in (("--title", args.title), ("--kind", args.kind)) if not value]
    if missing:
        print(f"dbstudio material import: give {' and '.join(missing)}", file=sys.stderr)
        return ExitCode.UNUSABLE

    return _edit(args.path, lambda documents: import_material(
        documents, Path(args.file), args.material_id, args.title, args.kind, args.provenance, args.before, args.name))


def configure_word(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    parser.add_argument("file", help="the Word file (.docx)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--instruction", metavar="SUBTASK", help="replace this subtask's instruction")
    what.add_argument("--brief", action="store_true", help="replace the project brief")
    parser.add_argument("--dry-run", action="store_true", help="print the Markdown and change nothing")
    parser.set_defaults(run=run_word)


def run_word(args: argparse.Namespace) -> int:
    from studio.editing.word_import import brief_from_word, instruction_from_word, word_to_markdown

    if args.dry_run:
        print(word_to_markdown(Path(args.file)), end="")
        return ExitCode.OK
    if args.brief:
        return _edit(args.path, lambda documents: brief_from_word(documents, Path(args.file)))
    return _edit(args.path, lambda documents: instruction_from_word(documents, args.instruction, Path(args.file)))
