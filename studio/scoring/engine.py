"""The scoring rules of domain.md § Scoring, over plain verdict records.

A verdict is True (1), False (0) or None (missing). Missing verdicts are never read as 0 or 1:
a score that one could change is None ("unknown"), with the range it can take over every
completion of the missing verdicts (see bounds.py); every result counts them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import is_, mul, not_, truth
from typing import TYPE_CHECKING, NamedTuple

from studio.errors import StudioError
from studio.model import vocabulary

if TYPE_CHECKING:
    from studio.scoring.bounds import ScoreRange

# The model's words as plain strings: they key the profiles and are printed as they are.
FINAL_SCOPE: str = vocabulary.FINAL_SCOPE
FINAL_TARGETS: tuple[str, ...] = tuple(target.value for target in vocabulary.FINAL_TARGETS)
DIMENSIONS: tuple[str, ...] = tuple(dimension.value for dimension in vocabulary.Dimension)
CORRECT_BY = ("pooled", "target", "dimension")
"""How `score --corrected` groups the criteria to measure a judge's error (studio/judging/judge_error.py)."""
PASS_THRESHOLD = 90.0


class ScoringError(StudioError, ValueError):
    """The rubric cannot be scored as given (no positive weight, a requires cycle)."""


class ScoredCriterion(NamedTuple):
    """One criterion of one rubric with its judged verdict."""

    id: str
    weight: int
    target: str
    dimension: str
    verdict: bool | None
    gate: bool = False
    requires: tuple[str, ...] = ()


class RubricColumns:
    """One rubric as columns, one entry per criterion. Scoring a 40,000-row benchmark this
    way runs in C-level loops (sum, compress, count) instead of a Python loop per criterion.

    A plain class rather than a dataclass (and the results below NamedTuples): importing
    dataclasses costs `dbstudio score` more than scoring the paper's benchmark does."""

    __slots__ = ("ids", "weights", "targets", "dimensions", "verdicts", "gates", "requires")
    ids: tuple[str, ...]
    weights: tuple[int, ...]
    targets: tuple[str, ...]
    dimensions: tuple[str, ...]
    verdicts: tuple[bool | None, ...]
    gates: tuple[bool, ...]
    requires: tuple[tuple[str, ...], ...]

    def __init__(self, ids: tuple[str, ...], weights: tuple[int, ...], targets: tuple[str, ...],
                 dimensions: tuple[str, ...], verdicts: tuple[bool | None, ...], gates: tuple[bool, ...],
                 requires: tuple[tuple[str, ...], ...]):
        self.ids, self.weights, self.targets, self.dimensions = ids, weights, targets, dimensions
        self.verdicts, self.gates, self.requires = verdicts, gates, requires

    def _columns(self) -> tuple:
        return (self.ids, self.weights, self.targets, self.dimensions, self.verdicts, self.gates, self.requires)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RubricColumns) and self._columns() == other._columns()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RubricColumns(ids={self.ids!r}, ...)"

    @classmethod
    def of(cls, criteria: Sequence[ScoredCriterion] | RubricColumns) -> RubricColumns:
        if isinstance(criteria, RubricColumns):
            return criteria
        if not criteria:
            return cls((), (), (), (), (), (), ())
        return cls(*zip(*criteria, strict=False))

    def __len__(self) -> int:
        return len(self.ids)

    def criteria(self) -> list[ScoredCriterion]:
        return [ScoredCriterion(*row) for row in zip(self.ids, self.weights, self.targets, self.dimensions,
                                                      self.verdicts, self.gates, self.requires, strict=False)]


class RubricResult(NamedTuple):
    score: float | None  # None when a missing verdict decides it
    gate_triggered: bool
    missing: int
    positive_weight: int
    effective: tuple[bool | None, ...] = ()  # h, aligned with the criteria
    bounds: ScoreRange | None = None  # the range over every completion; None when the score is known

    @property
    def low(self) -> float:
        return self.bounds.low if self.bounds is not None else self.score  # type: ignore[return-value]

    @property
    def high(self) -> float:
        return self.bounds.high if self.bounds is not None else self.score  # type: ignore[return-value]


