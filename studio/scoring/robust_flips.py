"""Rank intervals under judge error within a measured budget (docs/robustness.md).

Each system's verdicts that are the judge's alone may be wrong, up to a budget: at most `to_fail` of
its judge passes may really be fails and at most `to_pass` of its judge fails passes (the budget
comes from the expert sample: studio/benchmark/robustness.py). Verdicts the people gave or
adjudicated stay as they are; a missing verdict may be either (as in bounds.py). The systems'
verdicts are independent, so T can be above S under some admissible flips exactly when the highest
mean T's budget allows exceeds the lowest S's allows; T is above S under every one when T's lowest
exceeds S's highest.

A system's highest mean is a knapsack over its rubrics with two budgets, solved exactly:

- per rubric, a table g[k+, k-] of the best clipped credit (0 under a gate) using at most k+ pass->fail
  and k- fail->pass flips. Criteria tied by `requires` form groups; a group's verdicts are tried in
  every combination (2^m, m its judged and missing verdicts, at most GROUP_LIMIT); a criterion on
  its own is a gain of its weight, so its best flips are the largest weights first (a triggered
  gate must be flipped first at the high end; any gate that can be turned on gives 0 at the low
  end). Groups and lone criteria combine by max-plus convolution of their tables;
- over rubrics, the same convolution of c(s, r) * 100 * g / W+ (ranking.py), up to the budget.

Each convolution takes only the cells of a table that improve on both neighbours (fewer budget,
same value). The values are floats first; where a pair's difference is within ranking.TOLERANCE
of 0 the tables are convolved again in exact integers (scaled by a common denominator).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cached_property
from typing import NamedTuple

import numpy as np

from studio.scoring.rank_intervals import PairOrder
from studio.scoring.ranking import TOLERANCE, RankedRubric, Ranking, RankingError

GROUP_LIMIT = 16  # judged or missing verdicts in one group of criteria tied by `requires`
_NONE = -(1 << 40)  # no state at this cost (below any credit)


class FlipBudget(NamedTuple):
    to_fail: int  # the judge's passes that may be fails
    to_pass: int  # the judge's fails that may be passes


def judged_counts(ranking: Ranking, system: str) -> tuple[int, int]:
    """(passes, fails) the judge alone gave `system` over the rubrics its mean averages."""
    passes = fails = 0
    for i in ranking.rubrics_of(system):
        rubric = ranking.rubrics[i]
        for verdict, judged in zip(rubric.verdicts[system], rubric.judged_of(system), strict=True):
            if judged and verdict is not None:
                passes += verdict
                fails += not verdict
    return passes, fails


def budgets(ranking: Ranking, false_pass: Fraction, false_fail: Fraction) -> dict[str, FlipBudget]:
    """ceil(false-pass rate x its judge passes), ceil(false-fail rate x its judge fails), per system."""
    out = {}
    for system in ranking.systems:
        passes, fails = judged_counts(ranking, system)
        out[system] = FlipBudget(math.ceil(Fraction(false_pass) * passes), math.ceil(Fraction(false_fail) * fails))
    return out


def _max_plus(acc: np.ndarray, table: np.ndarray, cap: tuple[int, int], none: object) -> np.ndarray:
    """out[k] = max over a + t <= k of acc[a] + table[t], for k up to `cap` (both "at most" tables)."""
    shape = (min(acc.shape[0] + table.shape[0] - 1, cap[0] + 1), min(acc.shape[1] + table.shape[1] - 1, cap[1] + 1))
    out = np.full(shape, none, dtype=acc.dtype)
    improves = np.ones(table.shape, dtype=bool)
    improves[1:, :] &= table[1:, :] > table[:-1, :]
    improves[:, 1:] &= table[:, 1:] > table[:, :-1]
    improves[0, 0] = True
    for i, j in zip(*np.nonzero(improves), strict=True):
        rows, cols = min(acc.shape[0], shape[0] - i), min(acc.shape[1], shape[1] - j)
        if rows <= 0 or cols <= 0:
            continue
        window = out[i:i + rows, j:j + cols]
        np.maximum(window, acc[:rows, :cols] + table[i, j], out=window)
    np.maximum.accumulate(out, axis=0, out=out)
    np.maximum.accumulate(out, axis=1, out=out)
    return out


class _Structure:
    """A rubric's `requires` closures and its groups (criteria linked by `requires`)."""

    def __init__(self, rubric: RankedRubric):
        position: dict[str, int] = {}
        for i, cid in enumerate(rubric.ids):
            position.setdefault(cid, i)
        needed = [[position[r] for r in rs] for rs in rubric.requires]
        parent = list(range(len(rubric.ids)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for i, rs in enumerate(needed):
            for j in rs:
                parent[find(i)] = find(j)
        groups: dict[int, list[int]] = {}
        for i in range(len(rubric.ids)):
            groups.setdefault(find(i), []).append(i)
        self.alone = [g[0] for g in groups.values() if len(g) == 1]
        self.groups = [g for g in groups.values() if len(g) > 1]
        closure: dict[int, frozenset[int]] = {}
        for root in range(len(rubric.ids)):
            stack = [root]
            while stack:
                i = stack[-1]
                waiting = [j for j in needed[i] if j not in closure and j != i]
                if waiting:
                    stack.extend(waiting)
                    continue
                stack.pop()
                closure[i] = frozenset({i}).union(*(closure[j] for j in needed[i] if j != i))
        self.closure = closure


def _group_tables(rubric: RankedRubric, system: str, members: list[int], closure: dict[int, frozenset[int]],
                  high: bool, cap: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A group's best credit without a triggered gate at each cost (at most k+, k-; _NONE where no
    combination fits; at the low end the negated lowest credit) and where a gate can be triggered."""
    verdicts, judged = rubric.verdicts[system], rubric.judged_of(system)
    free = [i for i in members if verdicts[i] is None or judged[i]]
    if len(free) > GROUP_LIMIT:
        raise RankingError(f"{rubric.project}/{rubric.scope}: {len(free)} judged or missing verdicts tied by `requires` "
                           f"in one group ({GROUP_LIMIT} at most are tried in every combination)")
    column = {i: c for c, i in enumerate(free)}
    combos = ((np.arange(1 << len(free))[:, None] >> np.arange(len(free))[None, :]) & 1).astype(bool)
    value = {i: (np.full(len(combos), bool(verdicts[i])) if i not in column else combos[:, column[i]]) for i in members}
    credit = np.zeros(len(combos), dtype=np.int64)
    triggered = np.zeros(len(combos), dtype=bool)
    for i in members:
        h = np.logical_and.reduce([value[m] for m in closure[i]])
        if rubric.gates[i]:
            triggered |= h
        else:
            credit += rubric.weights[i] * h
    to_fail = np.zeros(len(combos), dtype=np.int64)
    to_pass = np.zeros(len(combos), dtype=np.int64)
    for i in free:
        if judged[i] and verdicts[i] is not None:
            if verdicts[i]:
                to_fail += ~value[i]
            else:
                to_pass += value[i]
    shape = (min(int(to_fail.max(initial=0)), cap[0]) + 1, min(int(to_pass.max(initial=0)), cap[1]) + 1)
    fits = (to_fail < shape[0]) & (to_pass < shape[1])
    best = np.full(shape, _NONE, dtype=np.int64)
    quiet = fits & ~triggered
    np.maximum.at(best, (to_fail[quiet], to_pass[quiet]), credit[quiet] if high else -credit[quiet])
    reach = np.zeros(shape, dtype=bool)
    reach[to_fail[fits & triggered], to_pass[fits & triggered]] = True
    for table in (best, reach):
        np.maximum.accumulate(table, axis=0, out=table)
        np.maximum.accumulate(table, axis=1, out=table)
    return best, reach


def rubric_table(rubric: RankedRubric, system: str, high: bool, cap: tuple[int, int],
                 structure: _Structure | None = None) -> np.ndarray:
    """g[k+, k-]: the highest (`high`) or lowest clipped credit of the rubric (0 under a gate) with at
    most k+ of the system's judge passes made fails and k- of its judge fails made passes, every
    missing verdict chosen freely; up to `cap`, or as far as more flips can change anything."""
    structure = structure or _Structure(rubric)
    weights, gates = rubric.weights, rubric.gates
    verdicts, judged = rubric.verdicts[system], rubric.judged_of(system)
    base, forced, blocked = 0, 0, False
    trigger_at: int | None = None  # at the low end: the fail->pass flips that turn a lone gate on
    gains: tuple[list[int], list[int]] = ([], [])  # by pass->fail, by fail->pass flips (at the low end: losses)
    for i in structure.alone:
        v, w = verdicts[i], weights[i]
        if gates[i]:
            if high and v is True:  # it must be turned off: a flip if it is the judge's, else never
                forced += judged[i]
                blocked |= not judged[i]
            elif not high and v is not False:  # on already, or missing (free)
                trigger_at = 0
            elif not high and judged[i]:
                trigger_at = 1 if trigger_at is None else trigger_at
            continue
        if v is None:
            base += max(w, 0) if high else min(w, 0)
            continue
        base += w if v else 0
        if judged[i] and v and (w < 0 if high else w > 0):
            gains[0].append(abs(w))
        elif judged[i] and not v and (w > 0 if high else w < 0):
            gains[1].append(abs(w))
    for kind in gains:
        kind.sort(reverse=True)
    prefix = [np.concatenate([[0], np.cumsum(kind, dtype=np.int64)]).astype(np.int64) for kind in gains]
    shape = (min(cap[0], forced + len(gains[0])) + 1, min(cap[1], max(len(gains[1]), trigger_at or 0)) + 1)
    k_fail = np.arange(shape[0])[:, None]
    k_pass = np.arange(shape[1])[None, :]
    gained = prefix[0][np.clip(k_fail - forced, 0, len(gains[0]))] + prefix[1][np.minimum(k_pass, len(gains[1]))]
    # the low end is kept negated (the lowest credit is minus the highest of the negated), so that
    # one max-plus convolution serves both ends
    credit = (base + gained) if high else (gained - base)
    credit = np.where((k_fail >= forced) & (not blocked), credit, _NONE).astype(np.int64)
    reach = np.zeros(shape, dtype=bool)
    if not high and trigger_at is not None:
        reach = np.broadcast_to(k_pass >= trigger_at, shape).copy()
    for members in structure.groups:
        best, group_reach = _group_tables(rubric, system, members, structure.closure, high, cap)
        credit = _max_plus(credit, best, cap, _NONE)
        reach = _either(reach, group_reach)
    shape = (max(credit.shape[0], reach.shape[0]), max(credit.shape[1], reach.shape[1]))
    credit, reach = _extend(credit, shape), _extend(reach, shape)
    positive = rubric.positive
    if high:
        return np.where(credit <= _NONE // 2, 0, np.clip(credit, 0, positive))
    return np.where(reach | (credit <= _NONE // 2), 0, np.clip(-credit, 0, positive))


def _extend(table: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """An "at most" table read at every cost up to `shape` (beyond its own size it stays as at its edge)."""
    rows = np.minimum(np.arange(shape[0]), table.shape[0] - 1)
    cols = np.minimum(np.arange(shape[1]), table.shape[1] - 1)
    return table[np.ix_(rows, cols)]


def _either(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where either part can turn a gate on (the other left as it is, at no cost): one is enough."""
    shape = (max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1]))
    return _extend(a, shape) | _extend(b, shape)


