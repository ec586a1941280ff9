"""The double-coding plan: the decisions every named expert judges, so that the 95% Wilson interval of
their percent agreement (studio.agreement.coefficients.wilson) reaches a width the user sets.

For n decisions at agreement p the interval's width is

    w(n, p) = 2 z sqrt(p (1 - p) / n + z^2 / (4 n^2)) / (1 + z^2 / n),   z = 1.95996 (95%)

(narrower where it is clipped to [0, 1]); the plan needs the least n with w(n, p) <= W. p is the
expected agreement until some planned decisions are double-coded, then the agreement observed on them.
The decisions are drawn with a recorded seed, stratified by scope: every judged scope gets at least one,
the rest in proportion to its decisions, and within a scope the criteria come round before one repeats."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.agreement.coefficients import wilson
from studio.judging.errors import JudgingError
from studio.judging.review_files import read_model, write
from studio.model.review_work import DecisionRef, DoubleCodingPlan
from studio.store import layout

if TYPE_CHECKING:
    from studio.judging.decisions import DecisionKey
    from studio.judging.queue import Decision, ReviewQueue

DEFAULT_EXPECTED = 0.85
HEADER = ("Double-coding plan (dbstudio plan): every rater below judges every decision below; "
          "drawn with the seed below, stratified by scope.")
_MOST = 1 << 24  # beyond any review; a width no n reaches stops here


def plan_path(root: Path) -> Path:
    return Path(root) / layout.DOUBLE_CODING_FILE


def interval_width(n: int, agreement: float) -> float:
    """The width of the 95% Wilson interval of a percent agreement `agreement` over n decisions."""
    bounds = wilson(agreement * n, n)
    return 1.0 if bounds is None else bounds[1] - bounds[0]


def needed(width: float, agreement: float) -> int:
    """The least n whose Wilson interval at `agreement` is at most `width` wide (the width falls with n)."""
    check_share("width", width)
    if not 0.0 <= agreement <= 1.0:
        raise JudgingError(f"agreement {agreement}: give a share between 0 and 1")
    high = 1
    while interval_width(high, agreement) > width:
        high *= 2
        if high > _MOST:
            raise JudgingError(f"no review reaches a width of {width}: give a wider one")
    low = high // 2  # too few (or 0)
    while high - low > 1:
        middle = (low + high) // 2
        if interval_width(middle, agreement) <= width:
            high = middle
        else:
            low = middle
    return high


def check_share(name: str, value: float) -> float:
    if not 0.0 < value < 1.0:
        raise JudgingError(f"--{name} {value}: give a share strictly between 0 and 1 (for example 0.10)")
    return value


def load_plan(root: Path) -> DoubleCodingPlan | None:
    read = read_model(plan_path(root), DoubleCodingPlan)
    return None if read is None else read[0]


def save_plan(root: Path, plan: DoubleCodingPlan) -> None:
    write(plan_path(root), plan.model_dump(mode="json"), HEADER)


def draw(decisions: Sequence[Decision], count: int, seed: int, kept: Sequence[DecisionKey] = ()) -> list[DecisionKey]:
    """`count` decisions (all there are when fewer), `kept` first, drawn reproducibly for `seed`, stratified
    by scope: each scope holds at least one (when count allows), the rest shared by each scope's size."""
    rng = random.Random(seed)
    by_scope: dict[str, list[Decision]] = {}
    for decision in decisions:
        by_scope.setdefault(decision.scope, []).append(decision)
    chosen: list[DecisionKey] = [key for key in kept if any(d.key == key for d in decisions)]
    taken = set(chosen)
    left = {scope: [d for d in items if d.key not in taken] for scope, items in by_scope.items()}
    order = {scope: _spread(items, rng) for scope, items in left.items()}
    quota = _quotas({s: len(items) for s, items in by_scope.items()}, count,
                    {s: sum(1 for k in chosen if k[1] == s) for s in by_scope})
    for scope, items in order.items():
        chosen += [d.key for d in items[:quota[scope]]]
    return chosen


def _spread(items: list[Decision], rng: random.Random) -> list[Decision]:
    """The scope's decisions shuffled, then ordered so each criterion comes once before any comes again."""
    shuffled = list(items)
    rng.shuffle(shuffled)
    seen: dict[str, int] = {}
    rounds = []
    for decision in shuffled:
        rounds.append(seen.get(decision.criterion.id, 0))
        seen[decision.criterion.id] = rounds[-1] + 1
    return [d for _, _, d in sorted(zip(rounds, range(len(shuffled)), shuffled, strict=True),
                                    key=lambda t: (t[0], t[1]))]