def _clip(value: float) -> float:
    return 0.0 if value < 0.0 else 100.0 if value > 100.0 else value


def effective_verdicts(rubric: RubricColumns) -> tuple[bool | None, ...]:
    """h after `requires`: credited only if every required criterion holds (three-valued AND)."""
    if not any(rubric.requires):
        return rubric.verdicts
    h = list(rubric.verdicts)
    resolve_requires(rubric.ids, rubric.verdicts, rubric.requires, 0, len(rubric), h)
    return tuple(h)


def resolve_requires(ids: Sequence[str], verdicts: Sequence[bool | None], requires: Sequence[tuple[str, ...]],
                     start: int, end: int, h: list) -> None:
    """Set h[i] for the rows of [start, end) that require others: their verdict AND'ed with
    the (resolved) verdicts they require. ScoringError for an unknown id or a cycle.

    Depth-first with an explicit stack, so a chain of thousands of criteria needs no recursion."""
    # The first row of each id (built from the end, so earlier rows overwrite later ones).
    position = dict(zip(reversed(ids[start:end]), range(end - 1, start - 1, -1), strict=False))

    def row_of(i: int, needed: str) -> int:
        if needed not in position:
            raise ScoringError(f"criterion {ids[i]} requires unknown criterion {needed}")
        return position[needed]

    resolved: dict[int, bool | None] = {}
    for root in compress(range(start, end), requires[start:end]):
        needed_rows = [row_of(root, needed) for needed in requires[root]]
        if not any(requires[j] for j in needed_rows):
            # The usual case: what it requires requires nothing; AND their verdicts directly.
            value = verdicts[root]
            for j in needed_rows:
                other = verdicts[j]
                if other is False or value is False:
                    value = False
                elif other is None:
                    value = None
            resolved[root] = h[root] = value
            continue
        stack, on_stack = [root], {root}
        while stack:
            i = stack[-1]
            waiting = next((j for j in (row_of(i, needed) for needed in requires[i])
                            if requires[j] and j not in resolved), None)
            if waiting is not None:
                if waiting in on_stack:
                    raise ScoringError(f"criterion {ids[waiting]} is part of a 'requires' cycle")
                stack.append(waiting)
                on_stack.add(waiting)
                continue
            value = verdicts[i]
            for needed in requires[i]:
                j = row_of(i, needed)
                other = resolved[j] if requires[j] else verdicts[j]
                if other is False or value is False:
                    value = False
                elif other is None:
                    value = None
            resolved[i] = value
            stack.pop()
            on_stack.discard(i)
        h[root] = resolved[root]


def score_rubric(criteria: Sequence[ScoredCriterion] | RubricColumns) -> RubricResult:
    """score = 0 if a fatal gate triggered, else clip(100 · Σ w·h / W+, 0, 100)."""
    rubric = RubricColumns.of(criteria)
    h = effective_verdicts(rubric)
    missing = rubric.verdicts.count(None)
    weights = rubric.weights
    # Gates have weight 0, so they add nothing to W+ or the credit; only their verdicts matter.
    positive = sum(filter(_is_positive, weights))
    unknown = None in h
    if True in rubric.gates:
        gate_values = list(compress(h, rubric.gates))
        if True in gate_values:
            return RubricResult(0.0, True, missing, positive, h)
    if positive <= 0:
        raise ScoringError("the rubric has no positive weight (W+ = 0)")
    if unknown:
        return unknown_result(rubric, missing, positive, h)
    credit = sum(compress(weights, h))
    return RubricResult(_clip(100.0 * credit / positive), False, missing, positive, h)


_is_positive = (0).__lt__


def unknown_result(rubric: RubricColumns, missing: int, positive: int,
                   h: tuple[bool | None, ...] = ()) -> RubricResult:
    """The result of a rubric whose effective verdicts leave its score open (no gate known to
    trigger, W+ > 0): its range, and its score when every completion gives the same one."""
    from studio.scoring.bounds import score_range  # only tables with missing verdicts need it

    found = score_range(rubric.ids, rubric.weights, rubric.verdicts, rubric.gates, rubric.requires,
                        h or effective_verdicts(rubric), positive)
    if found.low == found.high:
        return RubricResult(found.low, False, missing, positive, h)
    return RubricResult(None, False, missing, positive, h, found)


