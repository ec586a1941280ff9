"""The scoring rules of domain.md § Scoring, over plain verdict records.

A verdict is True (1), False (0) or None (missing). Missing verdicts are never read as 0 or 1:
a score that depends on one is None ("unavailable"), and every result counts them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from statistics import fmean
from typing import Iterable, Sequence

FINAL_SCOPE = "final"
FINAL_TARGETS = ("artifact", "cross-file", "package")
DIMENSIONS = ("correctness", "completeness", "consistency", "professionalism", "usability")
PASS_THRESHOLD = 90.0


class ScoringError(ValueError):
    """The rubric cannot be scored as given (no positive weight, a requires cycle)."""


@dataclass(frozen=True, slots=True)
class ScoredCriterion:
    """One criterion of one rubric with its judged verdict."""

    id: str
    weight: int
    target: str
    dimension: str
    verdict: bool | None
    gate: bool = False
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class RubricResult:
    score: float | None  # None when a missing verdict decides it
    gate_triggered: bool
    missing: int
    positive_weight: int
    effective: dict[str, bool | None] = field(repr=False, default_factory=dict)


def _clip(value: float) -> float:
    return 0.0 if value < 0.0 else 100.0 if value > 100.0 else value


def effective_verdicts(criteria: Sequence[ScoredCriterion]) -> dict[str, bool | None]:
    """h after `requires`: credited only if every required criterion holds (three-valued AND)."""
    by_id = {c.id: c for c in criteria}
    resolved: dict[str, bool | None] = {}
    for criterion in criteria:
        if not criterion.requires:
            resolved[criterion.id] = criterion.verdict
    if len(resolved) == len(by_id):
        return resolved
    visiting: set[str] = set()

    def resolve(cid: str) -> bool | None:
        if cid in resolved:
            return resolved[cid]
        if cid in visiting:
            raise ScoringError(f"criterion {cid} is part of a 'requires' cycle")
        visiting.add(cid)
        criterion = by_id[cid]
        value = criterion.verdict
        for needed in criterion.requires:
            if needed not in by_id:
                raise ScoringError(f"criterion {cid} requires unknown criterion {needed}")
            other = resolve(needed)
            if other is False or value is False:
                value = False
            elif other is None:
                value = None
        visiting.discard(cid)
        resolved[cid] = value
        return value

    for cid in by_id:
        resolve(cid)
    return resolved


def score_rubric(criteria: Sequence[ScoredCriterion]) -> RubricResult:
    """score = 0 if a fatal gate triggered, else clip(100 · Σ w·h / W+, 0, 100)."""
    h = effective_verdicts(criteria)
    missing = sum(1 for c in criteria if c.verdict is None)
    positive = sum(c.weight for c in criteria if c.weight > 0 and not c.gate)
    gates = [h[c.id] for c in criteria if c.gate]
    if any(g is True for g in gates):
        return RubricResult(0.0, True, missing, positive, h)
    if positive <= 0:
        raise ScoringError("the rubric has no positive weight (W+ = 0)")
    if any(g is None for g in gates):
        return RubricResult(None, False, missing, positive, h)
    credit = 0
    for c in criteria:
        if c.gate:
            continue
        value = h[c.id]
        if value is None:
            return RubricResult(None, False, missing, positive, h)
        if value:
            credit += c.weight
    return RubricResult(_clip(100.0 * credit / positive), False, missing, positive, h)


def group_profile(criteria: Iterable[ScoredCriterion], h: dict[str, bool | None], key: str,
                  groups: Sequence[str]) -> dict[str, float | None]:
    """Signed credit / positive weight per group, ×100, clipped, before gates; None if unavailable."""
    credit: dict[str, int] = defaultdict(int)
    positive: dict[str, int] = defaultdict(int)
    unknown: set[str] = set()
    for c in criteria:
        if c.gate:
            continue
        group = getattr(c, key)
        if c.weight > 0:
            positive[group] += c.weight
        value = h[c.id]
        if value is None:
            unknown.add(group)
        elif value:
            credit[group] += c.weight
    return {
        g: (None if positive[g] <= 0 or g in unknown else _clip(100.0 * credit[g] / positive[g]))
        for g in groups
    }


@dataclass
class SystemProjectScores:
    """One system on one project."""

    final: float | None
    process: float | None
    checkpoints: dict[str, float | None]
    gate_triggered: bool
    targets: dict[str, float | None]
    dimensions: dict[str, float | None]
    missing: int


@dataclass
class SystemSummary:
    final_mean: float | None
    process_mean: float | None
    gap: float | None
    pass_rate_90: float | None
    targets: dict[str, float | None]
    dimensions: dict[str, float | None]
    projects: int
    checkpoints: int
    missing: int


@dataclass
class BenchmarkScores:
    projects: dict[str, dict[str, SystemProjectScores]]
    systems: dict[str, SystemSummary]

    @property
    def missing(self) -> int:
        return sum(s.missing for by_system in self.projects.values() for s in by_system.values())


def score_system_project(rubrics: dict[str, Sequence[ScoredCriterion]]) -> SystemProjectScores:
    """Scores from rubrics keyed by scope: subtask ids for checkpoints, 'final' for the final rubric."""
    checkpoints: dict[str, float | None] = {}
    missing = 0
    gate = False
    for scope in sorted(s for s in rubrics if s != FINAL_SCOPE):
        result = score_rubric(rubrics[scope])
        checkpoints[scope] = result.score
        missing += result.missing
    final_criteria = rubrics.get(FINAL_SCOPE)
    final_score: float | None = None
    targets = {t: None for t in FINAL_TARGETS}
    dimensions: dict[str, float | None] = {d: None for d in DIMENSIONS}
    if final_criteria:
        result = score_rubric(final_criteria)
        final_score, gate = result.score, result.gate_triggered
        missing += result.missing
        targets = group_profile(final_criteria, result.effective, "target", FINAL_TARGETS)
        dimensions = group_profile(final_criteria, result.effective, "dimension", DIMENSIONS)
    process = _mean_or_none(list(checkpoints.values()))
    return SystemProjectScores(final_score, process, checkpoints, gate, targets, dimensions, missing)


def _mean_or_none(values: list[float | None]) -> float | None:
    if not values or any(v is None for v in values):
        return None
    return fmean(values)  # type: ignore[arg-type]


def _available_mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def summarise_system(per_project: list[SystemProjectScores]) -> SystemSummary:
    """Benchmark means weight every project equally; pass rate pools every checkpoint."""
    finals = [p.final for p in per_project]
    processes = [p.process for p in per_project]
    final_mean = _mean_or_none(finals)
    process_mean = _mean_or_none(processes)
    checkpoint_scores = [s for p in per_project for s in p.checkpoints.values()]
    if not checkpoint_scores or any(s is None for s in checkpoint_scores):
        pass_rate = None
    else:
        pass_rate = sum(1 for s in checkpoint_scores if s >= PASS_THRESHOLD) / len(checkpoint_scores)  # type: ignore[operator]
    return SystemSummary(
        final_mean=final_mean,
        process_mean=process_mean,
        gap=None if final_mean is None or process_mean is None else process_mean - final_mean,
        pass_rate_90=pass_rate,
        targets={t: _available_mean([p.targets[t] for p in per_project]) for t in FINAL_TARGETS},
        dimensions={d: _available_mean([p.dimensions[d] for p in per_project]) for d in DIMENSIONS},
        projects=len(per_project),
        checkpoints=len(checkpoint_scores),
        missing=sum(p.missing for p in per_project),
    )


def score_benchmark(rubrics: dict[str, dict[str, dict[str, Sequence[ScoredCriterion]]]]) -> BenchmarkScores:
    """rubrics[project][system][scope] -> criteria. Returns per-project scores and system means."""
    projects: dict[str, dict[str, SystemProjectScores]] = {}
    by_system: dict[str, list[SystemProjectScores]] = defaultdict(list)
    for project in sorted(rubrics):
        projects[project] = {}
        for system in sorted(rubrics[project]):
            scores = score_system_project(rubrics[project][system])
            projects[project][system] = scores
            by_system[system].append(scores)
    systems = {system: summarise_system(items) for system, items in sorted(by_system.items())}
    return BenchmarkScores(projects, systems)
