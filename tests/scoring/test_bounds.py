"""Bounds instead of blanks: the range of a score over every completion of its missing verdicts.

Hand-computed cases for each structure (a missing positive, negative or gate verdict, clipping,
`requires` tying a positive to a negative, a known pass requiring two missing ones), and a
property: on random rubrics, the range is exactly [min, max] of the scores of every completion,
enumerated here one by one.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.scoring import bounds
from studio.scoring.engine import ScoredCriterion, score_benchmark, score_rubric, score_system_project


def crit(cid: str, weight: int, verdict: bool | None, gate: bool = False, requires: tuple[str, ...] = (),
         target: str = "checkpoint") -> ScoredCriterion:
    return ScoredCriterion(cid, weight, target, "correctness", verdict, gate, requires)


def test_a_missing_positive_verdict_spans_its_weight():
    result = score_rubric([crit("a", 5, True), crit("b", 5, None)])  # W+ = 10: credit 5 or 10
    assert result.score is None and (result.low, result.high) == (50.0, 100.0)
    assert result.bounds is not None and result.bounds.exact


def test_a_missing_negative_verdict_spans_its_deduction():
    # W+ = 10; credit 6 - 3 = 3 (deducted) or 6 (not)
    result = score_rubric([crit("a", 6, True), crit("b", 4, False), crit("n", -3, None)])
    assert result.score is None and (result.low, result.high) == (30.0, 60.0)


def test_a_missing_verdict_that_clipping_hides_leaves_the_score_known():
    # credit -9 or -10 against W+ = 2: both clip to 0, so the score is known
    result = score_rubric([crit("a", 2, False), crit("n", -9, True), crit("m", -1, None)])
    assert result.score == 0.0 and result.bounds is None and result.missing == 1


def test_a_missing_gate_verdict_reaches_zero():
    result = score_rubric([crit("a", 6, True), crit("b", 4, False), crit("g", 0, None, gate=True)])
    assert result.score is None and (result.low, result.high) == (0.0, 60.0)


def test_a_gate_that_requires_a_missing_verdict():
    # g (known pass) triggers only if p holds: p = 1 gives 0, p = 0 gives 6 / 10
    result = score_rubric([crit("p", 4, None), crit("a", 6, True), crit("g", 0, True, gate=True, requires=("p",))])
    assert (result.low, result.high) == (0.0, 60.0)


def test_requires_tying_a_missing_positive_to_a_deduction():
    # p = 1: 5 - 8 + 5 = 2 -> 20; p = 0: 5 -> 50 (n is credited only when p holds)
    result = score_rubric([crit("p", 5, None), crit("n", -8, True, requires=("p",)), crit("q", 5, True)])
    assert (result.low, result.high) == (20.0, 50.0)


def test_a_known_pass_requiring_two_missing_verdicts_needs_a_branch():
    # a, b missing (3 each); n (-4) holds when both do. W+ = 3 + 3 + 4 = 10.
    # both 1: 3 + 3 - 4 + 4 = 6; one of them: 3 + 4 = 7 (the best); none: 4 (the worst).
    rubric = [crit("a", 3, None), crit("b", 3, None), crit("n", -4, True, requires=("a", "b")), crit("c", 4, True)]
    result = score_rubric(rubric)
    assert (result.low, result.high) == (40.0, 70.0) and result.bounds.exact


def test_the_process_range_is_the_mean_of_the_checkpoint_ends():
    scores = score_system_project({
        "T01": [crit("a", 5, True)],
        "T02": [crit("a", 5, True), crit("b", 5, None)],  # 50..100
        "final": [crit("f", 5, True, target="artifact"), crit("g", 3, None, target="artifact")],
    })
    assert scores.process is None and scores.process_range == (75.0, 100.0)
    assert scores.final is None and scores.final_range == pytest.approx((100 * 5 / 8, 100.0))
    known = score_system_project({"T01": [crit("a", 5, True)], "final": [crit("f", 5, False, target="artifact")]})
    assert known.process_range == (100.0, 100.0) and known.final_range == (0.0, 0.0)


def test_a_range_past_the_branch_limit_is_a_safe_outer_bound(monkeypatch: pytest.MonkeyPatch):
    rubric = [crit("a", 3, None), crit("b", 3, None), crit("n", -4, True, requires=("a", "b")), crit("c", 4, True)]
    monkeypatch.setattr(bounds, "BRANCH_LIMIT", 0)
    result = score_rubric(rubric)
    assert result.bounds is not None and not result.bounds.exact
    # every positive credited, every deduction applied: [4 - 4, 3 + 3 + 4] = [0, 100] holds [40, 70]
    assert (result.low, result.high) == (0.0, 100.0)
    project = score_benchmark({"P": {"S": {"T01": rubric}}}).projects["P"]["S"]
    assert project.range_exact is False


def test_a_large_tied_rubric_gets_an_outer_bound_holding_its_completions():
    # 100 missing +3 verdicts in a ring; each known-pass -4 deduction requires two neighbours:
    # picking the best set is a maximum independent set, which the branch budget does not cover.
    n = 100
    ring = [crit(f"p{i}", 3, None) for i in range(n)] + [
        crit(f"n{i}", -4, True, requires=(f"p{i}", f"p{(i + 1) % n}")) for i in range(n)]
    result = score_rubric(ring)
    assert result.bounds is not None and not result.bounds.exact
    samples = [[v] * n for v in (False, True)] + [[i % 2 == 0 for i in range(n)]]
    for values in samples:
        filled = [c._replace(verdict=v) for c, v in zip(ring[:n], values, strict=True)] + ring[n:]
        assert result.low <= score_rubric(filled).score <= result.high  # 0, 0 and 50


# -- the property: the range is exactly the lowest and highest score of every completion ---------

@st.composite
def rubrics(draw) -> list[ScoredCriterion]:
    n = draw(st.integers(1, 7))
    criteria = []
    for i in range(n):
        gate = draw(st.integers(0, 5)) == 0
        weight = 0 if gate else draw(st.sampled_from([1, 2, 3, 5, 10, -1, -3, -4, -10]))
        verdict = draw(st.sampled_from([True, False, None, None]))
        requires = tuple(draw(st.lists(st.sampled_from([f"c{j}" for j in range(i)]), max_size=3, unique=True))) \
            if i else ()
        criteria.append(crit(f"c{i}", weight, verdict, gate, requires))
    # W+ > 0: one positive criterion, anywhere
    at = draw(st.integers(0, n))
    criteria.insert(at, crit("anchor", draw(st.integers(1, 10)), draw(st.sampled_from([True, False, None]))))
    return criteria


def completions(rubric: list[ScoredCriterion]) -> list[float]:
    """The score of every way to fill in the missing verdicts."""
    missing = [i for i, c in enumerate(rubric) if c.verdict is None]
    scores = []
    for values in itertools.product([False, True], repeat=len(missing)):
        filled = list(rubric)
        for i, value in zip(missing, values, strict=True):
            filled[i] = filled[i]._replace(verdict=value)
        score = score_rubric(filled).score
        assert score is not None  # nothing missing: always known
        scores.append(score)
    return scores


@settings(max_examples=400, deadline=None)
@given(rubrics())
def test_the_range_is_reached_at_both_ends_by_some_completion(rubric: list[ScoredCriterion]):
    result = score_rubric(rubric)
    scores = completions(rubric)
    assert all(result.low <= s <= result.high for s in scores)  # every completion lies in the range
    assert min(scores) == result.low and max(scores) == result.high  # and both ends are reached
    if result.low == result.high:
        assert result.score == result.low and result.bounds is None
    else:
        assert result.score is None and result.bounds is not None and result.bounds.exact


@settings(max_examples=100, deadline=None)
@given(st.lists(rubrics(), min_size=1, max_size=3))
def test_the_process_range_is_reached_by_combining_checkpoint_completions(checkpoints: list[list[ScoredCriterion]]):
    scores = score_system_project({f"T{k:02d}": rubric for k, rubric in enumerate(checkpoints, start=1)})
    ends = [completions(rubric) for rubric in checkpoints]
    low = sum(min(e) for e in ends) / len(ends)
    high = sum(max(e) for e in ends) / len(ends)
    assert scores.process_range == pytest.approx((low, high), abs=1e-9)
    assert (scores.process is None) == (low != pytest.approx(high, abs=1e-9))
