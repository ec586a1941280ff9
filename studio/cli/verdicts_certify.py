"""`dbstudio verdicts certify PROJECT [--run RUN ...] [--judge judge:MODEL ...] [--certify-at X]
[--format text|json]`: each judge's sensitivity and specificity against the experts' settled
verdicts (Wilson 95% intervals), per project, target, dimension and scope, certified only where both
lower bounds reach X; with two judges or more, side by side on the decisions all of them judged."""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.exit_codes import ExitCode

DEFAULT_THRESHOLD = 0.8


def _fail(message: str) -> int:
    print(f"dbstudio verdicts: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def run_certify(args: argparse.Namespace) -> int:
    from studio.cli.verdicts_cmd import ProjectLoadError
    from studio.cli.verdicts_export import read_stores, report_left_out
    from studio.judging.errors import JudgingError
    from studio.judging.judge_error import certification_report

    threshold = DEFAULT_THRESHOLD if args.certify_at is None else args.certify_at
    if not 0 < threshold < 1:
        return _fail(f"--certify-at takes a share between 0 and 1, both excluded (got {threshold:g}); e.g. 0.8")
    form = args.table_format or "text"
    if form not in ("text", "json"):
        return _fail(f"certify writes --format text or json (got {form})")
    if args.out is not None:
        return _fail(f"certify prints its report: unexpected {args.out} (redirect the output to keep it)")
    try:
        (verdicts,) = read_stores([args.project], args.runs)
    except (ProjectLoadError, JudgingError) as exc:
        return _fail(str(exc))
    judges = sorted({r for r in verdicts.found.raters() if r.startswith("judge:")})
    for judge in args.judges or ():
        if judge not in judges:
            return _fail(f"--judge {judge}: no such judge among the verdicts (judges: {', '.join(judges) or 'none'}); "
                         "a judge rater is named judge:MODEL")
    if not judges:
        return _fail(f"{args.project}: no judge has given verdicts yet: judge a run first (`dbstudio judge`)")
    report = certification_report(verdicts, threshold, sorted(set(args.judges)) if args.judges else judges)
    report_left_out([verdicts], "verdicts")
    print(json.dumps(report.to_json(), indent=2) if form == "json" else _text(report))
    return ExitCode.OK


def _text(report) -> str:
    lines = [f"Judge certification of {report.project} at {report.threshold:g} (both lower bounds of the "
             "Wilson 95% intervals; reference: adjudicated, else agreeing experts)", ""]
    header = (f"{'judge':<28} {'scope':<26} {'n':>4} {'sensitivity':<22} {'specificity':<22} "
              f"{'agree':>6} {'kappa':>6}  status")
    lines.append(header)
    for c in report.certificates:
        lines.append(_row(c, f"{c.kind} {c.scope}"))
    for c in report.certificates:
        if not c.certified:
            lines.append(f"  {c.judge} on {c.kind} {c.scope}: {c.reason}")
    if report.comparison is not None:
        comparison = report.comparison
        lines += ["", f"Side by side on the {comparison.decisions} decision(s) every judge judged and the people "
                      "settled", header]
        lines += [_row(c, "same decisions") for c in comparison.rows]
    return "\n".join(lines)


def _row(c, scope: str) -> str:
    from studio.judging.judge_error import certificate_cells

    judge, _, n, sensitivity, specificity, agreement, kappa, status = certificate_cells(c, scope)
    return f"{judge:<28} {scope:<26} {n:>4} {sensitivity:<22} {specificity:<22} {agreement:>6} {kappa:>6}  {status}"
