"""Totals of a rubric: overall, per target and per dimension, the number of criteria, W+ (the sum
of positive weights, the denominator of every score), the sum of negative weights and the gates.
Reused final criteria count with their original's weight, under target `artifact`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from studio.model.vocabulary import Target

if TYPE_CHECKING:
    from studio.model import Project


@dataclass
class Sums:
    criteria: int = 0
    positive: int = 0
    negative: int = 0
    gates: int = 0

    def add(self, weight: int, gate: bool) -> None:
        self.criteria += 1
        self.positive += max(weight, 0)
        self.negative += min(weight, 0)
        self.gates += gate

    def __iadd__(self, other: Sums) -> Sums:
        self.criteria += other.criteria
        self.positive += other.positive
        self.negative += other.negative
        self.gates += other.gates
        return self


@dataclass
class RubricSums:
    """One rubric's sums, overall and by target and dimension."""

    whole: Sums = field(default_factory=Sums)
    by_target: dict[str, Sums] = field(default_factory=dict)
    by_dimension: dict[str, Sums] = field(default_factory=dict)


def rubric_sums(project: Project, scope: str) -> RubricSums:
    sums = RubricSums()
    rubric = project.rubric(scope)
    for criterion in rubric.criteria if rubric else []:
        target = criterion.target.value if criterion.target else ""
        values = project.scored_as(scope, criterion)
        if values is None:
            continue  # a reuse of nothing carries no weight (validation reports it)
        if criterion.reuse_of is not None:
            target = Target.ARTIFACT.value
        weight, gate = values.weight or 0, values.gate
        dimension = values.dimension.value if values.dimension else ""
        sums.whole.add(weight, gate)
        sums.by_target.setdefault(target, Sums()).add(weight, gate)
        sums.by_dimension.setdefault(dimension, Sums()).add(weight, gate)
    return sums
