"""Mutation testing's findings: what the last `dbstudio mutate` found that the rubric must answer — a
planted failure no criterion catches, a criterion the expert's own reference package fails. Read from
.dbstudio/mutation/report.json while it fits the rubrics and the reference package it was made from."""

from __future__ import annotations

from studio.mutation.reference import MutationError, load_reference
from studio.mutation.report import SURVIVED, read_report, rubric_fingerprints, scope_rubric_file
from studio.review.context import ReviewContext
from studio.store import layout
from studio.validation.findings import Severity

RULES = {
    "mutation.survived": "A failure planted in the reference package that no criterion of its rubric catches "
                         "(warning): a gap in the rubric; the finding suggests a criterion.",
    "mutation.reference-fails": "A criterion the expert's own reference package fails (warning): the rubric or "
                                "the reference is wrong, and every mutant's verdict on it means nothing.",
    "mutation.stale": "The last mutation report was made on other rubrics or another reference package "
                      "(information): run `dbstudio mutate` again.",
    "mutation.unreadable": "The mutation report or the reference package cannot be read.",
}
# Nothing is required: on a project whose files do not all load the report is not read (its rubrics are
# not the ones it was made on), and the families that need the files report them.
READS: tuple[str, ...] = ()


def check(ctx: ReviewContext) -> None:
    if ctx.loaded.problems:
        return
    report_file = f"{layout.MUTATION_DIR}/report.json"
    try:
        report = read_report(ctx.root)
    except MutationError as exc:
        ctx.report("mutation.unreadable", Severity.INFO, str(exc), report_file)
        return
    if report is None:
        return
    try:
        package_key = load_reference(ctx.root, ctx.project).key()
    except MutationError as exc:
        ctx.report("mutation.unreadable", Severity.INFO, f"{exc}; the last mutation report is not shown",
                   layout.REFERENCE_PACKAGE_DIR)
        return
    prints, _ = rubric_fingerprints(ctx.project)
    changed = [scope for scope, value in report.fingerprints.items() if prints.get(scope) != value]
    if package_key != report.reference_key:
        ctx.report("mutation.stale", Severity.INFO,
                   f"the reference package changed since the mutation report of {report.created}: run "
                   "`dbstudio mutate` again to see what the rubrics catch now", layout.REFERENCE_PACKAGE_DIR)
        return
    if changed:
        listed = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
        ctx.report("mutation.stale", Severity.INFO,
                   f"the rubrics of {listed} changed since the mutation report of {report.created}: its findings on "
                   "them are not shown; run `dbstudio mutate` again", scope_rubric_file(changed[0]))
    for scope, result in report.reference.items():
        if scope in changed:
            continue
        rubric = ctx.project.rubric(scope)
        for cid in result.failing:
            criterion = next((c for c in rubric.criteria if c.key == cid), None) if rubric else None
            if criterion is None:
                continue
            ctx.report_criterion("mutation.reference-fails", Severity.WARNING,
                                 f"the expert's reference package fails {cid} on {scope}: fix the criterion (or the "
                                 "reference) so that a faultless submission passes it", scope, criterion)
    for mutant in report.mutants:
        if mutant.status != SURVIVED or mutant.scope in changed:
            continue
        info = mutant.mutant
        ctx.report_node("mutation.survived", Severity.WARNING,
                        f"mutant {info['id']} survives every criterion of {mutant.scope}: {info['broke']} "
                        f"({info['because']}); add a criterion such as \u201c{info['suggestion']}\u201d",
                        scope_rubric_file(mutant.scope), ("criteria",))
