"""Weights: every rubric can be scored, and where the weight sits by target and dimension."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from studio.model.vocabulary import FINAL_SCOPE, Dimension, Target
from studio.review.context import ReviewContext
from studio.review.locations import rubric_file
from studio.validation.findings import Severity

RULES = {
    "weights.no-positive": "A rubric has no positive weight, so it cannot be scored.",
    "weights.draft": "A criterion is still in draft review status.",
    "weights.share": "Share of positive weight per target and per dimension (information).",
}


@dataclass(frozen=True)
class WeightShares:
    """Positive weight over the whole project, and its shares (0..1, rounded to 4 places) per
    target and per dimension, keys in alphabetical order."""

    positive_weight: int = 0
    by_target: dict[str, float] = field(default_factory=dict)
    by_dimension: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "positive_weight": self.positive_weight,
            "by_target": dict(self.by_target),
            "by_dimension": dict(self.by_dimension),
        }


def _shares(weights: Counter[str], total: int) -> dict[str, float]:
    return {key: round(value / total, 4) for key, value in sorted(weights.items())} if total else {}


def weight_shares(ctx: ReviewContext) -> WeightShares:
    """Positive weight per target and per dimension, as shares of all positive weight
    (computed once per review)."""
    shares = ctx.memo.get("weight_shares")
    if not isinstance(shares, WeightShares):
        shares = ctx.memo["weight_shares"] = _weight_shares(ctx)
    return shares


def _weight_shares(ctx: ReviewContext) -> WeightShares:
    # Summed per (target, dimension) pair of enum members first: reading an enum's .value is
    # slow, and there are at most 20 pairs against 10,000 criteria.
    by_pair: Counter[tuple[Target, Dimension]] = Counter()
    for _, written, scored in ctx.resolved_criteria:
        weight = scored.weight or 0
        if weight <= 0 or scored.target is None or scored.dimension is None:
            continue  # a misplaced reuse_of, which validation reports
        by_pair[(Target.ARTIFACT if written.reuse_of else scored.target, scored.dimension)] += weight
    by_target: Counter[str] = Counter()
    by_dimension: Counter[str] = Counter()
    for (target, dimension), weight in by_pair.items():
        by_target[target.value] += weight
        by_dimension[dimension.value] += weight
    total = sum(by_target.values())
    return WeightShares(total, _shares(by_target, total), _shares(by_dimension, total))


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    rubrics = [(sid, r.criteria) for sid, r in sorted(project.checkpoint_rubrics.items())]
    if project.final_rubric is not None:
        rubrics.append((FINAL_SCOPE, project.final_rubric.criteria))
    scored = {(scope, w.key): s for scope, w, s in ctx.resolved_criteria}
    for scope, criteria in rubrics:
        weights = [scored[(scope, c.key)].weight or 0 for c in criteria if (scope, c.key) in scored]
        if criteria and not any(w > 0 for w in weights):
            ctx.report_node(
                "weights.no-positive",
                Severity.ERROR,
                f"the {'final' if scope == FINAL_SCOPE else scope + ' checkpoint'} rubric has no positive weight "
                "(W+ = 0), so it cannot be scored: add a positive criterion",
                rubric_file(scope),
                ("criteria",),
            )
        for criterion in criteria:
            # A reused criterion is reviewed where it was written, in its checkpoint rubric.
            if criterion.review.status.value == "draft" and criterion.reuse_of is None:
                ctx.report_criterion(
                    "weights.draft",
                    Severity.WARNING,
                    f"criterion {criterion.key} is still a draft: have an expert review it",
                    scope,
                    criterion,
                    "review",
                )
    shares = weight_shares(ctx)
    if shares.positive_weight:
        ctx.report(
            "weights.share",
            Severity.INFO,
            f"positive weight {shares.positive_weight}: by target {_percent(shares.by_target)}; "
            f"by dimension {_percent(shares.by_dimension)}",
            rubric_file(FINAL_SCOPE),
        )


def _percent(shares: dict[str, float]) -> str:
    return ", ".join(f"{key} {100 * share:.1f}%" for key, share in shares.items())
