"""`dbstudio draft PROJECT (--subtask T03 | --propagation M12 | --acceptance) [judge flags] [--apply] [--json]`:
rubric criteria drafted by an LLM (the judge's endpoint and profile), each a draft criterion in the rubric
import's diff; printed for review, written only with --apply (docs/drafting.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.cli.exit_codes import ExitCode


def configure(parser: argparse.ArgumentParser) -> None:
    from studio.cli.judge_cmd import add_judge_options

    parser.add_argument("project", help="the project folder")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--subtask", metavar="ID", help="checkpoint criteria for this subtask, from its instruction, "
                                                      "outputs and the reference deliverable")
    what.add_argument("--propagation", metavar="MATERIAL",
                      help="criteria checking that this correcting material reached what is downstream of it")
    what.add_argument("--acceptance", action="store_true",
                      help="final criteria for the acceptance items no criterion tests yet")
    parser.add_argument("--apply", action="store_true", help="add the drafts to the rubric (as drafts) and save")
    parser.add_argument("--json", action="store_true", help="the drafts, what was left out and the cost as JSON")
    add_judge_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from studio.cli.judge_cmd import settings_of
    from studio.drafting.draft import draft
    from studio.editing.session import ProjectSession
    from studio.errors import StudioError
    from studio.sheets import diff_to_command
    from studio.store import layout
    from studio.validation import validate_project

    project_dir = Path(args.project)
    if (problem := layout.not_a_project(project_dir)) is not None:
        print(f"dbstudio draft: {problem}", file=sys.stderr)
        return ExitCode.UNUSABLE
    kind, subject = (("checkpoint", args.subtask) if args.subtask else ("propagation", args.propagation)
                     if args.propagation else ("acceptance", None))
    session = ProjectSession(project_dir)
    try:
        result = draft(session.loaded, kind, subject, settings_of(args, project_dir))
    except StudioError as exc:
        print(f"dbstudio draft: {exc}", file=sys.stderr)
        return ExitCode.UNUSABLE
    if args.json:
        print(json.dumps({"diff": result.diff.to_json(), "dropped": result.dropped, "model": result.model,
                          "prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens},
                         indent=1, ensure_ascii=False))
    else:
        for line in result.diff.lines():
            print(line)
        for reason in result.dropped:
            print(f"left out: {reason}")
    print(f"{len(result.diff.added)} draft criteria; the request cost {result.cost_line()}", file=sys.stderr)
    if not args.apply or not result.diff:
        if result.diff:
            print("nothing written: review the drafts, then run again with --apply (they are added as drafts)",
                  file=sys.stderr)
        return ExitCode.OK
    session.apply(diff_to_command(session.documents, result.diff, f"Draft {kind} criteria"))
    written = session.save()
    print(f"wrote {', '.join(written)}", file=sys.stderr)
    findings = validate_project(project_dir)
    for finding in findings:
        print(finding.render())
    return ExitCode.PROBLEMS if findings else ExitCode.OK
