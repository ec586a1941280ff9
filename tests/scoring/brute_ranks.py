"""Brute force for the robustness tests: every perturbation enumerated one by one and scored by the
engine (score_rubric, whose ranges over missing verdicts bounds.py makes exact), the pairwise
questions then answered straight from the definitions of docs/robustness.md. Slow on purpose."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations, product

from studio.scoring.engine import RubricColumns, ScoringError, score_rubric
from studio.scoring.ranking import RankedRubric, Ranking, exact_score
from studio.scoring.robust_weights import weight_range


def ends(columns: RubricColumns) -> tuple[Fraction, Fraction]:
    """The exact [low, high] of a rubric's score over its missing verdicts (the engine's)."""
    result = score_rubric(columns)
    positive = sum(w for w in columns.weights if w > 0)
    return exact_score(result.low, positive), exact_score(result.high, positive)


def random_rubric(rng: random.Random, project: str, scope: str, systems: tuple[str, ...], size: int,
                  missing: float = 0.15, requires: float = 0.3, gates: float = 0.2, judged: float = 0.7) -> RankedRubric:
    """A rubric of `size` criteria with at least one positive weight; gates, requires (on earlier
    criteria only: acyclic), negatives, missing verdicts, and the judge's verdicts marked."""
    ids = tuple(f"c{i}" for i in range(size))
    while True:
        gate = tuple(rng.random() < gates for _ in ids)
        weights = tuple(0 if g else rng.choice([-1, 1]) * rng.randint(1, 10) for g in gate)
        if any(w > 0 for w in weights):
            break
    needs = tuple(tuple(sorted({f"c{j}" for j in range(i) if rng.random() < requires / max(i, 1) * 1.5}))
                  for i in range(size))
    verdicts = {s: tuple(None if rng.random() < missing else rng.random() < 0.6 for _ in ids) for s in systems}
    marks = {s: tuple(v is not None and rng.random() < judged for v in verdicts[s]) for s in systems}
    return RankedRubric(project, scope, ids, weights, gate, needs, verdicts, marks)


def random_ranking(rng: random.Random, metric: str, n_systems: int, n_projects: int, sizes: tuple[int, int] = (3, 4),
                   checkpoints: int = 2, **kwargs: float) -> Ranking:
    """A ranking whose averaged scores are known (drawn again until they are)."""
    systems = tuple(f"s{i}" for i in range(n_systems))
    while True:
        rubrics = []
        for p in range(n_projects):
            scopes = ["final"] if metric == "final" else [f"T{k + 1:02d}" for k in range(rng.randint(1, checkpoints))]
            rubrics += [random_rubric(rng, f"p{p}", scope, systems, rng.randint(*sizes), **kwargs) for scope in scopes]
        try:
            ranking = Ranking(metric, systems, tuple(rubrics))
            ranking.means  # noqa: B018 (every averaged score known)
        except (ScoringError, ValueError):
            continue
        return ranking


def mean_of(ranking: Ranking, scores: dict[tuple[str, int], Fraction], system: str,
            dropped: frozenset[int] = frozenset(), left_project: str | None = None) -> Fraction | None:
    """A system's mean from rubric scores, by the metric's definition (None: nothing to average)."""
    projects = []
    for project in ranking.projects_of(system):
        if project == left_project:
            continue
        kept = [i for i in ranking.members[project] if i not in dropped]
        if kept:
            projects.append(sum((scores[(system, i)] for i in kept), Fraction(0)) / len(kept))
    return sum(projects, Fraction(0)) / len(projects) if projects else None


def order(ranking: Ranking, perturbations: list[dict[str, tuple[Fraction, Fraction]]]) -> tuple[set, set]:
    """(some, every) from each perturbation's [low, high] of every system's mean."""
    some, every = set(), set(ranking.pairs())
    for means in perturbations:
        for t, s in ranking.pairs():
            if means[t][1] > means[s][0]:
                some.add((t, s))
            if not means[t][0] > means[s][1]:
                every.discard((t, s))
    return some, every


def brute_leave_project(ranking: Ranking) -> tuple[set, set]:
    scores = {(s, i): ranking.score(s, i) for s in ranking.systems for i in ranking.rubrics_of(s)}
    perturbations = []
    for left in [None, *ranking.projects]:
        means = {s: mean_of(ranking, scores, s, left_project=left) for s in ranking.systems}
        if all(m is not None for m in means.values()):
            perturbations.append({s: (m, m) for s, m in means.items()})
    return order(ranking, perturbations)


