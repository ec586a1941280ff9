"""Weights: every rubric can be scored, and where the weight sits by target and dimension."""

from __future__ import annotations

from collections import Counter

from studio.model import Criterion
from studio.review.context import ReviewContext
from studio.review.locations import rubric_file
from studio.validation.findings import Severity

RULES = {
    "weights.no-positive": "A rubric has no positive weight, so it cannot be scored.",
    "weights.draft": "A criterion is still in draft review status.",
    "weights.share": "Share of positive weight per target and per dimension (information).",
}


def resolved_criteria(ctx: ReviewContext) -> list[tuple[str, Criterion, Criterion]]:
    """(scope, as written, as scored): a reused criterion is scored with its original's fields."""
    out = []
    for scope, criterion in ctx.project.all_criteria():
        scored = criterion
        if criterion.reuse_of:
            found = ctx.project.checkpoint_criterion(criterion.reuse_of)
            if found is None:
                continue
            scored = found[1]
        out.append((scope, criterion, scored))
    return out


def weight_shares(ctx: ReviewContext) -> dict:
    """Positive weight per target and per dimension, as shares of all positive weight."""
    by_target: Counter = Counter()
    by_dimension: Counter = Counter()
    for scope, written, scored in resolved_criteria(ctx):
        weight = scored.weight or 0
        if weight <= 0:
            continue
        target = "artifact" if written.reuse_of else scored.target.value
        by_target[target] += weight
        by_dimension[scored.dimension.value] += weight
    total = sum(by_target.values())
    share = (lambda c: {k: round(v / total, 4) for k, v in sorted(c.items())}) if total else (lambda c: {})
    return {"positive_weight": total, "by_target": share(by_target), "by_dimension": share(by_dimension)}


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    rubrics = [(sid, r.criteria) for sid, r in sorted(project.checkpoint_rubrics.items())]
    if project.final_rubric is not None:
        rubrics.append(("final", project.final_rubric.criteria))
    scored = {(scope, w.key): s for scope, w, s in resolved_criteria(ctx)}
    for scope, criteria in rubrics:
        weights = [scored[(scope, c.key)].weight or 0 for c in criteria if (scope, c.key) in scored]
        if criteria and not any(w > 0 for w in weights):
            ctx.report_node("weights.no-positive", Severity.ERROR,
                            f"the {'final' if scope == 'final' else scope + ' checkpoint'} rubric has no positive weight "
                            "(W+ = 0), so it cannot be scored: add a positive criterion", rubric_file(scope), ("criteria",))
        for criterion in criteria:
            # A reused criterion is reviewed where it was written, in its checkpoint rubric.
            if criterion.review.status.value == "draft" and criterion.reuse_of is None:
                ctx.report_criterion("weights.draft", Severity.WARNING,
                                     f"criterion {criterion.key} is still a draft: have an expert review it",
                                     scope, criterion, "review")
    shares = weight_shares(ctx)
    if shares["positive_weight"]:
        fmt = lambda d: ", ".join(f"{k} {100 * v:.1f}%" for k, v in d.items())  # noqa: E731
        ctx.report("weights.share", Severity.INFO,
                   f"positive weight {shares['positive_weight']}: by target {fmt(shares['by_target'])}; "
                   f"by dimension {fmt(shares['by_dimension'])}", rubric_file("final"))