def group_profiles(rubric: RubricColumns, h: Sequence[bool | None]) -> tuple[dict, dict]:
    """Profiles by target and by dimension: signed credit / positive weight per group, ×100,
    clipped, before gates; None where the group has no positive weight or a missing verdict.

    Each group is summed with C-level passes (compress, sum) over the rubric's columns."""
    counted = list(map(not_, rubric.gates))  # gates weigh 0; only their missing verdicts must not blank a group
    weights = list(compress(rubric.weights, counted))
    values = list(compress(h, counted))
    positive = list(map(max, weights, repeat(0)))
    credit = list(map(mul, weights, map(truth, values)))
    unknown = list(map(is_, values, repeat(None)))

    def profile(groups: Sequence[str], labels: Sequence[str]) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for group in groups:
            member = list(map(group.__eq__, compress(labels, counted)))
            total = sum(compress(positive, member))
            out[group] = (None if total <= 0 or any(compress(unknown, member))
                          else _clip(100.0 * sum(compress(credit, member)) / total))
        return out

    return profile(FINAL_TARGETS, rubric.targets), profile(DIMENSIONS, rubric.dimensions)


class SystemProjectScores(NamedTuple):
    """One system on one project."""

    final: float | None
    process: float | None
    checkpoints: dict[str, float | None]
    gate_triggered: bool
    targets: dict[str, float | None]
    dimensions: dict[str, float | None]
    missing: int
    # [lowest, highest] over every completion of the missing verdicts; both ends equal the
    # score when it is known, None where there is no such rubric.
    final_range: tuple[float, float] | None = None
    process_range: tuple[float, float] | None = None
    # False when a range is a safe outer bound rather than exact (bounds.BRANCH_LIMIT).
    range_exact: bool = True


class SystemSummary(NamedTuple):
    final_mean: float | None  # over the projects whose final score is known
    process_mean: float | None  # over the projects whose process score is known
    gap: float | None  # process - final, over the projects where both are known
    pass_rate_90: float | None  # pooled over the checkpoints of the projects in process_mean
    targets: dict[str, float | None]
    dimensions: dict[str, float | None]
    projects: int
    checkpoints: int
    missing: int
    # Projects left out of final_mean / process_mean because their score is unknown.
    final_left_out: tuple[str, ...] = ()
    process_left_out: tuple[str, ...] = ()


class BenchmarkScores(NamedTuple):
    projects: dict[str, dict[str, SystemProjectScores]]
    systems: dict[str, SystemSummary]

    @property
    def missing(self) -> int:
        return sum(s.missing for by_system in self.projects.values() for s in by_system.values())


def score_system_project(rubrics: Mapping[str, Sequence[ScoredCriterion] | RubricColumns]) -> SystemProjectScores:
    """Scores from rubrics keyed by scope: subtask ids for checkpoints, 'final' for the final rubric."""
    columns = {scope: RubricColumns.of(criteria) for scope, criteria in rubrics.items() if len(criteria)}
    results = {scope: score_rubric(rubric) for scope, rubric in columns.items()}
    final = columns.get(FINAL_SCOPE)
    profiles = group_profiles(final, results[FINAL_SCOPE].effective) if final is not None else None
    return system_project_scores(results, profiles)


def system_project_scores(results: dict[str, RubricResult], profiles: tuple[dict, dict] | None) -> SystemProjectScores:
    """Assemble one system's project scores from its rubric results and, where it has a final
    rubric, that rubric's (targets, dimensions) profiles."""
    scopes = sorted(s for s in results if s != FINAL_SCOPE)
    checkpoints = {scope: results[scope].score for scope in scopes}
    missing = sum(r.missing for r in results.values())
    final_score: float | None = None
    final_range: tuple[float, float] | None = None
    gate = False
    targets: dict[str, float | None] = {t: None for t in FINAL_TARGETS}
    dimensions: dict[str, float | None] = {d: None for d in DIMENSIONS}
    if FINAL_SCOPE in results:
        result = results[FINAL_SCOPE]
        final_score, gate = result.score, result.gate_triggered
        final_range = (result.low, result.high)
        if profiles is not None:
            targets, dimensions = profiles
    process = _mean_or_none(list(checkpoints.values()))
    process_range: tuple[float, float] | None = None
    if process is not None:
        process_range = (process, process)
    elif scopes:
        # Each checkpoint rubric has verdicts of its own, so their ends combine freely: the
        # mean's range is the mean of the lows to the mean of the highs.
        process_range = (_fmean([results[s].low for s in scopes]), _fmean([results[s].high for s in scopes]))
    exact = all(r.bounds is None or r.bounds.exact for r in results.values())
    return SystemProjectScores(final_score, process, checkpoints, gate, targets, dimensions, missing,
                               final_range, process_range, exact)


