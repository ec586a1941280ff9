"""A benchmark's ranking as the robustness analyses (robust_*.py) take it: the rubrics its metric
averages, each with every system's verdicts, and each system's exact mean.

The metric is the final-score mean or the process-score mean over a set of projects (the shared
set, in a benchmark report), every project weighing the same; a project's process score is the mean
of its checkpoint scores. So a system's mean is a weighted sum of rubric scores,

    mean_s = sum over the metric's rubrics r of c(s, r) * score(s, r),   c(s, r) = 1 / (n_s * k_p)

with n_s the projects the system's mean averages and k_p the metric's rubrics of r's project (1 for
the final score). Every score is the engine's (studio/scoring/engine.py), and every score is
100 * g / W+ for an integer g (the credit, clipped to [0, W+]; 0 under a gate), so means compare
exactly as fractions: two means equal in exact arithmetic are tied even where their floating sums
differ in the last bit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

from studio.errors import StudioError
from studio.scoring.engine import RubricColumns, RubricResult, score_rubric

METRICS = ("final", "process")
# Floating sums of at most a few thousand scores err by far less than this; a difference smaller
# than it is settled in exact arithmetic.
TOLERANCE = 1e-7


class RankingError(StudioError, ValueError):
    """The ranking cannot be analysed as given (a score it averages is unknown, no system ...)."""


@dataclass(frozen=True)
class RankedRubric:
    """One rubric of one project, its criteria as every system is scored on them (weights are shared)."""

    project: str
    scope: str
    ids: tuple[str, ...]
    weights: tuple[int, ...]
    gates: tuple[bool, ...]
    requires: tuple[tuple[str, ...], ...]
    verdicts: Mapping[str, tuple[bool | None, ...]]  # system -> its verdicts, aligned with ids
    # system -> True where the verdict counted is the judge's alone (judge error may flip it); a
    # verdict the people gave or adjudicated is False. A system absent: none of its verdicts is the judge's.
    judged: Mapping[str, tuple[bool, ...]] = field(default_factory=dict)

    @cached_property
    def positive(self) -> int:
        return sum(w for w in self.weights if w > 0)

    def columns(self, system: str, verdicts: tuple[bool | None, ...] | None = None,
                weights: tuple[int, ...] | None = None) -> RubricColumns:
        """The engine's columns for `system` (targets and dimensions left blank: scores do not read them)."""
        blank = ("",) * len(self.ids)
        return RubricColumns(self.ids, self.weights if weights is None else weights, blank, blank,
                             self.verdicts[system] if verdicts is None else verdicts, self.gates, self.requires)

    def judged_of(self, system: str) -> tuple[bool, ...]:
        return self.judged.get(system, (False,) * len(self.ids))


def exact_score(score: float, positive: int) -> Fraction:
    """The exact score a float from the engine stands for: 100 * g / W+ with g an integer."""
    g = round(score * positive / 100.0)
    if abs(100.0 * g / positive - score) > 1e-6:
        raise RankingError(f"score {score} is not 100 * g / {positive} for an integer g")
    return Fraction(100 * g, positive)


@dataclass(frozen=True)
class Ranking:
    """Systems ranked by their mean of the metric over the projects of `rubrics`.

    `averaged`: the projects each system's mean averages (default: every project); every score it
    averages must be known."""

    metric: str
    systems: tuple[str, ...]
    rubrics: tuple[RankedRubric, ...]
    averaged: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise RankingError(f"the metric is one of {', '.join(METRICS)} (got {self.metric!r})")
        if not self.systems:
            raise RankingError("no system to rank")
        for rubric in self.rubrics:
            absent = [s for s in self.systems if s not in rubric.verdicts]
            if absent:
                raise RankingError(f"{rubric.project}/{rubric.scope} has no verdicts for {', '.join(absent)}")
        for system in self.systems:
            if not self.projects_of(system):
                raise RankingError(f"{system} has no project to average")
            for i in self.rubrics_of(system):
                if self.nominal[(system, i)].score is None:
                    rubric = self.rubrics[i]
                    raise RankingError(f"{system}'s score on {rubric.project}/{rubric.scope} is unknown: "
                                       "a mean cannot average it")

    @cached_property
    def projects(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.project for r in self.rubrics))

    @cached_property
    def members(self) -> dict[str, tuple[int, ...]]:
        """project -> the indices of its rubrics (the metric's)."""
        out: dict[str, list[int]] = {p: [] for p in self.projects}
        for i, rubric in enumerate(self.rubrics):
            out[rubric.project].append(i)
        return {p: tuple(v) for p, v in out.items()}

    def projects_of(self, system: str) -> tuple[str, ...]:
        return tuple(self.averaged.get(system, self.projects))

    def rubrics_of(self, system: str) -> list[int]:
        return [i for p in self.projects_of(system) for i in self.members[p]]

    @cached_property
    def nominal(self) -> dict[tuple[str, int], RubricResult]:
        """The engine's result of every (system, rubric index)."""
        return {(s, i): score_rubric(r.columns(s)) for i, r in enumerate(self.rubrics) for s in self.systems}

    def coefficient(self, system: str, index: int) -> Fraction:
        """c(s, r): 1 / (n_s * k_p) when the system's mean averages r's project, else 0."""
        project = self.rubrics[index].project
        if project not in self.projects_of(system):
            return Fraction(0)
        return Fraction(1, len(self.projects_of(system)) * len(self.members[project]))

    def score(self, system: str, index: int) -> Fraction:
        """The exact nominal score of a rubric the system's mean averages."""
        return exact_score(self.nominal[(system, index)].score, self.rubrics[index].positive)  # type: ignore[arg-type]

    @cached_property
    def means(self) -> dict[str, Fraction]:
        """Each system's exact mean."""
        return {s: sum((self.coefficient(s, i) * self.score(s, i) for i in self.rubrics_of(s)), Fraction(0))
                for s in self.systems}

    def pairs(self) -> list[tuple[str, str]]:
        """Every ordered pair (T, S), T != S."""
        return [(t, s) for t in self.systems for s in self.systems if t != s]