def _quotas(sizes: dict[str, int], count: int, have: dict[str, int]) -> dict[str, int]:
    """How many more each scope gives: one each first, then by size (largest remainder), within its size."""
    total = sum(sizes.values())
    count = min(count, total)
    want = {s: 0 for s in sizes}
    if total:
        shares = {s: count * size / total for s, size in sizes.items()}
        want = {s: min(size, max(1, int(shares[s]))) if count >= len(sizes) else 0 for s, size in sizes.items()}
        for scope in sorted(sizes, key=lambda s: (-(shares[s] - int(shares[s])), s)):
            if sum(want.values()) >= count:
                break
            if want[scope] < sizes[scope]:
                want[scope] += 1
        while sum(want.values()) < count:  # a full scope left some over: give them where room is
            scope = next(s for s in sorted(sizes) if want[s] < sizes[s])
            want[scope] += 1
    return {s: max(0, want[s] - have.get(s, 0)) for s in sizes}


@dataclass(frozen=True)
class PlanStatus:
    """Where a plan stands: planned, double-coded (every rater has given), agreed, and the widths."""

    plan: DoubleCodingPlan
    planned: int
    coded: int
    agreed: int
    available: int  # decisions in the queue

    @property
    def observed(self) -> float | None:
        return self.agreed / self.coded if self.coded else None

    @property
    def agreement(self) -> float:
        """The agreement the plan sizes from: observed once decisions are double-coded, else expected."""
        observed = self.observed
        return self.plan.expected if observed is None else observed

    @property
    def width(self) -> float | None:
        bounds = wilson(self.agreed, self.coded)
        return None if bounds is None else bounds[1] - bounds[0]

    @property
    def needed(self) -> int:
        return needed(self.plan.width, self.agreement)

    @property
    def still_needed(self) -> int:
        return max(0, self.needed - self.coded)

    def as_json(self) -> dict[str, Any]:
        return {"raters": self.plan.raters, "target_width": self.plan.width, "expected": self.plan.expected,
                "seed": self.plan.seed, "planned": self.planned, "double_coded": self.coded,
                "agreed": self.agreed, "observed_agreement": self.observed, "current_width": self.width,
                "needed": self.needed, "still_needed": self.still_needed, "decisions_available": self.available}

    def lines(self) -> list[str]:
        width = "none yet" if self.width is None else f"{self.width:.3f}"
        observed = "none yet" if self.observed is None else f"{100 * self.observed:.1f}%"
        said = [f"raters: {', '.join(self.plan.raters)}; seed {self.plan.seed}",
                f"planned: {self.planned} decision(s); double-coded by all: {self.coded}; agreed: {self.agreed} "
                f"(observed {observed}, expected {100 * self.plan.expected:.1f}%)",
                f"Wilson 95% width: {width} (target {self.plan.width:.3f}); needed {self.needed}, "
                f"still needed {self.still_needed}"]
        if self.needed > self.available:
            said.append(f"the queue holds only {self.available} decision(s): judge more runs to reach the target")
        return said


def status(queue: ReviewQueue, plan: DoubleCodingPlan) -> PlanStatus:
    planned = {(ref.run, ref.scope, ref.criterion) for ref in plan.decisions}
    coded = agreed = 0
    for decision in queue.decisions:
        if decision.key not in planned:
            continue
        given = [decision.ratings[r].verdict for r in plan.raters if r in decision.ratings]
        if len(given) == len(plan.raters):
            coded += 1
            agreed += len(set(given)) == 1
    return PlanStatus(plan, len(plan.decisions), coded, agreed, len(queue.decisions))


def make_plan(queue: ReviewQueue, raters: Sequence[str], width: float, expected: float | None = None,
              seed: int | None = None) -> PlanStatus:
    """Create or update the plan: decisions already planned stay (their verdicts count), and more are drawn
    until the plan holds the number needed at the observed agreement (the expected one before any)."""
    from studio.judging.queue import check_expert

    names = [check_expert(r) for r in raters]
    if len(set(names)) < 2:
        raise JudgingError("--raters: name at least two different experts who will both judge the plan")
    check_share("width", width)
    old = load_plan(queue.root)
    expected = expected if expected is not None else old.expected if old is not None else DEFAULT_EXPECTED
    check_share("expected", expected)
    if seed is None:
        seed = old.seed if old is not None else random.SystemRandom().randrange(1 << 31)
    if seed < 0:
        raise JudgingError(f"--seed {seed}: give a whole number of 0 or more")
    kept = [(r.run, r.scope, r.criterion) for r in old.decisions] if old is not None and old.raters == names else []
    draft = DoubleCodingPlan(raters=names, width=width, expected=expected, seed=seed, needed=0,
                             decisions=[DecisionRef(run=k[0], scope=k[1], criterion=k[2]) for k in kept])
    count = status(queue, draft).needed
    keys = draw(queue.decisions, count, seed, kept)
    plan = draft.model_copy(update={"needed": count,
                                    "decisions": [DecisionRef(run=k[0], scope=k[1], criterion=k[2]) for k in keys]})
    save_plan(queue.root, plan)
    return status(queue, plan)
