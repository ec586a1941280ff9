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
    "weights.share": "Share of positive weight per dimension in the checkpoint rubrics and per target and dimension "
                     "in the final rubric, reported apart (information).",
}


@dataclass(frozen=True)
class RubricShares:
    """Positive weight of one kind of rubric and its shares (0..1, rounded to 4 places) per target
    and per dimension, keys in alphabetical order."""

    positive_weight: int = 0
    rubrics: int = 0
    by_target: dict[str, float] = field(default_factory=dict)
    by_dimension: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "positive_weight": self.positive_weight,
            "rubrics": self.rubrics,
            "by_target": dict(self.by_target),
            "by_dimension": dict(self.by_dimension),
        }


@dataclass(frozen=True)
class WeightShares:
    """Checkpoint and final weight, apart: they are scored apart (the process score is the mean of
    the checkpoint scores, the final score one rule over the final rubric). A checkpoint share is
    what a dimension weighs in the process score: the mean over checkpoint rubrics of its share of
    each rubric's W+. A final share is its part of the final rubric's W+."""

    checkpoint: RubricShares = field(default_factory=RubricShares)
    final: RubricShares = field(default_factory=RubricShares)

    def to_json(self) -> dict[str, Any]:
        return {"checkpoint": self.checkpoint.to_json(), "final": self.final.to_json()}


def _shares(weights: Counter[str], total: int) -> dict[str, float]:
    return {key: round(value / total, 4) for key, value in sorted(weights.items())} if total else {}


def weight_shares(ctx: ReviewContext) -> WeightShares:
    """Positive weight per target and per dimension, checkpoint and final apart (computed once per review)."""
    shares = ctx.memo.get("weight_shares")
    if not isinstance(shares, WeightShares):
        shares = ctx.memo["weight_shares"] = _weight_shares(ctx)
    return shares


def _weight_shares(ctx: ReviewContext) -> WeightShares:
    # Summed per (scope, target, dimension) of enum members first: reading an enum's .value is
    # slow, and there are few such triples against 10,000 criteria.
    by_triple: Counter[tuple[str, Target, Dimension]] = Counter()
    for scope, written, scored in ctx.resolved_criteria:
        weight = scored.weight or 0
        if weight <= 0 or scored.target is None or scored.dimension is None:
            continue  # a misplaced reuse_of, which validation reports
        by_triple[(scope, Target.ARTIFACT if written.reuse_of else scored.target, scored.dimension)] += weight
    final_targets: Counter[str] = Counter()
    final_dimensions: Counter[str] = Counter()
    per_rubric: dict[str, Counter[str]] = {}
    for (scope, target, dimension), weight in by_triple.items():
        if scope == FINAL_SCOPE:
            final_targets[target.value] += weight
            final_dimensions[dimension.value] += weight
        else:
            per_rubric.setdefault(scope, Counter())[dimension.value] += weight
    final_total = sum(final_targets.values())
    final = RubricShares(final_total, 1 if final_total else 0, _shares(final_targets, final_total),
                         _shares(final_dimensions, final_total))
    mean: dict[str, float] = {}
    for dimensions in per_rubric.values():
        total = sum(dimensions.values())
        for name, weight in dimensions.items():
            mean[name] = mean.get(name, 0.0) + weight / total
    rubrics = len(per_rubric)
    checkpoint = RubricShares(
        sum(sum(d.values()) for d in per_rubric.values()), rubrics,
        {Target.CHECKPOINT.value: 1.0} if rubrics else {},
        {key: round(value / rubrics, 4) for key, value in sorted(mean.items())},
    )
    return WeightShares(checkpoint, final)


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
    if shares.checkpoint.rubrics:
        ctx.report(
            "weights.share",
            Severity.INFO,
            f"checkpoint rubrics ({shares.checkpoint.rubrics}, positive weight {shares.checkpoint.positive_weight}, "
            f"each scored on its own and averaged into the process score): by dimension "
            f"{_percent(shares.checkpoint.by_dimension)}",
            rubric_file(FINAL_SCOPE),
        )
    if shares.final.positive_weight:
        ctx.report(
            "weights.share",
            Severity.INFO,
            f"final rubric (positive weight {shares.final.positive_weight}, scored as one): by target "
            f"{_percent(shares.final.by_target)}; by dimension {_percent(shares.final.by_dimension)}",
            rubric_file(FINAL_SCOPE),
        )


def _percent(shares: dict[str, float]) -> str:
    return ", ".join(f"{key} {100 * share:.1f}%" for key, share in shares.items())
