"""The range of a rubric's score over every completion of its missing verdicts.

With the verdicts fixed, h_i (credited after `requires`) is the AND of the verdicts of i and of
everything i requires, directly or not. So over the missing verdicts x_m the credit is a sum of
products,

    credit = constant + Σ_t w_t · Π_{m ∈ S_t} x_m        (S_t: the missing verdicts term t needs)

and a fatal gate g is triggered exactly when every x_m of its S_g is 1. The score is monotone in
the credit, so its range comes from the lowest and highest credit:

- **lowest**: 0 when some completion triggers a gate (a gate whose `requires` closure holds no
  known fail); otherwise the lowest credit, where no gate can trigger;
- **highest**: the highest credit over the completions that trigger no gate (every x = 0
  triggers none, so there is one).

Both are the maximum of such a sum (the lowest credit is minus the maximum of the negated
sum), found exactly by `_maximum` without trying every completion:

1. *Monotone fixing.* A missing verdict that appears only in positive terms can be set to 1
   (it never lowers the credit and no gate needs it); one that appears only in negative terms
   or gates can be set to 0. Fixing one can settle others; this repeats until nothing moves.
   Without `requires` every missing verdict is settled this way, in linear time.
2. *Independent parts.* Verdicts left (each in both a positive and a negative term or gate,
   which only `requires` makes possible) are split into groups that share no term or gate,
   and each group is maximised on its own.
3. *Branching.* In a group, the verdict in most terms is set to 0, then to 1, and each branch
   is solved again from step 1. This is exponential only in the verdicts that stay mixed
   after fixing. Past `BRANCH_LIMIT` (terms and gates looked at while branching, or `DEPTH_LIMIT` nested branches) the end sought
   is replaced by a safe bound (the highest: every open credit taken and every gate ignored;
   the lowest: every open deduction applied): the range is then an outer bound (it holds
   every completion's score, but an end may not be reached) and `exact` is False.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, repeat
from operator import is_
from typing import NamedTuple

# Work allowed per rubric (terms and gates looked at while branching) before the range falls
# back to a safe outer bound: a second or two at most. A rubric needs branching only where `requires`
# ties a missing positive criterion to a deduction or a gate; real rubrics never come near it.
BRANCH_LIMIT = 150_000
# Branches nested in one another (each sets one more verdict) before the same fallback: keeps
# the search well inside Python's recursion limit.
DEPTH_LIMIT = 200

Term = tuple[int, frozenset[int]]  # (weight, the missing verdicts it needs)


class ScoreRange(NamedTuple):
    low: float
    high: float
    exact: bool  # False: an outer bound (see the module's docstring, step 3)


class _TooHard(Exception):
    """The branch budget ran out."""


def _clip(value: float) -> float:
    return 0.0 if value < 0.0 else 100.0 if value > 100.0 else value


def score_range(ids: Sequence[str], weights: Sequence[int], verdicts: Sequence[bool | None],
                gates: Sequence[bool], requires: Sequence[tuple[str, ...]], effective: Sequence[bool | None],
                positive: int) -> ScoreRange:
    """The lowest and highest score of the rubric over every completion of its missing
    verdicts. `effective` is h after `requires` (engine.effective_verdicts): True where every
    verdict of the closure passes (a constant credit), False where one fails (never credited),
    None where the closure holds missing verdicts and no fail (a term). `requires` must be known
    and acyclic (the engine checks it first); `positive` is W+ (> 0)."""
    constant = sum(compress(weights, map(is_, effective, repeat(True))))
    open_rows = list(compress(range(len(effective)), map(is_, effective, repeat(None))))
    if not any(map(requires.__getitem__, open_rows)):
        # The usual case: each open criterion hangs on its own verdict alone, so each end takes
        # every missing credit or every missing deduction (and a missing gate can trigger).
        open_weights = [weights[i] for i in open_rows if not gates[i]]
        most = constant + sum(w for w in open_weights if w > 0)
        if any(gates[i] for i in open_rows):
            return ScoreRange(0.0, _clip(100.0 * most / positive), True)
        least = constant + sum(w for w in open_weights if w < 0)
        return ScoreRange(_clip(100.0 * least / positive), _clip(100.0 * most / positive), True)
    needs = _missing_in_closures(ids, verdicts, requires, effective, open_rows)
    terms: list[Term] = []
    gate_sets: list[frozenset[int]] = []
    for i in open_rows:
        if gates[i]:
            gate_sets.append(needs[i])
        elif weights[i]:
            terms.append((weights[i], needs[i]))
    budget = [BRANCH_LIMIT]
    exact = True
    if gate_sets:
        low_credit = None  # some completion triggers a gate: the score can be 0
    else:
        try:
            low_credit = constant - _maximum([(-w, s) for w, s in terms], [], budget)
        except _TooHard:
            low_credit, exact = constant + sum(w for w, _ in terms if w < 0), False
    try:
        high_credit = constant + _maximum(terms, gate_sets, budget)
    except _TooHard:
        high_credit, exact = constant + sum(w for w, _ in terms if w > 0), False
    low = 0.0 if low_credit is None else _clip(100.0 * low_credit / positive)
    return ScoreRange(low, _clip(100.0 * high_credit / positive), exact)


def _missing_in_closures(ids: Sequence[str], verdicts: Sequence[bool | None], requires: Sequence[tuple[str, ...]],
                         effective: Sequence[bool | None], open_rows: list[int]) -> dict[int, frozenset[int]]:
    """The missing verdicts in the `requires` closure (itself included) of each open row. A
    required criterion with h True adds nothing, and none has h False (the row would be
    closed). Depth-first with an explicit stack: chains of thousands need no recursion."""
    needs: dict[int, frozenset[int]] = {}
    position: dict[str, int] | None = None
    for root in open_rows:
        if not requires[root]:
            needs[root] = frozenset((root,))  # h None and nothing required: its own verdict is missing
            continue
        if root in needs:
            continue
        if position is None:
            position = {}
            for i, cid in enumerate(ids):
                position.setdefault(cid, i)
        stack = [root]
        while stack:
            i = stack[-1]
            required = [j for j in (position[r] for r in requires[i]) if effective[j] is None]
            waiting = [j for j in required if j not in needs]
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            found: set[int] = {i} if verdicts[i] is None else set()
            for j in required:
                found |= needs[j]
            needs[i] = frozenset(found)
    return needs


def _maximum(terms: list[Term], gates: list[frozenset[int]], budget: list[int], depth: int = 0) -> int:
    """max Σ w_t · Π_{m ∈ S_t} x_m over x ∈ {0,1}, such that no gate set is all 1."""
    total, terms, gates = _fix_monotone(terms, gates)
    for part_terms, part_gates in _parts(terms, gates):
        total += _branch(part_terms, part_gates, budget, depth)
    return total


def _fix_monotone(terms: list[Term], gates: list[frozenset[int]]) -> tuple[int, list[Term], list[frozenset[int]]]:
    """Set every verdict whose best value does not depend on the others; return the credit they
    settle and the terms and gates left (terms with the same set merged)."""
    constant = 0
    while True:
        rises: set[int] = set()
        lowers: set[int] = set()
        for weight, needed in terms:
            (rises if weight > 0 else lowers).update(needed)
        for gate in gates:
            lowers.update(gate)
        ones, zeros = rises - lowers, lowers - rises
        merged: dict[frozenset[int], int] = {}
        for weight, needed in terms:
            if needed & zeros:
                continue
            rest = needed - ones
            if rest:
                merged[rest] = merged.get(rest, 0) + weight
            else:
                constant += weight
        # A gate's verdicts are never in `ones`, so no gate becomes all 1 here.
        kept_gates = list({gate for gate in gates if not gate & zeros})
        new_terms = [(weight, needed) for needed, weight in merged.items() if weight]
        if not ones and not zeros and len(new_terms) == len(terms):
            return constant, new_terms, kept_gates
        terms, gates = new_terms, kept_gates


def _parts(terms: list[Term], gates: list[frozenset[int]]) -> list[tuple[list[Term], list[frozenset[int]]]]:
    """Split into groups of verdicts that share no term or gate (union-find)."""
    parent: dict[int, int] = {}

    def find(m: int) -> int:
        while parent.setdefault(m, m) != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    for members in [needed for _, needed in terms] + gates:
        first, *rest = members
        for m in rest:
            parent[find(m)] = find(first)
    groups: dict[int, tuple[list[Term], list[frozenset[int]]]] = {}
    for term in terms:
        groups.setdefault(find(next(iter(term[1]))), ([], []))[0].append(term)
    for gate in gates:
        groups.setdefault(find(next(iter(gate))), ([], []))[1].append(gate)
    return list(groups.values())


def _branch(terms: list[Term], gates: list[frozenset[int]], budget: list[int], depth: int) -> int:
    """The maximum of one group: branch on its most frequent verdict, solving each side anew."""
    budget[0] -= 1 + len(terms) + len(gates)
    if budget[0] < 0 or depth >= DEPTH_LIMIT:
        raise _TooHard
    counts: dict[int, int] = {}
    for members in [needed for _, needed in terms] + gates:
        for m in members:
            counts[m] = counts.get(m, 0) + 1
    pick = max(counts, key=counts.__getitem__)
    # x = 0: every term and gate holding it is off (gates satisfied).
    best = _maximum([t for t in terms if pick not in t[1]], [g for g in gates if pick not in g], budget, depth + 1)
    # x = 1: it leaves every set; a gate left empty is triggered, so that side is infeasible.
    raised_gates = [g - {pick} for g in gates]
    if all(raised_gates):
        credit = 0
        rest: list[Term] = []
        for weight, needed in terms:
            if needed == {pick}:
                credit += weight
            else:
                rest.append((weight, needed - {pick}))
        best = max(best, credit + _maximum(rest, raised_gates, budget, depth + 1))
    return best
