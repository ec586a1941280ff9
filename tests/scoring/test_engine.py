"""Hand-computed examples for every scoring rule, and properties that must always hold."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from studio.scoring.engine import (
    ScoredCriterion as C,
)
from studio.scoring.engine import (
    ScoringError,
    score_benchmark,
    score_rubric,
    score_system_project,
    summarise_system,
)


def crit(cid, weight, verdict, target="checkpoint", dimension="correctness", gate=False, requires=()):
    return C(cid, weight, target, dimension, verdict, gate, tuple(requires))


def test_signed_weights_over_positive_total():
    # W+ = 6 + 4 = 10; credit = 6 - 3 = 3 -> 30
    result = score_rubric([crit("a", 6, True), crit("b", 4, False), crit("n", -3, True), crit("m", -5, False)])
    assert result.score == pytest.approx(30.0)
    assert result.positive_weight == 10 and not result.gate_triggered and result.missing == 0


def test_clip_at_zero_and_at_hundred():
    assert score_rubric([crit("a", 2, False), crit("n", -9, True)]).score == 0.0  # -9/2 -> clipped
    assert score_rubric([crit("a", 5, True), crit("b", 5, True)]).score == 100.0
    # Negative weights cannot push past 100 from above either: the sum never exceeds W+.
    assert score_rubric([crit("a", 5, True), crit("n", -5, False)]).score == 100.0


def test_fatal_gate_zeroes_the_score_whatever_else():
    result = score_rubric([crit("a", 10, True), crit("g", 0, True, gate=True)])
    assert result.score == 0.0 and result.gate_triggered
    untriggered = score_rubric([crit("a", 10, True), crit("g", 0, False, gate=True)])
    assert untriggered.score == 100.0 and not untriggered.gate_triggered


def test_requires_resolved_first_and_transitively():
    # c requires b, b requires a; a fails -> b and c get h = 0.
    rubric = [crit("a", 2, False), crit("b", 3, True, requires=["a"]), crit("c", 5, True, requires=["b"])]
    assert score_rubric(rubric).score == 0.0
    rubric[0] = crit("a", 2, True)
    assert score_rubric(rubric).score == 100.0
    # A negative criterion that requires another deducts only when that one holds.
    neg = [crit("a", 4, False), crit("n", -4, True, requires=["a"]), crit("p", 4, True)]
    assert score_rubric(neg).score == 50.0  # 4 / 8; the deduction does not apply


def test_missing_verdicts_are_explicit_never_zero_or_one():
    result = score_rubric([crit("a", 5, True), crit("b", 5, None)])
    assert result.score is None and result.missing == 1
    # A known failure of a required criterion decides h = 0 even if the verdict is missing.
    decided = score_rubric([crit("a", 5, False), crit("b", 5, None, requires=["a"])])
    assert decided.score == 0.0 and decided.missing == 1
    # A triggered gate decides the score whatever is missing.
    gated = score_rubric([crit("a", 5, None), crit("g", 0, True, gate=True)])
    assert gated.score == 0.0 and gated.missing == 1
    # A gate whose verdict is missing leaves the score undecided.
    assert score_rubric([crit("a", 5, True), crit("g", 0, None, gate=True)]).score is None


def test_no_positive_weight_and_cycles_are_errors():
    with pytest.raises(ScoringError, match="no positive weight"):
        score_rubric([crit("n", -3, True)])
    with pytest.raises(ScoringError, match="cycle"):
        score_rubric([crit("a", 3, True, requires=["b"]), crit("b", 3, True, requires=["a"])])


def test_profiles_by_target_and_dimension_with_unavailable_groups():
    final = [
        crit("a1", 4, True, "artifact", "correctness"),
        crit("a2", 4, False, "artifact", "completeness"),
        crit("x1", -2, True, "cross-file", "consistency"),  # no positive weight -> unavailable
        crit("p1", 2, True, "package", "usability"),
        crit("g", 0, True, "package", "completeness", gate=True),  # profiles are before gates
    ]
    scores = score_system_project({"T01": [crit("c", 1, True)], "final": final})
    assert scores.final == 0.0 and scores.gate_triggered
    assert scores.targets == {"artifact": 50.0, "cross-file": None, "package": 100.0}
    assert scores.dimensions["correctness"] == 100.0
    assert scores.dimensions["completeness"] == 0.0
    assert scores.dimensions["consistency"] is None  # only negative weight: unavailable, not 0
    assert scores.dimensions["professionalism"] is None  # no criteria at all


def test_process_is_mean_of_checkpoints_and_pass_rate_boundary_at_exactly_90():
    # 9 of 10 -> exactly 90.0 passes; 89.99... does not.
    exactly = [crit(f"c{i}", 1, i < 9) for i in range(10)]
    below = [crit(f"d{i}", 10, True) for i in range(8)] + [crit("e", 9, True), crit("f", 10, False)]
    # below: W+ = 80 + 9 + 10 = 99, credit 89 -> 89.898...
    project = score_system_project({"T01": exactly, "T02": below, "final": [crit("f1", 1, True, "artifact")]})
    assert project.checkpoints["T01"] == 90.0
    assert project.checkpoints["T02"] == pytest.approx(100 * 89 / 99)
    assert project.process == pytest.approx((90.0 + 100 * 89 / 99) / 2)
    summary = summarise_system([project])
    assert summary.pass_rate_90 == 0.5


def test_unrounded_scores_decide_the_pass_rate():
    # W+ = 100 x 10 + 1 = 1001, credit 900 -> 89.91: rounds to 90 but must not pass.
    rubric = [crit(f"w{i}", 10, i < 90) for i in range(100)] + [crit("z", 1, False)]
    project = score_system_project({"T01": rubric, "final": [crit("f", 1, True, "artifact")]})
    assert project.checkpoints["T01"] == pytest.approx(100 * 900 / 1001)
    assert round(project.checkpoints["T01"]) == 90
    assert summarise_system([project]).pass_rate_90 == 0.0


def test_benchmark_means_weight_projects_equally():
    def project(final_true: int, final_total: int, checkpoints: int):
        final = [crit(f"f{i}", 1, i < final_true, "artifact") for i in range(final_total)]
        return {f"T{j:02d}": [crit(f"T{j}c", 1, True)] for j in range(checkpoints)} | {"final": final}

    # P1 has 100 final criteria, P2 has 2: each still counts half.
    scores = score_benchmark({"P1": {"S": project(100, 100, 10)}, "P2": {"S": project(0, 2, 2)}})
    summary = scores.systems["S"]
    assert summary.final_mean == 50.0
    assert summary.process_mean == 100.0
    assert summary.gap == 50.0  # process - final
    assert summary.pass_rate_90 == 1.0 and summary.checkpoints == 12


def test_means_use_the_projects_whose_score_is_known_and_name_the_others():
    scores = score_benchmark({
        "P1": {"S": {"T01": [crit("a", 1, True)], "final": [crit("f", 1, None, "artifact")]}},
        "P2": {"S": {"T01": [crit("a", 1, True)], "final": [crit("f", 1, True, "artifact"),
                                                            crit("g", 1, False, "artifact")]}},
    })
    assert scores.projects["P1"]["S"].final is None
    assert scores.projects["P1"]["S"].final_range == (0.0, 100.0)
    summary = scores.systems["S"]
    assert summary.final_mean == 50.0 and summary.final_left_out == ("P1",)  # P2 alone
    assert summary.process_mean == 100.0 and summary.process_left_out == ()
    assert summary.gap == 50.0  # over P2, the one project where both are known
    assert scores.missing == 1 and summary.missing == 1


# -- properties ---------------------------------------------------------------------------

weights = st.integers(min_value=-10, max_value=10).filter(lambda w: w != 0)


@st.composite
def rubrics(draw, allow_missing=False):
    n = draw(st.integers(min_value=1, max_value=12))
    verdict = st.one_of(st.booleans(), st.none()) if allow_missing else st.booleans()
    criteria = []
    for i in range(n):
        w = draw(weights)
        # Only positive criteria carry `requires` here: a negative criterion that requires a
        # positive one deducts once that one holds, so flipping it on may rightly lower the
        # score (test_negative_criterion_requiring_another_deducts_only_once_it_holds).
        requires = (draw(st.lists(st.sampled_from([f"c{j}" for j in range(i)]), max_size=2, unique=True))
                    if i and w > 0 else [])
        criteria.append(crit(f"c{i}", w, draw(verdict), requires=requires))
    criteria.append(crit("anchor", draw(st.integers(1, 10)), draw(verdict)))  # W+ > 0
    if draw(st.booleans()):
        criteria.append(crit("gate", 0, draw(verdict), gate=True))
    return criteria


@settings(max_examples=300, deadline=None)
@given(rubrics())
def test_score_always_within_0_and_100(rubric):
    score = score_rubric(rubric).score
    assert score is not None and 0.0 <= score <= 100.0


@settings(max_examples=300, deadline=None)
@given(rubrics(), st.data())
def test_turning_a_positive_verdict_on_never_lowers_the_score(rubric, data):
    candidates = [i for i, c in enumerate(rubric) if c.weight > 0 and not c.gate and c.verdict is False]
    assume(candidates)
    i = data.draw(st.sampled_from(candidates))
    before = score_rubric(rubric).score
    flipped = list(rubric)
    c = rubric[i]
    flipped[i] = C(c.id, c.weight, c.target, c.dimension, True, c.gate, c.requires)
    assert score_rubric(flipped).score >= before


def test_negative_criterion_requiring_another_deducts_only_once_it_holds():
    rubric = [crit("p", 5, False), crit("n", -5, True, requires=["p"]), crit("q", 5, True)]
    assert score_rubric(rubric).score == 50.0
    rubric[0] = crit("p", 5, True)
    assert score_rubric(rubric).score == 50.0  # +5 for p, -5 for n: (5 - 5 + 5) / 10


@settings(max_examples=300, deadline=None)
@given(rubrics(allow_missing=True))
def test_a_triggered_gate_always_gives_zero(rubric):
    gated = [c for c in rubric if not c.gate] + [crit("g", 0, True, gate=True)]
    result = score_rubric(gated)
    assert result.score == 0.0 and result.gate_triggered


def test_profiles_ignore_a_gate_whose_verdict_is_missing():
    # Found by the batch/rubric equivalence property: a missing gate verdict once crashed the profile.
    final = [crit("g", 0, None, "artifact", gate=True), crit("a", 4, True, "artifact")]
    scores = score_system_project({"final": final})
    assert scores.final is None  # the gate decides, and its verdict is missing
    assert scores.targets["artifact"] == 100.0  # profiles are computed before gates
