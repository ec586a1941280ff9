"""Rank intervals (studio/scoring/robust_*.py): hand-checked small rankings, each interval worked out
in its comment, then the exact methods against brute force (tests/scoring/brute_ranks.py: every
perturbation enumerated and scored by the engine) on many seeded random rankings with clipping,
gates, `requires`, missing verdicts and ties."""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction
from itertools import product

import pytest

from studio.scoring.engine import effective_verdicts
from studio.scoring.rank_intervals import RankInterval, order_from_differences, ranks
from studio.scoring.ranking import RankedRubric, Ranking, RankingError
from studio.scoring.robust_flips import FlipBudget, FlipExtremes, budgets, judge_error
from studio.scoring.robust_leave_out import leave_criterion_out, leave_project_out
from studio.scoring.robust_weights import pair_extreme, weight_box, weight_range
from tests.scoring.brute_ranks import (
    brute_flip_extremes,
    brute_judge_error,
    brute_leave_criterion,
    brute_leave_project,
    brute_weights,
    ends,
    random_ranking,
)

T, F, M = True, False, None  # pass, fail, missing


def rubric(project: str, weights: tuple[int, ...], verdicts: dict[str, tuple], scope: str = "final",
           gates: tuple[bool, ...] | None = None, requires: tuple[tuple[str, ...], ...] | None = None,
           judged: dict[str, tuple[bool, ...]] | None = None) -> RankedRubric:
    n = len(weights)
    return RankedRubric(project, scope, tuple(f"c{i + 1}" for i in range(n)), weights, gates or (False,) * n,
                        requires or ((),) * n, verdicts, judged or {s: tuple(v is not None for v in vs)
                                                                     for s, vs in verdicts.items()})


def intervals(order) -> dict[str, tuple[int, int]]:  # noqa: ANN001
    return {s: tuple(i) for s, i in order.intervals().items()}


# -- hand-checked ---------------------------------------------------------------------------------
def test_leaving_a_project_out_by_hand():
    # one final rubric per project, weights 5 + 5 (W+ = 10): a score of 0, 50 or 100
    #           p1   p2   p3   mean   p1 out  p2 out  p3 out
    #   A      100    0   50     50     25      75      50
    #   B       50   50   50     50     50      50      50
    #   C        0   50    0   16.7     25       0      25
    # A above B only with p2 out, B above A only with p1 out: both 1-2. C is never above A (tied at
    # 25 with p1 out, a tie is not above) nor B, and B is above C in every case: C is 2-3.
    scores = {"A": (100, 0, 50), "B": (50, 50, 50), "C": (0, 50, 0)}
    verdicts = {0: (F, F), 50: (T, F), 100: (T, T)}
    rubrics = tuple(rubric(f"p{p + 1}", (5, 5), {s: verdicts[v[p]] for s, v in scores.items()}) for p in range(3))
    ranking = Ranking("final", ("A", "B", "C"), rubrics)
    assert ranking.means == {"A": 50, "B": 50, "C": Fraction(50, 3)}
    assert ranks(ranking.means) == {"A": 1, "B": 1, "C": 3}
    order = leave_project_out(ranking)
    assert intervals(order) == {"A": (1, 2), "B": (1, 2), "C": (2, 3)}
    assert order.perturbations == 4 and order.witness[("B", "A")] == "p1 left out"
    assert order.swaps(ranking.means) == [("B", "A", "p1 left out"), ("A", "B", "p2 left out")]


def test_leaving_a_criterion_out_by_hand_with_requires_and_a_negative():
    # c1 5, c2 5 requiring c1, c3 -5 (W+ = 10).
    #   A: c1 fail, c2 pass, c3 fail: c2 needs c1, so credit 0 -> 0
    #   B: c1 pass, c2 fail, c3 pass: 5 - 5 = 0 -> 0            tied at 0
    # c1 out: W+ 5, c2 requires nothing now: A 5 / 5 = 100, B -5 -> 0: A above B
    # c2 out: W+ 5: A 0, B (5 - 5) / 5 = 0
    # c3 out: W+ 10: A 0, B 5 / 10 = 50: B above A
    ranking = Ranking("final", ("A", "B"), (rubric("p1", (5, 5, -5), {"A": (F, T, F), "B": (T, F, T)},
                                                   requires=((), ("c1",), ())),))
    order = leave_criterion_out(ranking)
    assert ranking.means == {"A": 0, "B": 0}
    assert intervals(order) == {"A": (1, 2), "B": (1, 2)}
    assert order.witness == {("A", "B"): "p1/final/c1 left out", ("B", "A"): "p1/final/c3 left out"}
    assert order.perturbations == 4 and order.exact


