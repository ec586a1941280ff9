"""The agreement headline pooled over decisions (issue 21): with more than two raters the mean over
rater pairs weighs a rater with three verdicts as much as one with hundreds, so three verdicts of a
new rater moved it from 93.7% to 57.9% while AC1 rose. The headline pools every judge-expert
decision pair; the per-pair mean stays, named as such.

Twenty decisions: the judge passes all; E1 rates all twenty and fails only the last (19 of 20
agree with the judge); E2 rates the first three: pass, fail, fail (1 of 3 with the judge, 1 of 3
with E1).
    mean over the three pairs  (95 + 33.33 + 33.33) / 3 = 53.89%
    judge-expert pairs pooled  (19 + 1) / (20 + 3)     = 86.96%
"""

from __future__ import annotations

import pytest

from studio.agreement import RatingsBuilder, analyse
from studio.agreement.report import to_text


def ratings(with_judge: bool = True):
    builder = RatingsBuilder()
    first = "judge" if with_judge else "E0"
    for number in range(20):
        builder.add("C1", f"item{number}", first, "pass")
        builder.add("C1", f"item{number}", "E1", "fail" if number == 19 else "pass")
    for number, value in enumerate(("pass", "fail", "fail")):
        builder.add("C1", f"item{number}", "E2", value)
    return builder.build()


def test_the_headline_pools_the_judge_expert_decision_pairs() -> None:
    pooled = analyse(ratings(), "judge").pooled
    assert (pooled["pooled_n"], pooled["pooled_agree"]) == (23, 20)
    assert pooled["pooled_percent"] == pytest.approx(100 * 20 / 23, abs=1e-6)
    assert pooled["pooled_basis"] == "judge-expert decision pairs"
    assert pooled["percent"] == pytest.approx((95 + 100 / 3 + 100 / 3) / 3, abs=1e-6)  # the per-pair mean, kept
    assert pooled["percent_basis"] == "mean over rater pairs"


def test_without_a_judge_every_rater_pair_is_pooled() -> None:
    # E0-E1 19 of 20, E0-E2 1 of 3, E1-E2 1 of 3: 21 of 26
    pooled = analyse(ratings(with_judge=False)).pooled
    assert (pooled["pooled_n"], pooled["pooled_agree"]) == (26, 21)
    assert pooled["pooled_percent"] == pytest.approx(100 * 21 / 26, abs=1e-6)
    assert pooled["pooled_basis"] == "rater decision pairs"


def test_two_raters_pool_their_one_pair() -> None:
    builder = RatingsBuilder()
    for number, (a, b) in enumerate((("pass", "pass"), ("pass", "fail"), ("fail", "fail"), ("pass", "pass"))):
        builder.add("C1", f"item{number}", "judge", a)
        builder.add("C1", f"item{number}", "E1", b)
    pooled = analyse(builder.build(), "judge").pooled
    assert (pooled["pooled_n"], pooled["pooled_agree"], pooled["pooled_percent"]) == (4, 3, 75.0)
    assert pooled["percent"] == 75.0


def test_the_bootstrap_gives_the_pooled_headline_an_interval_and_the_text_report_names_both() -> None:
    report = analyse(ratings(), "judge", resamples=200, seed=3)
    low, high = report.pooled["bootstrap95"]["pooled_percent"]["interval"]
    assert low <= 100 * 20 / 23 <= high
    text = to_text(report)
    assert "percent agreement (judge-expert decision pairs pooled: 20 of 23)" in text and "86.96%" in text
    assert "percent agreement (mean over pairs)" in text and "53.89%" in text
