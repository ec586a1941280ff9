"""`dbstudio rubric export PROJECT OUT.xlsx` and `dbstudio rubric import PROJECT IN.xlsx [--dry-run]`:
the spreadsheet round-trip of a project's rubrics; `dbstudio rubric reuse PROJECT CRITERION [--covers F1,...]`:
a checkpoint criterion judged again on the final package."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from studio.cli.exit_codes import ExitCode
from studio.cli.options import add_format_option, table_file
from studio.editing.session import ProjectSession
from studio.sheets import SheetError, diff_to_command, export_rubrics, read_rubric_sheet
from studio.sheets.columns import RUBRIC_SHEET
from studio.sheets.errors import SheetFileError
from studio.store import layout
from studio.validation import validate_project

ACTIONS = ("export", "import", "reuse")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("export writes every criterion to an xlsx an expert edits in Excel; import reads the edited "
                     "sheet back: its changes are listed, checked cell by cell, and applied to the rubric files as "
                     "one edit (comments kept), then the project is validated")
    parser.add_argument("action", choices=ACTIONS, help="export: write the sheet; import: read it back; reuse: "
                                                        "judge checkpoint criterion FILE again in the final rubric")
    parser.add_argument("project", help="the project folder (the one holding project.yaml)")
    parser.add_argument("file", help="the xlsx file to write (export) or read (import); reuse: the criterion id")
    parser.add_argument("--covers", metavar="F1,...",
                        help="reuse: the final deliverables it judges (default: those its files become)")
    parser.add_argument("--dry-run", action="store_true", help="import: list the changes, write nothing")
    parser.add_argument("--sheet", metavar="NAME",
                        help="import a workbook of your own layout: the sheet that holds the criteria")
    parser.add_argument("--map", action="append", default=[], metavar="FIELD=HEADER",
                        help="with --sheet: the column holding a criterion field, e.g. text=Criterion, weight=Points, "
                             "rubric=Task (repeat for each)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="with --sheet: a value for a field no column holds, on every row, e.g. target=checkpoint")
    parser.add_argument("--word", action="append", default=[], metavar="FIELD:THEIRS=OURS",
                        help="with --sheet: your word for one of ours, e.g. dimension:Accuracy=correctness")
    add_format_option(parser)
    parser.set_defaults(run=run)


def _reuse(args: argparse.Namespace) -> int:
    from studio.cli.edit_cmd import _edit
    from studio.editing.rubric import reuse_in_final

    covers = [item.strip() for item in args.covers.split(",") if item.strip()] if args.covers else None
    return _edit(args.project, lambda documents: reuse_in_final(documents, args.file, covers))


def _fail(message: str) -> int:
    print(f"dbstudio rubric: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def run(args: argparse.Namespace) -> int:
    project = Path(args.project)
    if args.action == "reuse":
        return _reuse(args)
    if (problem := layout.not_a_project(project)) is not None:
        return _fail(problem)
    if args.action == "export":
        if args.dry_run:
            return _fail("--dry-run is for import only")
        if Path(args.file).suffix.lower() != ".xlsx":
            return _fail(f"{args.file}: give a file name ending in .xlsx")
        return _export(project, Path(args.file), args.format)
    try:
        table_file(args.file)
    except argparse.ArgumentTypeError as exc:
        return _fail(str(exc))
    try:
        mapping = _mapping(args, Path(args.file))
    except (SheetFileError, ValueError) as exc:
        return _fail(str(exc))
    return _import(project, Path(args.file), args.dry_run, args.format, mapping)


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    found = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(f"{flag} {item!r}: write {flag} FIELD=VALUE")
        found[name.strip()] = value.strip()
    return found


def _mapping(args: argparse.Namespace, workbook: Path) -> Any:
    """The column mapping the flags give (remembered for the workbook's layout once it imports), the one
    remembered for this layout, or None for a sheet made by `rubric export`."""
    from studio.sheets.mapping import ColumnMapping, MappingStore, sheet_headers

    store = MappingStore(mappings_file())
    if args.sheet is None:
        if args.map or args.set or args.word:
            raise ValueError("--map, --set and --word need --sheet (the sheet that holds the criteria)")
        sheets = sheet_headers(workbook) if workbook.is_file() else {}
        if not sheets or RUBRIC_SHEET in sheets:
            return None
        remembered = store.find(workbook)
        if remembered is not None:
            print(f"reading sheet '{remembered.sheet}' with the column mapping remembered for this layout",
                  file=sys.stderr)
            return remembered
        listed = "; ".join(f"{name}: {', '.join(headers) or 'no headers'}" for name, headers in sheets.items())
        raise ValueError(f"{workbook}: no sheet named '{RUBRIC_SHEET}' (a sheet of `rubric export`): say which sheet "
                         f"holds the criteria and which column holds what, e.g. --sheet NAME --map text=HEADER "
                         f"--map weight=HEADER --map rubric=HEADER (its sheets: {listed})")
    words: dict[str, dict[str, str]] = {}
    for item in args.word:
        name, sep, rest = item.partition(":")
        theirs, sep2, ours = rest.partition("=")
        if not sep or not sep2 or not theirs.strip() or not ours.strip():
            raise ValueError(f"--word {item!r}: write --word FIELD:THEIRS=OURS, e.g. dimension:Accuracy=correctness")
        words.setdefault(name.strip(), {})[theirs.strip()] = ours.strip()
    mapping = ColumnMapping(args.sheet, _pairs(args.map, "--map"), _pairs(args.set, "--set"), words)
    mapping.check()
    return mapping


def mappings_file() -> Path:
    from studio.sheets.mapping import default_store

    return default_store().path


def _export(project: Path, out: Path, output_format: str) -> int:
    count = export_rubrics(project, out)
    if output_format == "json":
        print(json.dumps({"project": str(project), "file": str(out), "criteria": count}, indent=2))
    else:
        print(f"wrote {count} criteri{'a' if count != 1 else 'on'} to {out}")
    return ExitCode.OK


def _import(project: Path, sheet: Path, dry_run: bool, output_format: str, mapping: Any = None) -> int:
    session = ProjectSession(project)
    report: dict[str, Any] = {"project": str(project), "file": str(sheet), "dry_run": dry_run, "errors": [],
                              "diff": None, "applied": False, "written": [], "findings": []}
    try:
        diff = read_rubric_sheet(session.documents, sheet, mapping)
    except SheetFileError as exc:
        return _fail(str(exc))
    except SheetError as exc:
        report["errors"] = [error.to_json() for error in exc.errors]
        if output_format == "json":
            print(json.dumps(report, indent=2))
        else:
            for error in exc.errors:
                print(error.render(), file=sys.stderr)
        print(f"{len(exc.errors)} bad cell{'s' if len(exc.errors) != 1 else ''}; no file was changed", file=sys.stderr)
        return ExitCode.PROBLEMS
    report["diff"] = diff.to_json()
    if mapping is not None:  # read without a bad cell: the next workbook of this layout is read the same way
        from studio.sheets.mapping import MappingStore

        MappingStore(mappings_file()).remember(sheet, mapping)
    if output_format != "json":
        for line in diff.lines():
            print(line)
    print(diff.summary() if diff else "the sheet matches the project: nothing to change", file=sys.stderr)
    if dry_run or not diff:
        if dry_run and diff:
            print("dry run: no file was changed", file=sys.stderr)
        if output_format == "json":
            print(json.dumps(report, indent=2))
        return ExitCode.OK
    changed_elsewhere = session.changed_on_disk()
    if changed_elsewhere:
        return _fail(f"{', '.join(changed_elsewhere)} changed on disk while the sheet was read: run the import again")
    session.apply(diff_to_command(session.documents, diff, f"Import {sheet.name}"))
    report["written"] = session.save()
    report["applied"] = True
    findings = validate_project(project)
    report["findings"] = [finding.to_json() for finding in findings]
    if output_format == "json":
        print(json.dumps(report, indent=2))
    else:
        print(f"wrote {', '.join(report['written'])}", file=sys.stderr)
        for finding in findings:
            print(finding.render())
        if findings:
            print(f"{len(findings)} problem{'s' if len(findings) != 1 else ''} found after the import", file=sys.stderr)
    return ExitCode.PROBLEMS if findings else ExitCode.OK