def test_a_rubric_left_without_positive_weight_is_unavailable():
    # p1: c1 4 and a gate; p2: c1 2, c2 2. A: p1 100 (gate off), p2 0 -> mean 50; B: p1 0 (gate on),
    # p2 100 -> mean 50, a tie. Leaving p1's c1 out leaves p1 without positive weight: it cannot be
    # scored, so it leaves the set for both (B's gate notwithstanding) and the means are p2's: B 100
    # above A 0. Leaving p1's gate out: B 100 on p1 too, mean 100, above A. Leaving a p2 criterion out
    # changes nothing (A 0, B 100 still). A is never above B: A 1-2, B 1-1.
    p1 = rubric("p1", (4, 0), {"A": (T, F), "B": (T, T)}, gates=(False, True))
    p2 = rubric("p2", (2, 2), {"A": (F, F), "B": (T, T)})
    ranking = Ranking("final", ("A", "B"), (p1, p2))
    order = leave_criterion_out(ranking)
    assert intervals(order) == {"A": (1, 2), "B": (1, 1)}
    assert order.witness == {("B", "A"): "p1/final/c1 left out"}
    # with p1 alone, leaving c1 out leaves nothing to average: not admissible. Left: nothing out (A 100,
    # B 0) and the gate out (100 and 100, a tie): A 1-1, B 1-2
    alone = Ranking("final", ("A", "B"), (p1,))
    assert leave_criterion_out(alone).perturbations == 2
    assert intervals(leave_criterion_out(alone)) == {"A": (1, 1), "B": (1, 2)}


def test_small_weight_changes_by_hand():
    # c1 2, c2 2 (W+ 4). A passes c1, B passes c2: both 50, tied. With c1 at 3 and c2 at 1, A is 75 and
    # B 25; the other way round B is above: both 1-2.
    tied = Ranking("final", ("A", "B"), (rubric("p1", (2, 2), {"A": (T, F), "B": (F, T)}),))
    assert intervals(weight_box(tied, 1)) == {"A": (1, 2), "B": (1, 2)}
    assert intervals(weight_box(tied, 0)) == {"A": (1, 1), "B": (1, 1)}  # no change: a tie stays a tie
    # clipping: c1 2, c2 -2. A passes both: 2 - 2 = 0 -> 0; B passes neither -> 0. With c1 3 and c2 -1,
    # A is 100 * 2 / 3 = 66.7, above B, which is 0 whatever the weights; at c1 1, c2 -3 A clips to 0,
    # a tie: A is above B under some weights, not under every one. A: 1-1, B: 1-2.
    clipped = Ranking("final", ("A", "B"), (rubric("p1", (2, -2), {"A": (T, T), "B": (F, F)}),))
    assert intervals(weight_box(clipped, 1)) == {"A": (1, 1), "B": (1, 2)}
    # the largest A - B over the box is that 66.7, exactly
    assert pair_extreme((2, -2), (False, False), 1, (1, 1), (0, 0)) == Fraction(200, 3)
    assert pair_extreme((2, -2), (False, False), 1, (0, 0), (1, 1)) == 0  # B - A: never above 0


def test_weight_ranges_keep_the_sign_and_the_magnitude():
    assert weight_range(5, 1) == (4, 6) and weight_range(1, 1) == (1, 2) and weight_range(10, 2) == (8, 10)
    assert weight_range(-3, 1) == (-4, -2) and weight_range(-1, 3) == (-4, -1) and weight_range(-10, 1) == (-10, -9)


