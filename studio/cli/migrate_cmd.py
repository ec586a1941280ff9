"""`dbstudio migrate PROJECT`: bring a project written in an older form of the format up to date,
in place (comments and layout kept, nothing committed: review the change, then `dbstudio save`).

The one migration so far: acceptance items written as plain text get an id (AC1, AC2, ...) and a
`text`, so final criteria can name the items they test."""

from __future__ import annotations

import argparse
import sys

from studio.cli.exit_codes import ExitCode


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder (the one holding project.yaml)")
    parser.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from studio.editing.delivery import number_acceptance
    from studio.editing.session import ProjectSession
    from studio.store import layout

    root = layout.project_folder(args.path)
    session = ProjectSession(root)
    command = number_acceptance(session.documents)
    if command is None:
        print(f"{root}: nothing to migrate, the project is in the current format")
        return ExitCode.OK
    session.apply(command)
    if args.dry_run:
        print(f"{command.label} in {layout.PROJECT_FILE} (dry run: nothing written)")
        return ExitCode.OK
    written = session.save()
    print(f"{command.label} in {', '.join(written)}: review the ids, add `tests: [ACn]` to the final criteria "
          "that check each item, then `dbstudio save`", file=sys.stdout)
    return ExitCode.OK