def without(columns: RubricColumns, i: int) -> RubricColumns:
    keep = [j for j in range(len(columns.ids)) if j != i]
    pick = lambda values: tuple(values[j] for j in keep)  # noqa: E731
    return RubricColumns(pick(columns.ids), pick(columns.weights), pick(columns.targets), pick(columns.dimensions),
                         pick(columns.verdicts), pick(columns.gates),
                         tuple(tuple(r for r in rs if r != columns.ids[i]) for rs in pick(columns.requires)))


def brute_leave_criterion(ranking: Ranking) -> tuple[set, set]:
    nominal = {s: (m, m) for s, m in ranking.means.items()}
    perturbations = [nominal]
    for index, rubric in enumerate(ranking.rubrics):
        for i in range(len(rubric.ids)):
            low = {(s, j): ranking.score(s, j) for s in ranking.systems for j in ranking.rubrics_of(s)}
            high = dict(low)
            reduced = without(rubric.columns(ranking.systems[0]), i)
            dropped: frozenset[int] = frozenset()
            if sum(w for w in reduced.weights if w > 0) == 0:
                dropped = frozenset({index})
            else:
                for s in ranking.systems:
                    if index in ranking.rubrics_of(s):
                        low[(s, index)], high[(s, index)] = ends(without(rubric.columns(s), i))
            means = {s: (mean_of(ranking, low, s, dropped), mean_of(ranking, high, s, dropped)) for s in ranking.systems}
            if all(m[0] is not None for m in means.values()):
                perturbations.append(means)
    return order(ranking, perturbations)


def brute_weights(ranking: Ranking, delta: int) -> tuple[set, set]:
    """Every weight vector of every rubric at once (keep the rubrics few and small)."""
    boxes = [[range(lo, hi + 1) for lo, hi in (weight_range(w, delta) if not g else (0, 0)
                                              for w, g in zip(r.weights, r.gates, strict=True))]
             for r in ranking.rubrics]
    per_rubric = []
    for rubric, box in zip(ranking.rubrics, boxes, strict=True):
        options = []
        for weights in product(*box):
            options.append({s: ends(rubric.columns(s, weights=tuple(weights))) for s in ranking.systems})
        per_rubric.append(options)
    perturbations = []
    for choice in product(*per_rubric):
        low = {(s, i): choice[i][s][0] for s in ranking.systems for i in ranking.rubrics_of(s)}
        high = {(s, i): choice[i][s][1] for s in ranking.systems for i in ranking.rubrics_of(s)}
        perturbations.append({s: (mean_of(ranking, low, s), mean_of(ranking, high, s)) for s in ranking.systems})
    return order(ranking, perturbations)


def flip_sets(rubrics: list[tuple[int, RankedRubric]], system: str, to_fail: int, to_pass: int):
    """Every way to flip at most to_fail of the system's judge passes and to_pass of its judge fails."""
    passes = [(i, j) for i, r in rubrics for j, (v, judged) in enumerate(zip(r.verdicts[system], r.judged_of(system),
                                                                               strict=True)) if judged and v is True]
    fails = [(i, j) for i, r in rubrics for j, (v, judged) in enumerate(zip(r.verdicts[system], r.judged_of(system),
                                                                              strict=True)) if judged and v is False]
    for a in range(min(to_fail, len(passes)) + 1):
        for down in combinations(passes, a):
            for b in range(min(to_pass, len(fails)) + 1):
                for up in combinations(fails, b):
                    yield set(down) | set(up)


def brute_flip_extremes(ranking: Ranking, system: str, to_fail: int, to_pass: int) -> tuple[Fraction, Fraction]:
    rubrics = [(i, ranking.rubrics[i]) for i in ranking.rubrics_of(system)]
    lowest = highest = None
    for flipped in flip_sets(rubrics, system, to_fail, to_pass):
        low, high = {}, {}
        for i, rubric in rubrics:
            verdicts = tuple((not v) if (i, j) in flipped else v for j, v in enumerate(rubric.verdicts[system]))
            low[(system, i)], high[(system, i)] = ends(rubric.columns(system, verdicts=verdicts))
        lo, hi = mean_of(ranking, low, system), mean_of(ranking, high, system)
        lowest = lo if lowest is None else min(lowest, lo)
        highest = hi if highest is None else max(highest, hi)
    return lowest, highest


def brute_judge_error(ranking: Ranking, budget: dict) -> tuple[set, set]:
    extremes = {s: brute_flip_extremes(ranking, s, *budget[s]) for s in ranking.systems}
    some = {(t, s) for t, s in ranking.pairs() if extremes[t][1] > extremes[s][0]}
    every = {(t, s) for t, s in ranking.pairs() if extremes[t][0] > extremes[s][1]}
    return some, every