def test_judge_error_by_hand():
    # c1 5, c2 5 (W+ 10). A: both passes by the judge -> 100; B: c1 pass -> 50.
    # A may have 1 judge pass made a fail: its lowest is 50; B 1 judge fail made a pass: its highest 100.
    # So B can be above A (100 > 50); A is above B under every flip only if 50 > 100: no. 1-2 each.
    two = Ranking("final", ("A", "B"), (rubric("p1", (5, 5), {"A": (T, T), "B": (T, F)}),))
    order = judge_error(two, {"A": FlipBudget(1, 0), "B": FlipBudget(0, 1)})
    assert intervals(order) == {"A": (1, 2), "B": (1, 2)}
    # A's c1 was given by an expert: fixed. A still reaches 50 by c2; B's budget 0: B stays 50, a tie,
    # never above; A is not above B under every flip either (50 = 50): A 1-1, B 1-2
    fixed = Ranking("final", ("A", "B"), (rubric("p1", (5, 5), {"A": (T, T), "B": (T, F)},
                                                 judged={"A": (False, True), "B": (True, True)}),))
    assert intervals(judge_error(fixed, {"A": FlipBudget(1, 0), "B": FlipBudget(0, 0)})) == {"A": (1, 1), "B": (1, 2)}
    extremes = FlipExtremes(fixed, "A", FlipBudget(2, 2))
    assert (extremes.exact_low, extremes.exact_high) == (50, 100)  # the expert's pass on c1 holds
    # a gate: B's judge failed a gate; one fail made a pass turns it on: B's lowest is 0
    gated = Ranking("final", ("A", "B"), (rubric("p1", (5, 5, 0), {"A": (T, F, F), "B": (T, T, F)},
                                                 gates=(False, False, True)),))
    assert FlipExtremes(gated, "B", FlipBudget(0, 1)).exact_low == 0
    assert FlipExtremes(gated, "B", FlipBudget(1, 0)).exact_low == 50


def test_budgets_round_up_the_rate_times_the_judges_verdicts():
    # A: 3 judge passes, 1 judge fail (c4's pass is an expert's). Rates 1/4 and 1/2:
    # ceil(3 / 4) = 1 pass may be a fail, ceil(1 / 2) = 1 fail a pass
    ranking = Ranking("final", ("A",), (rubric("p1", (1, 2, 3, 4, 5), {"A": (T, T, T, F, T)},
                                               judged={"A": (True, True, True, True, False)}),))
    assert budgets(ranking, Fraction(1, 4), Fraction(1, 2)) == {"A": FlipBudget(1, 1)}
    assert budgets(ranking, Fraction(0), Fraction(0)) == {"A": FlipBudget(0, 0)}


def test_intervals_from_per_pair_difference_ranges():
    # the helper any per-pair analysis can use: [low, high] of mean_T - mean_S for every ordered pair
    differences = {("A", "B"): (Fraction(1), Fraction(3)), ("B", "A"): (Fraction(-3), Fraction(-1)),
                   ("A", "C"): (Fraction(-1), Fraction(2)), ("C", "A"): (Fraction(-2), Fraction(1)),
                   ("B", "C"): (Fraction(0), Fraction(0)), ("C", "B"): (Fraction(0), Fraction(0))}
    order = order_from_differences("edit", ("A", "B", "C"), differences)
    # A: nothing above it under every case; C can be above it: 1-2. B: A always above; C never (0 is a
    # tie): 2-2. C: A can be: 1-2... and B never: 1 + 0 = 1 best, worst 1 + 1 = 2
    assert order.intervals() == {"A": RankInterval(1, 2), "B": RankInterval(2, 2), "C": RankInterval(1, 2)}
    assert RankInterval(2, 2).text() == "2" and RankInterval(1, 3).text() == "1–3"


def test_a_ranking_refuses_an_unknown_score_it_would_average():
    with pytest.raises(RankingError, match="unknown"):
        Ranking("final", ("A",), (rubric("p1", (5, 5), {"A": (T, M)}),))
    with pytest.raises(RankingError, match="metric"):
        Ranking("total", ("A",), (rubric("p1", (5, 5), {"A": (T, T)}),))


# -- against brute force --------------------------------------------------------------------------
def tied_copy(ranking: Ranking) -> Ranking:
    """The last system given the first one's verdicts: the two tie under every perturbation."""
    first, last = ranking.systems[0], ranking.systems[-1]
    rubrics = tuple(dataclasses.replace(r, verdicts={**r.verdicts, last: r.verdicts[first]},
                                        judged={**r.judged, last: r.judged[first]}) for r in ranking.rubrics)
    return Ranking(ranking.metric, ranking.systems, rubrics, ranking.averaged)


