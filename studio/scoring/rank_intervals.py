"""Rank intervals by the pairwise construction, from which pairs of systems can change order.

A system's rank is 1 + the number of systems with a strictly higher mean. Under a set P of
admissible perturbations (a project left out, weights moved, verdicts flipped ...), the rank
interval of S is

    [1 + #{T : T above S under every p in P},  1 + #{T : T above S under some p in P}]

each pair asked on its own. It is not the set of ranks one perturbation reaches: two systems
that can each pass S, but only under different perturbations, both count at the worst end.

This module holds only that construction and its record, `PairOrder`, with no scoring in it: any
analysis that can answer, for each ordered pair, "can T be above S under some p?" and "is T above
S under every p?" gets its intervals here. `order_from_differences` answers both from the range
[low, high] of mean_T - mean_S over P, which is how per-pair score ranges (the robustness
analyses of robust_*.py, or an edit's impact on the scores) turn into ranks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

Number = int | float | Fraction
Pair = tuple[str, str]  # (T, S): T above S


class RankInterval(NamedTuple):
    best: int  # 1 + the systems above it under every perturbation
    worst: int  # 1 + the systems above it under some perturbation

    def text(self) -> str:
        return str(self.best) if self.best == self.worst else f"{self.best}–{self.worst}"


def ranks(means: Mapping[str, Number]) -> dict[str, int]:
    """1 + the number of systems with a strictly higher mean (tied systems share a rank)."""
    return {s: 1 + sum(1 for t, other in means.items() if t != s and other > mean) for s, mean in means.items()}


@dataclass(frozen=True)
class PairOrder:
    """For each ordered pair (T, S) of systems, whether T can be above S under some admissible
    perturbation and whether it is above S under every one; `witness` names a perturbation that
    puts T above S where the nominal means do not."""

    kind: str
    systems: tuple[str, ...]
    above_some: frozenset[Pair]
    above_every: frozenset[Pair]
    perturbations: int | None = None  # how many perturbations were enumerated (None: a continuum or a budget)
    witness: Mapping[Pair, str] = field(default_factory=dict)
    exact: bool = True  # False: a bound stood in where the exact search was too large (`note` says where)
    note: str | None = None

    def intervals(self) -> dict[str, RankInterval]:
        return {s: RankInterval(1 + sum((t, s) in self.above_every for t in self.systems if t != s),
                                1 + sum((t, s) in self.above_some for t in self.systems if t != s))
                for s in self.systems}

    def swaps(self, nominal: Mapping[str, Number]) -> list[tuple[str, str, str | None]]:
        """(rising, over, witness): T can rise above S although its nominal mean is not higher, for the
        pairs whose order can change (a nominal tie listed in each direction that can open)."""
        out = []
        for i, a in enumerate(self.systems):
            for b in self.systems[i + 1:]:
                high, low = (a, b) if nominal[a] >= nominal[b] else (b, a)
                directions = [(low, high)] + ([(high, low)] if nominal[a] == nominal[b] else [])
                out += [(t, s, self.witness.get((t, s))) for t, s in directions if (t, s) in self.above_some]
        return out

def order_from_differences(kind: str, systems: Sequence[str], differences: Mapping[Pair, tuple[Number, Number]],
                           **extra: object) -> PairOrder:
    """The pair order from the range [low, high] of mean_T - mean_S over the perturbations, for
    every ordered pair (T, S): T can be above S when high > 0, is above under every one when low > 0.
    The numbers are compared as given: pass Fractions (or integers) where a float's rounding could
    decide a tie."""
    some = frozenset(pair for pair, (_, high) in differences.items() if high > 0)
    every = frozenset(pair for pair, (low, _) in differences.items() if low > 0)
    return PairOrder(kind, tuple(systems), some, every, **extra)  # type: ignore[arg-type]
