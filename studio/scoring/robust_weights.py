"""Rank intervals under small weight changes (docs/robustness.md).

Every non-gate weight may move by up to +-delta, keeping its sign and a magnitude in 1..10 (an
integer, as every weight is), all at once; a criterion's weight is the same for every system, and
the rubrics move independently. Verdicts, gates and `requires` do not depend on weights, so per
rubric the effective verdicts h are fixed and

    S(w) = 100 * sum(w_i h_i) / W+(w),      W+(w) = the sum of the positive weights.

The mean difference of T and S is a sum over rubrics, each over its own weights, so its extremes are
sums of per-rubric extremes of  a * clip(S_T(w)) - b * clip(S_S(w))  (a, b: the rubric's coefficients
in T's and S's means, ranking.py). `pair_extreme` finds the largest one exactly:

1. Credit never exceeds W+ (N <= W+), so only the clip at 0 acts: clip(S) = max(0, S).
2. Group the criteria by sign and by (h_T, h_S): the function depends on the weights only through
   each group's sum, and a group's sum takes every integer between its lowest and highest (sums of
   integer ranges). Seven sums remain: X11, X10, X01, X00 (positive) and Y11, Y10, Y01 (negative).
3. Coordinate by coordinate, whatever the others: X10 (in N_T and W+, d(N_T/W+) = (W+ - N_T)/W+^2 >= 0)
   and Y10 at their highest, X01 and Y01 at their lowest; X00 (in W+ only) at one end or the other
   (the sign of the numerator decides). So the optimum has them there.
4. Left: X11 and Y11, in a rectangle, the function piecewise linear-fractional with its kinks on the
   lines N_T = 0 and N_S = 0, both X11 + Y11 = constant. On each piece the function is a ratio of
   affine functions, whose maximum over a polygon is at a vertex: a corner of the rectangle or a
   point where a kink line crosses its edge. All of them are integer points, so the maximum over
   the real box is the maximum over the integer weights too.

At most 2 x 12 candidates per rubric and pair, each evaluated exactly (integers, fractions).
A triggered gate makes the score 0 whatever the weights; a missing verdict is free: the completions
that give the extremes are tried (the dominant one where nothing missing is tied by `requires`;
every completion, up to 2^12, where it is; past that an outer bound, flagged).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import product

from studio.scoring.engine import RubricColumns, effective_verdicts
from studio.scoring.rank_intervals import PairOrder
from studio.scoring.ranking import TOLERANCE, RankedRubric, Ranking

MAX_WEIGHT = 10
MAX_DELTA = MAX_WEIGHT - 1
COMPLETION_BITS = 12  # up to 2^12 completions of a rubric's missing verdicts are tried one by one

Effective = tuple[int, ...] | None  # h as 0/1 per criterion; None: a gate triggered (the score is 0)


def weight_range(weight: int, delta: int) -> tuple[int, int]:
    """The weights a criterion may take: within delta of its own, same sign, magnitude 1..10."""
    magnitude = abs(weight)
    low, high = max(1, magnitude - delta), min(MAX_WEIGHT, magnitude + delta)
    low, high = min(low, magnitude), max(high, magnitude)  # a weight outside 1..10 keeps its own value
    return (low, high) if weight > 0 else (-high, -low)


def pair_extreme(weights: Sequence[int], gates: Sequence[bool], delta: int, h_t: Effective, h_s: Effective,
                 a: Fraction | int = 1, b: Fraction | int = 1) -> Fraction:
    """max over the weight box of a * clip(S_T(w)) - b * clip(S_S(w)), exactly (the module's method).
    h_t, h_s: effective verdicts (0/1, gates ignored), or None for a score held at 0 by a gate."""
    a = Fraction(a) if h_t is not None else Fraction(0)
    b = Fraction(b) if h_s is not None else Fraction(0)
    if not a and not b:
        return Fraction(0)
    ht = h_t if h_t is not None else (0,) * len(weights)
    hs = h_s if h_s is not None else (0,) * len(weights)
    lows: dict[str, int] = {}
    highs: dict[str, int] = {}
    for i, weight in enumerate(weights):
        if gates[i] or not weight:
            continue
        low, high = weight_range(weight, delta)
        key = ("X" if weight > 0 else "Y") + ("1" if ht[i] else "0") + ("1" if hs[i] else "0")
        lows[key] = lows.get(key, 0) + low
        highs[key] = highs.get(key, 0) + high
    x10, x01 = highs.get("X10", 0), lows.get("X01", 0)
    y10, y01 = highs.get("Y10", 0), lows.get("Y01", 0)
    x_box = (lows.get("X11", 0), highs.get("X11", 0))
    y_box = (lows.get("Y11", 0), highs.get("Y11", 0))
    k_t, k_s = x10 + y10, x01 + y01
    points = {(x, y) for x in x_box for y in y_box}
    for line in (-k_t, -k_s):  # x + y = line
        points |= {(x, line - x) for x in x_box if y_box[0] <= line - x <= y_box[1]}
        points |= {(line - y, y) for y in y_box if x_box[0] <= line - y <= x_box[1]}
    af, bf = float(a), float(b)
    found: list[tuple[float, int, int, int]] = []
    for x00 in {lows.get("X00", 0), highs.get("X00", 0)}:
        rest = x10 + x01 + x00
        for x, y in points:
            n_t, n_s, total = max(0, x + y + k_t), max(0, x + y + k_s), x + rest
            found.append(((af * n_t - bf * n_s) / total, n_t, n_s, total))
    best = max(value for value, *_ in found)
    close = [Fraction(100) * (a * n_t - b * n_s) / total for value, n_t, n_s, total in found
             if value >= best - TOLERANCE]
    return max(close)


def completions(rubric: RankedRubric, system: str, high: bool) -> tuple[list[Effective], bool]:
    """The effective verdicts to try for `system` on `rubric` at the high (or low) end: one vector where
    nothing missing matters or one completion is best for every weight, else every completion's
    (None: one that triggers a gate). The flag: False where an outer bound stands in (too many)."""
    columns = rubric.columns(system)
    h = effective_verdicts(columns)
    if any(v is True for v, g in zip(h, rubric.gates, strict=True) if g):
        return [None], True
    if None not in h:
        return [tuple(int(bool(v)) for v in h)], True
    open_rows = [i for i, v in enumerate(h) if v is None]
    tied = any(columns.requires[i] for i in open_rows)
    if not tied or sum(v is None for v in columns.verdicts) > COMPLETION_BITS:
        # each open criterion on its own verdict (or an outer bound): credit every open positive at the
        # high end and no open negative; the low end the reverse, a gate that can trigger giving 0
        if not high and any(rubric.gates[i] for i in open_rows):
            return [None], not tied
        vector = tuple(int(bool(v)) if v is not None else int((rubric.weights[i] > 0) == high)
                       for i, v in enumerate(h))
        return [vector], not tied
    missing = [i for i, v in enumerate(columns.verdicts) if v is None]
    found: set[Effective] = set()
    for values in product((False, True), repeat=len(missing)):
        verdicts = list(columns.verdicts)
        for i, value in zip(missing, values, strict=True):
            verdicts[i] = value
        filled = effective_verdicts(RubricColumns(columns.ids, columns.weights, columns.targets, columns.dimensions,
                                                  tuple(verdicts), columns.gates, columns.requires))
        if any(v for v, g in zip(filled, rubric.gates, strict=True) if g):
            found.add(None)
        else:
            found.add(tuple(int(bool(v)) for v in filled))
    if not high and None in found:
        return [None], True
    kept: list[Effective] = [v for v in found if v is not None]
    return (kept or [None]), True


def weight_box(ranking: Ranking, delta: int = 1) -> PairOrder:
    """For every ordered pair (T, S): the highest and lowest mean_T - mean_S over every weight vector
    of the box (and every completion of the missing verdicts)."""
    if not 0 <= delta <= MAX_DELTA:
        raise ValueError(f"delta is a whole number from 0 to {MAX_DELTA} (got {delta})")
    systems = ranking.systems
    exact = True
    up_float = {pair: 0.0 for pair in ranking.pairs()}
    up_parts: dict[tuple[str, str], list[Fraction]] = {pair: [] for pair in ranking.pairs()}
    for index, rubric in enumerate(ranking.rubrics):
        coefficient = {s: ranking.coefficient(s, index) for s in systems}
        if not any(coefficient.values()):
            continue
        tries = {}
        for s in systems:
            for high in (True, False):
                tries[(s, high)], fine = completions(rubric, s, high)
                exact &= fine
        for t, s in ranking.pairs():
            a, b = coefficient[t], coefficient[s]
            if not a and not b:
                continue
            value = max(pair_extreme(rubric.weights, rubric.gates, delta, h_t, h_s, a, b)
                        for h_t in tries[(t, True)] for h_s in tries[(s, False)])
            up_float[(t, s)] += float(value)
            up_parts[(t, s)].append(value)

    def positive(pair: tuple[str, str]) -> bool:
        value = up_float[pair]
        if abs(value) > TOLERANCE:
            return value > 0
        return sum(up_parts[pair], Fraction(0)) > 0

    def negative(pair: tuple[str, str]) -> bool:
        value = up_float[pair]
        if abs(value) > TOLERANCE:
            return value < 0
        return sum(up_parts[pair], Fraction(0)) < 0

    some = frozenset(pair for pair in ranking.pairs() if positive(pair))
    # T above S for every weight vector: the highest mean_S - mean_T is below 0
    every = frozenset((t, s) for t, s in ranking.pairs() if negative((s, t)))
    return PairOrder(f"weights ±{delta}", systems, some, every, None, {}, exact,
                     None if exact else "more missing verdicts tied by `requires` in one rubric than are tried one by "
                                        "one: an outer bound stands in")
