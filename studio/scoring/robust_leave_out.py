"""Rank intervals under leaving one project, or one criterion, out (docs/robustness.md).

- Projects: P = {nothing left out} + {project j left out, for each j}; each system's mean is then
  over its remaining projects. A perturbation that leaves some system nothing to average is not
  admissible.
- Criteria: P = {nothing left out} + {criterion i of rubric r left out, for each criterion of each
  rubric the metric averages}. Rubric r is scored without i for every system: W+ loses i's weight
  if positive, a criterion that required i no longer requires it, a gate left out triggers nothing.
  A rubric left without positive weight cannot be scored (the engine refuses W+ = 0), so it is
  unavailable for every system, as a profile group without positive weight is: it leaves its
  project's process mean (the final score: the project leaves the set). A criterion whose removal
  opens a score to its missing verdicts (a gate that hid them, say) gives that score's range over
  their completions, each end counted against the other systems' opposite ends.

Each perturbation is enumerated. The scores of a rubric without criterion i are found for every i
and system at once in numpy where i has no dependant and the result is known; the engine scores
the rest (a criterion others require, a score left open). Means are compared in floating point and,
where the difference is within ranking.TOLERANCE of 0, again in exact fractions.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np

from studio.scoring.engine import RubricColumns, score_rubric
from studio.scoring.rank_intervals import PairOrder
from studio.scoring.ranking import TOLERANCE, Ranking, exact_score


def leave_project_out(ranking: Ranking) -> PairOrder:
    """Every project left out in turn (and none), each system's mean over the rest, exactly."""
    systems = ranking.systems
    project_score = {(s, p): sum((ranking.score(s, i) for i in ranking.members[p]), Fraction(0))
                     / len(ranking.members[p]) for s in systems for p in ranking.projects_of(s)}
    perturbations: list[tuple[str, dict[str, Fraction]]] = [("nothing left out", dict(ranking.means))]
    for left in ranking.projects:
        kept = {s: [p for p in ranking.projects_of(s) if p != left] for s in systems}
        if not all(kept.values()):
            continue  # some system would have nothing to average
        perturbations.append((f"{left} left out", {s: sum((project_score[(s, p)] for p in kept[s]), Fraction(0))
                                                   / len(kept[s]) for s in systems}))
    some: set[tuple[str, str]] = set()
    every = set(ranking.pairs())
    witness: dict[tuple[str, str], str] = {}
    for label, means in perturbations:
        for t, s in ranking.pairs():
            if means[t] > means[s]:
                if (t, s) not in some and ranking.means[t] <= ranking.means[s]:
                    witness[(t, s)] = label
                some.add((t, s))
            else:
                every.discard((t, s))
    return PairOrder("leave a project out", systems, frozenset(some), frozenset(every), len(perturbations), witness)


class _Left:
    """Every criterion of one rubric left out in turn: for each (criterion, system), the integer
    credits g_lo, g_hi (clipped; 0 under a gate) of the score's range, over W+ without the criterion."""

    def __init__(self, ranking: Ranking, index: int):
        rubric = ranking.rubrics[index]
        systems = ranking.systems
        n = len(rubric.ids)
        weights = np.array(rubric.weights, dtype=np.int64)
        gates = np.array(rubric.gates, dtype=bool)
        self.positive = rubric.positive - np.maximum(weights, 0)  # W+ without each criterion
        self.dropped = self.positive <= 0
        required = {cid for needed in rubric.requires for cid in needed}
        dependants = np.array([cid in required for cid in rubric.ids], dtype=bool)
        effective = [ranking.nominal[(s, index)].effective for s in systems]
        passed = np.array([[h is True for h in hs] for hs in effective], dtype=bool).reshape(len(systems), n)
        unknown = np.array([[h is None for h in hs] for hs in effective], dtype=bool).reshape(len(systems), n)
        credit = (passed * weights).sum(axis=1, keepdims=True) - passed * weights  # [system, left out]
        triggered = ((passed & gates).sum(axis=1, keepdims=True) - (passed & gates)) > 0
        still_open = (unknown.sum(axis=1, keepdims=True) - unknown) > 0
        bound = np.maximum(self.positive, 1)
        g = np.where(triggered, 0, np.clip(credit, 0, bound))
        self.low, self.high = g.T.copy(), g.T.copy()  # [left out, system]
        self.exact = True
        slow = (dependants[None, :] | (~triggered & still_open)) & ~self.dropped[None, :]
        for j, i in zip(*np.nonzero(slow), strict=True):
            system = systems[j]
            result = score_rubric(_without(rubric.columns(system), int(i)))
            w = int(self.positive[i])
            self.low[i, j] = round(exact_score(result.low, w) * w / 100)
            self.high[i, j] = round(exact_score(result.high, w) * w / 100)
            self.exact &= result.bounds is None or result.bounds.exact


def _without(columns: RubricColumns, i: int) -> RubricColumns:
    """The rubric without criterion i; whatever required it no longer does."""
    cid = columns.ids[i]

    def drop(values: tuple) -> tuple:
        return values[:i] + values[i + 1:]

    requires = tuple(tuple(r for r in needed if r != cid) for needed in drop(columns.requires))
    return RubricColumns(drop(columns.ids), drop(columns.weights), drop(columns.targets), drop(columns.dimensions),
                         drop(columns.verdicts), drop(columns.gates), requires)