def seeded(seed: int, max_projects: int = 3, sizes: tuple[int, int] = (3, 5)) -> Ranking:
    rng = random.Random(seed)
    kwargs = {"missing": rng.choice([0.0, 0.15, 0.4]), "requires": rng.choice([0.0, 0.5, 1.0]),
              "gates": rng.choice([0.0, 0.2, 0.4])}
    ranking = random_ranking(rng, rng.choice(["final", "process"]), rng.randint(2, 4), rng.randint(1, max_projects),
                             sizes, **kwargs)
    if rng.random() < 0.3:
        ranking = tied_copy(ranking)
    if ranking.metric == "process" and rng.random() < 0.3 and len(ranking.projects) > 1:
        # one system's mean leaves a project out (its process score unknown there, say)
        ranking = Ranking("process", ranking.systems, ranking.rubrics,
                          {ranking.systems[0]: ranking.projects[1:]})
    return ranking


@pytest.mark.parametrize("seed", range(0, 80))
def test_leaving_out_matches_brute_force(seed: int):
    ranking = seeded(seed)
    for exact, brute in ((leave_project_out, brute_leave_project), (leave_criterion_out, brute_leave_criterion)):
        order = exact(ranking)
        assert (set(order.above_some), set(order.above_every)) == brute(ranking)


@pytest.mark.parametrize("seed", range(200, 280))
def test_judge_error_extremes_match_brute_force(seed: int):
    ranking = seeded(seed)
    rng = random.Random(seed)
    budget = {s: FlipBudget(rng.randint(0, 3), rng.randint(0, 3)) for s in ranking.systems}
    for system in ranking.systems:
        extremes = FlipExtremes(ranking, system, budget[system])
        low, high = brute_flip_extremes(ranking, system, *budget[system])
        assert (extremes.exact_low, extremes.exact_high) == (low, high)
        assert extremes.low == pytest.approx(float(low), abs=1e-9) and extremes.high == pytest.approx(float(high), abs=1e-9)
    order = judge_error(ranking, budget)
    assert (set(order.above_some), set(order.above_every)) == brute_judge_error(ranking, budget)


@pytest.mark.parametrize("seed", range(400, 450))
def test_small_weight_changes_match_brute_force(seed: int):
    """Every weight vector of every rubric at once (two rubrics of up to four criteria)."""
    rng = random.Random(seed)
    delta = rng.choice([1, 1, 2])

    def vectors(ranking: Ranking) -> int:  # weight vectors to try, every rubric at once
        count = 1
        for r in ranking.rubrics:
            for w, g in zip(r.weights, r.gates, strict=True):
                low, high = weight_range(w, delta) if not g else (0, 0)
                count *= high - low + 1
        return count

    ranking = seeded(seed, max_projects=2, sizes=(3, 4))
    while len(ranking.rubrics) > 2 or vectors(ranking) > 2000:
        seed += 1000
        ranking = seeded(seed, max_projects=2, sizes=(3, 4))
    order = weight_box(ranking, delta)
    assert (set(order.above_some), set(order.above_every)) == brute_weights(ranking, delta)


@pytest.mark.parametrize("seed", range(600, 900))
def test_the_largest_weighted_difference_on_one_rubric_matches_every_weight_vector(seed: int):
    """pair_extreme on rubrics of 3-5 criteria, gates and requires included, against every integer
    weight vector within delta (0-3), with unequal coefficients as the process mean gives."""
    rng = random.Random(seed)
    ranking = seeded(seed, max_projects=1, sizes=(3, 5))
    r = ranking.rubrics[0]
    t, s = ranking.systems[0], ranking.systems[1]
    h = {x: effective_verdicts(r.columns(x)) for x in (t, s)}
    if any(None in v for v in h.values()):
        return  # open verdicts are the completions' business (the ranking tests above)
    gate_on = {x: any(v for v, g in zip(h[x], r.gates, strict=True) if g) for x in (t, s)}
    delta = rng.randint(0, 3)
    a, b = Fraction(1, rng.randint(1, 4)), Fraction(1, rng.randint(1, 4))
    box = [range(lo, hi + 1) for lo, hi in (weight_range(w, delta) if not g else (0, 0)
                                            for w, g in zip(r.weights, r.gates, strict=True))]
    expected = max(a * ends(r.columns(t, weights=w))[0] - b * ends(r.columns(s, weights=w))[0] for w in product(*box))
    given = {x: None if gate_on[x] else tuple(int(bool(v)) for v in h[x]) for x in (t, s)}
    assert pair_extreme(r.weights, r.gates, delta, given[t], given[s], a, b) == expected
