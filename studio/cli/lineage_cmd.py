"""`dbstudio lineage PROJECT --submission ID [--judge judge:MODEL] [--json]`: what became of each failed
checkpoint criterion of a judged submission along the timeline — persisted, repaired or propagated
downstream — as a matrix of the later scopes (docs/lineage.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from studio.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from studio.scoring.lineage import Lineage

LEGEND = "x fails again   = holds again   >N failures downstream   . nothing observed   ? not judged"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", help="the project folder")
    parser.add_argument("--submission", required=True, metavar="ID", help="the judged submission (a run id)")
    parser.add_argument("--judge", metavar="judge:MODEL", help="count this judge's verdicts only (as score --judge)")
    parser.add_argument("--json", action="store_true", help="the lineage as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from studio.errors import StudioError
    from studio.judging.lineage_reading import lineage_of
    from studio.judging.run_judging import loaded_for_judging
    from studio.store import layout

    project_dir = Path(args.project)
    if (problem := layout.not_a_project(project_dir)) is not None:
        print(f"dbstudio lineage: {problem}", file=sys.stderr)
        return ExitCode.UNUSABLE
    try:
        lineage = lineage_of(loaded_for_judging(project_dir), args.submission, args.judge)
    except StudioError as exc:
        print(f"dbstudio lineage: {exc}", file=sys.stderr)
        return ExitCode.UNUSABLE
    if args.json:
        print(json.dumps(lineage.to_json(), indent=1, ensure_ascii=False))
        return ExitCode.OK
    print(lineage_text(lineage))
    return ExitCode.OK


def lineage_text(lineage: Lineage) -> str:
    counts = lineage.counts()
    lines = [f"defect lineage of {lineage.submission}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
             + (f"; not judged: {', '.join(lineage.not_judged)}" if lineage.not_judged else "")]
    if not lineage.defects:
        lines.append("no checkpoint criterion counts against it")
        return "\n".join(lines)
    columns = [scope for scope in lineage.scopes if scope != lineage.scopes[0]]
    lines.append(f"{'defect':<18} {'class':<11} " + " ".join(f"{scope:>6}" for scope in columns))
    for defect in lineage.defects:
        cells = {cell.scope: cell.code() for cell in defect.cells}
        row = " ".join(f"{cells.get(scope, ''):>6}" for scope in columns)
        cause = f"  (requires {defect.cause})" if defect.cause else ""
        lines.append(f"{defect.key:<18} {defect.kind:<11} {row}{cause}")
    lines.append(LEGEND)
    for defect in lineage.defects:
        if defect.propagated:
            lines.append(f"{defect.key} propagated to {', '.join(defect.propagated)}")
    if lineage.unknown:
        lines.append(f"not decided: {', '.join(lineage.unknown[:10])}{' ...' if len(lineage.unknown) > 10 else ''}")
    return "\n".join(lines)