def leave_criterion_out(ranking: Ranking) -> PairOrder:
    """Every criterion of every rubric of the metric left out in turn (and none)."""
    systems = ranking.systems
    nominal = np.array([float(ranking.means[s]) for s in systems])
    rubric_score = {(s, i): float(ranking.score(s, i)) for s in systems for i in ranking.rubrics_of(s)}
    project_sum = {(s, p): sum(rubric_score[(s, i)] for i in ranking.members[p])
                   for s in systems for p in ranking.projects_of(s)}
    labels: list[tuple[int, int]] = []  # (rubric index, criterion index)
    lows, highs = [nominal[None, :]], [nominal[None, :]]
    lefts: dict[int, _Left] = {}
    exact = True
    for index, rubric in enumerate(ranking.rubrics):
        left = lefts[index] = _Left(ranking, index)
        exact &= left.exact
        project, k = rubric.project, len(ranking.members[rubric.project])
        n_crit = len(rubric.ids)
        low, high = np.tile(nominal, (n_crit, 1)), np.tile(nominal, (n_crit, 1))
        admissible = np.ones(n_crit, dtype=bool)
        for j, s in enumerate(systems):
            averaged = ranking.projects_of(s)
            if project not in averaged:
                continue
            n = len(averaged)
            total = nominal[j] * n  # the sum of its project scores
            rest = project_sum[(s, project)] - rubric_score[(s, index)]
            for ends, g in ((low, left.low[:, j]), (high, left.high[:, j])):
                with np.errstate(divide="ignore", invalid="ignore"):
                    new = 100.0 * g / np.maximum(left.positive, 1)
                    kept = np.where(left.dropped, rest / max(k - 1, 1), (rest + new) / k)
                    mean = (total - project_sum[(s, project)] / k + kept) / n
                    if k == 1:  # the project leaves the system's mean where its only rubric is dropped
                        mean = np.where(left.dropped, (total - project_sum[(s, project)]) / max(n - 1, 1), mean)
                ends[:, j] = mean
            if k == 1 and n == 1:
                admissible &= ~left.dropped
        keep = np.flatnonzero(admissible)
        lows.append(low[keep])
        highs.append(high[keep])
        labels += [(index, int(i)) for i in keep]
    low, high = np.vstack(lows), np.vstack(highs)

    exact_sum = {(s, p): sum((ranking.score(s, i) for i in ranking.members[p]), Fraction(0))
                 for s in systems for p in ranking.projects_of(s)}
    exact_total = {s: sum((exact_sum[(s, p)] / len(ranking.members[p]) for p in ranking.projects_of(s)), Fraction(0))
                   for s in systems}

    @cache
    def exact_mean(row: int, j: int, end: str) -> Fraction:
        """The same mean as the float one, in fractions: only the changed project's score moves."""
        s = systems[j]
        if row == 0:
            return ranking.means[s]
        index, i = labels[row - 1]
        project = ranking.rubrics[index].project
        averaged = ranking.projects_of(s)
        if project not in averaged:
            return ranking.means[s]
        left = lefts[index]
        n, k = len(averaged), len(ranking.members[project])
        rest = exact_sum[(s, project)] - ranking.score(s, index)
        others = exact_total[s] - exact_sum[(s, project)] / k
        if not left.dropped[i]:
            g = int((left.low if end == "low" else left.high)[i, j])
            return (others + (rest + Fraction(100 * g, int(left.positive[i]))) / k) / n
        if k > 1:
            return (others + rest / (k - 1)) / n
        return others / (n - 1)

    def rows(label_row: int) -> str:
        if label_row == 0:
            return "nothing left out"
        index, i = labels[label_row - 1]
        rubric = ranking.rubrics[index]
        return f"{rubric.project}/{rubric.scope}/{rubric.ids[i]} left out"

    order = _decide(ranking, low, high, exact_mean, rows, "leave a criterion out")
    return PairOrder(order.kind, order.systems, order.above_some, order.above_every, len(low), order.witness, exact,
                     None if exact else "a score's range over its missing verdicts is an outer bound somewhere "
                                        "(bounds.BRANCH_LIMIT)")


def _decide(ranking: Ranking, low: np.ndarray, high: np.ndarray, exact_mean, label, kind: str) -> PairOrder:
    """The pair order from each perturbation's range [low, high] of every system's mean
    (rows: perturbations, row 0 the nominal one; columns: systems); floats decide beyond the
    tolerance, `exact_mean(row, column, 'low'|'high')` within it."""
    systems = ranking.systems
    some: set[tuple[str, str]] = set()
    every: set[tuple[str, str]] = set()
    witness: dict[tuple[str, str], str] = {}
    for a, t in enumerate(systems):
        for b, s in enumerate(systems):
            if a == b:
                continue
            most = high[:, a] - low[:, b]  # T's best against S's worst
            rising = np.flatnonzero(most > TOLERANCE)
            if not len(rising):
                close = np.flatnonzero(np.abs(most) <= TOLERANCE)
                rising = np.array([r for r in close if exact_mean(r, a, "high") > exact_mean(r, b, "low")], dtype=int)
            if len(rising):
                some.add((t, s))
                if ranking.means[t] <= ranking.means[s]:
                    witness[(t, s)] = label(int(rising[0]))
            least = low[:, a] - high[:, b]
            if (least < -TOLERANCE).any():
                continue
            close = np.flatnonzero(np.abs(least) <= TOLERANCE)
            if all(exact_mean(r, a, "low") > exact_mean(r, b, "high") for r in close):
                every.add((t, s))
    return PairOrder(kind, systems, frozenset(some), frozenset(every), len(low), witness)