class FlipExtremes:
    """One system's lowest and highest mean over every admissible set of flips."""

    def __init__(self, ranking: Ranking, system: str, budget: FlipBudget):
        self.ranking, self.system, self.budget = ranking, system, budget
        self.cap = (budget.to_fail, budget.to_pass)
        self.rubrics = ranking.rubrics_of(system)
        tables = {}
        for i in self.rubrics:
            structure = _Structure(ranking.rubrics[i])
            for high in (True, False):
                tables[(i, high)] = rubric_table(ranking.rubrics[i], system, high, self.cap, structure)
        self.tables = tables

    def _mean(self, high: bool, exact: bool) -> float | Fraction:
        ranking, system = self.ranking, self.system
        if exact:
            scale = math.lcm(*(ranking.rubrics[i].positive * len(ranking.members[ranking.rubrics[i].project])
                               for i in self.rubrics)) * len(ranking.projects_of(system))
        acc = np.zeros((1, 1), dtype=object if exact else np.float64)
        sign = 1 if high else -1
        for i in self.rubrics:
            g = self.tables[(i, high)]
            positive = ranking.rubrics[i].positive
            coefficient = ranking.coefficient(system, i)
            if exact:
                factor = int(coefficient * 100 * scale / positive)
                values = np.array([[sign * int(x) * factor for x in row] for row in g], dtype=object).reshape(g.shape)
            else:
                values = sign * float(coefficient) * 100.0 * g / positive
            acc = _max_plus(acc, values, self.cap, -math.inf)
        best = acc[-1, -1]
        return Fraction(sign * best, scale) if exact else float(sign * best)

    @cached_property
    def high(self) -> float:
        return self._mean(True, False)  # type: ignore[return-value]

    @cached_property
    def low(self) -> float:
        return self._mean(False, False)  # type: ignore[return-value]

    @cached_property
    def exact_high(self) -> Fraction:
        return self._mean(True, True)  # type: ignore[return-value]

    @cached_property
    def exact_low(self) -> Fraction:
        return self._mean(False, True)  # type: ignore[return-value]


def judge_error(ranking: Ranking, budget: dict[str, FlipBudget]) -> PairOrder:
    """For every ordered pair (T, S): T above S under some flips within the budgets, under every one."""
    extremes = {s: FlipExtremes(ranking, s, budget[s]) for s in ranking.systems}

    def above(t: FlipExtremes, s: FlipExtremes, best: bool) -> bool:
        difference = (t.high - s.low) if best else (t.low - s.high)
        if abs(difference) > TOLERANCE:
            return difference > 0
        return (t.exact_high - s.exact_low if best else t.exact_low - s.exact_high) > 0

    pairs = ranking.pairs()
    some = frozenset((t, s) for t, s in pairs if above(extremes[t], extremes[s], True))
    every = frozenset((t, s) for t, s in pairs if above(extremes[t], extremes[s], False))
    # no witness: a pair that swaps always does at T's highest and S's lowest
    return PairOrder("judge error", ranking.systems, some, every)