def _mean_or_none(values: list[float | None]) -> float | None:
    if not values or any(v is None for v in values):
        return None
    return _fmean(values)  # type: ignore[arg-type]


def _available_mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return _fmean(present) if present else None


def _fmean(values: list[float]) -> float:
    """statistics.fmean's exact result (fsum / n) without importing statistics on the
    score path."""
    return math.fsum(values) / len(values)


def summarise_system(per_project: Sequence[SystemProjectScores] | Mapping[str, SystemProjectScores]) -> SystemSummary:
    """Benchmark means weight every project equally, over the projects whose score is known
    (the others are named in final_left_out / process_left_out); the pass rate pools every
    checkpoint of the projects in the process mean. Projects given as a list are named by
    their place (1, 2, ...)."""
    named = per_project if isinstance(per_project, Mapping) else {
        str(n): p for n, p in enumerate(per_project, start=1)}
    finals = {name: p.final for name, p in named.items() if p.final is not None}
    processes = {name: p.process for name, p in named.items() if p.process is not None}
    final_mean = _fmean(list(finals.values())) if finals else None
    process_mean = _fmean(list(processes.values())) if processes else None
    both = [name for name in finals if name in processes]
    gap = _fmean([processes[n] for n in both]) - _fmean([finals[n] for n in both]) if both else None
    checkpoint_scores = [s for name in processes for s in named[name].checkpoints.values()]
    pass_rate = None
    if checkpoint_scores:
        passed = sum(1 for s in checkpoint_scores if s is not None and s >= PASS_THRESHOLD)
        pass_rate = passed / len(checkpoint_scores)
    projects = list(named.values())
    return SystemSummary(
        final_mean=final_mean,
        process_mean=process_mean,
        gap=gap,
        pass_rate_90=pass_rate,
        targets={t: _available_mean([p.targets[t] for p in projects]) for t in FINAL_TARGETS},
        dimensions={d: _available_mean([p.dimensions[d] for p in projects]) for d in DIMENSIONS},
        projects=len(projects),
        checkpoints=sum(len(p.checkpoints) for p in projects),
        missing=sum(p.missing for p in projects),
        final_left_out=tuple(name for name, p in named.items() if p.final is None),
        process_left_out=tuple(name for name, p in named.items() if p.process is None),
    )


Criteria = Sequence[ScoredCriterion] | RubricColumns


def score_benchmark(rubrics: Mapping[str, Mapping[str, Mapping[str, Criteria]]]) -> BenchmarkScores:
    """rubrics[project][system][scope] -> criteria. Returns per-project scores and system means."""
    return assemble_benchmark(
        (project, system, score_system_project(rubrics[project][system]))
         for project in rubrics for system in rubrics[project])


def assemble_benchmark(entries: Iterable[tuple[str, str, SystemProjectScores]]) -> BenchmarkScores:
    """Per-project scores and system means from (project, system, scores) in any order."""
    projects: dict[str, dict[str, SystemProjectScores]] = {}
    for project, system, scores in entries:
        projects.setdefault(project, {})[system] = scores
    projects = {p: dict(sorted(by_system.items())) for p, by_system in sorted(projects.items())}
    by_system: dict[str, dict[str, SystemProjectScores]] = defaultdict(dict)
    for project, by_system_scores in projects.items():
        for system, scores in by_system_scores.items():
            by_system[system][project] = scores
    systems = {system: summarise_system(items) for system, items in sorted(by_system.items())}
    return BenchmarkScores(projects, systems)
