"""Degenerate rating sets, the judge's error rates, and the cluster bootstrap.

An undefined coefficient (one category only, too few raters or pairs) is reported as None —
never as 0 or 1. On a pass/fail scale Gwet's AC1 stays defined when only one of the two
verdicts is seen: the scale has q = 2 categories, so its chance agreement
pe = Σ π_k(1-π_k)/(q-1) = 1·0 + 0·1 = 0 and AC1 = pa — 1.0 when everyone agrees. That is
AC1's documented behaviour (it does not collapse when prevalence is extreme, unlike kappa and
alpha, whose expected agreement then is 1 / expected disagreement 0).
"""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC

from studio.agreement import Analysis, RatingsBuilder, analyse

COEFFICIENTS = ("cohen_kappa", "gwet_ac1", "krippendorff_alpha")


def build(rows, **attributes):
    """rows: (criterion, item, rater, label) tuples."""
    builder = RatingsBuilder()
    for row in rows:
        builder.add(*row, **attributes)
    return builder.build()


def grid(verdicts: dict[str, str], criterion: str = "crit") -> list[tuple]:
    """{rater: 'p f . p'} → rows; '.' is no rating, '-' an empty verdict."""
    symbols = {"p": "pass", "f": "fail", "-": None}
    rows = []
    for rater, line in verdicts.items():
        for d, symbol in enumerate(line.split(), start=1):
            if symbol != ".":
                rows.append((criterion, f"item{d:03d}", rater, symbols.get(symbol, symbol)))
    return rows


# -- all pass -----------------------------------------------------------------------------------

def test_all_pass_two_raters():
    ratings = build(grid({"A": "p p p p p", "B": "p p p p p"}))
    assert ratings.categories == ["pass", "fail"]
    pooled = analyse(ratings, resamples=200, seed=1).pooled
    assert (pooled["n"], pooled["agree"], pooled["percent"]) == (5, 5, 100.0)
    assert pooled["wilson95"][1] == 100.0 and 0 < pooled["wilson95"][0] < 100
    # kappa: Pe = 1, 0/0; alpha: no expected disagreement — undefined, not 0 and not 1
    assert pooled["cohen_kappa"] is None
    assert pooled["cohen_kappa_se"] is None and pooled["cohen_kappa_se0"] is None
    assert pooled["krippendorff_alpha"] is None
    # AC1 on the pass/fail scale: pe = 0, AC1 = pa = 1 (see the module docstring)
    assert pooled["gwet_ac1"] == 1.0
    boot = pooled["bootstrap95"]
    assert boot["cohen_kappa"] == {"interval": None, "undefined_resamples": 200}
    assert boot["krippendorff_alpha"] == {"interval": None, "undefined_resamples": 200}
    assert boot["gwet_ac1"] == {"interval": [1.0, 1.0], "undefined_resamples": 0}
    assert pooled["pass_rates"] == {"A": 1.0, "B": 1.0}


def test_all_pass_three_raters_with_a_judge():
    ratings = build(grid({"judge": "p p p", "E1": "p p p", "E2": "p . p"}))
    pooled = analyse(ratings).pooled
    assert pooled["krippendorff_alpha"] is None
    assert pooled["gwet_ac1"] == 1.0
    assert pooled["percent"] == 100.0
    assert all(entry["cohen_kappa"] is None for entry in pooled["pairwise"].values())
    assert all(entry["gwet_ac1"] == 1.0 for entry in pooled["pairwise"].values())
    assert pooled["judge_expert"]["cohen_kappa"] is None  # no defined pair: no mean
    # no expert ever failed anything: the false-pass rate has no denominator
    rates = pooled["judge_vs_experts"]
    assert rates["false_pass_rate"] is None and rates["expert_fail"] == 0
    assert rates["false_fail_rate"] == 0.0 and rates["expert_pass"] == 5


def test_one_category_that_is_not_pass_fail_is_undefined_everywhere():
    """A single non-pass/fail label is a one-category scale: AC1 is undefined too."""
    ratings = build(grid({"A": "good good good", "B": "good good good", "C": "good . good"}))
    assert ratings.categories == ["good"]
    pooled = analyse(ratings, resamples=50).pooled
    assert pooled["percent"] == 100.0
    for name in ("gwet_ac1", "krippendorff_alpha"):
        assert pooled[name] is None
        assert pooled["bootstrap95"][name] == {"interval": None, "undefined_resamples": 50}
    for entry in pooled["pairwise"].values():
        assert entry["cohen_kappa"] is None and entry["gwet_ac1"] is None
    assert pooled["pass_rates"] == {"A": None, "B": None, "C": None}


# -- one item -----------------------------------------------------------------------------------

def test_one_decision_two_raters_agreeing():
    pooled = analyse(build([("c", "i", "A", "fail"), ("c", "i", "B", "fail")]), resamples=20).pooled
    assert (pooled["n"], pooled["agree"]) == (1, 1)
    assert pooled["cohen_kappa"] is None and pooled["krippendorff_alpha"] is None
    assert pooled["gwet_ac1"] == 1.0


def test_one_decision_two_raters_disagreeing_matches_the_formulas():
    """Po = Pe = 0, so kappa = 0 (defined); alpha: D_o = D_e, so 0 — as krippendorff says."""
    pooled = analyse(build([("c", "i", "A", "pass"), ("c", "i", "B", "fail")])).pooled
    assert (pooled["n"], pooled["agree"], pooled["percent"]) == (1, 0, 0.0)
    assert pooled["cohen_kappa"] == 0.0
    assert pooled["krippendorff_alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=[[0], [1]], level_of_measurement="nominal", value_domain=[0, 1]))
    assert pooled["gwet_ac1"] == -1.0  # pa = 0, pi = (½, ½), pe = ½


def test_one_item_with_several_criteria_bootstraps_to_the_point_estimate():
    """With a single item (cluster) every resample is the original data."""
    rows = [(f"crit-{column}", "only-item", rater, label)  # grid's columns become criteria of one item
            for _, column, rater, label in grid({"A": "p f p f p", "B": "p f f f p", "C": "f f p f p"})]
    ratings = build(rows)
    assert ratings.item_names == ["only-item"] and ratings.n_decisions == 5
    report = analyse(ratings, resamples=30, seed=3)
    pooled = report.pooled
    for name, value in pooled["bootstrap95"].items():
        assert value == {"interval": [pooled[name], pooled[name]], "undefined_resamples": 0}, name


# -- one rater ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["A", "judge"])
def test_one_rater_everything_undefined(name):
    ratings = build(grid({name: "p f p f"}))
    report = analyse(ratings, resamples=20)
    pooled = report.pooled
    assert pooled["n"] == 0 and pooled["agree"] == 0
    assert pooled["percent"] is None and pooled["wilson95"] is None
    for coefficient in COEFFICIENTS + ("cohen_kappa_se", "cohen_kappa_se0"):
        assert pooled[coefficient] is None, coefficient
    assert all(v["interval"] is None and v["undefined_resamples"] == 20 for v in pooled["bootstrap95"].values())
    assert "pairwise" not in pooled
    assert pooled["pass_rates"] == {name: 0.5}
    assert report.disagreements == []
    if name == "judge":  # a judge with no expert: nothing to compare against
        assert report.judge == "judge"
        assert pooled["judge_vs_experts"] == {"false_pass_rate": None, "false_fail_rate": None, "false_pass": 0,
                                              "expert_fail": 0, "false_fail": 0, "expert_pass": 0}
    else:
        assert pooled["confusion"] is None


def test_two_raters_who_never_rate_the_same_decision():
    pooled = analyse(build(grid({"A": "p f . .", "B": ". . p f"}))).pooled
    assert pooled["n"] == 0 and pooled["percent"] is None and pooled["wilson95"] is None
    for coefficient in COEFFICIENTS:
        assert pooled[coefficient] is None, coefficient


def test_no_verdict_at_all():
    """Every verdict empty: no categories; everything undefined, nothing raises."""
    ratings = build(grid({"A": "- -", "B": "- -", "C": "- ."}))
    assert ratings.categories == [] and ratings.n_decisions == 2
    pooled = analyse(ratings, resamples=10).pooled
    assert pooled["n"] == 0 and pooled["percent"] is None
    for coefficient in COEFFICIENTS:
        assert pooled[coefficient] is None, coefficient
    for entry in pooled["pairwise"].values():  # no pairs: kappa undefined (not 0)
        assert entry["n"] == 0 and entry["percent"] is None and entry["cohen_kappa"] is None
    two = analyse(build(grid({"A": "- -", "B": "- -"}))).pooled
    assert two["cohen_kappa"] is None and two["percent"] is None


# -- a category seen only once; a decision with a single rating --------------------------------------

def test_a_category_seen_only_once():
    ratings = build(grid({"A": "p f p p f n/a", "B": "p f f p f f", "C": "p . p p f f"}))
    assert ratings.categories == ["pass", "fail", "n/a"]
    pooled = analyse(ratings).pooled
    values = np.array([[0, 1, 0, 0, 1, 2], [0, 1, 1, 0, 1, 1], [0, np.nan, 0, 0, 1, 1]], dtype=float)
    assert pooled["krippendorff_alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=values, level_of_measurement="nominal", value_domain=[0, 1, 2]), abs=1e-6)
    frame = pd.DataFrame(values.T, columns=["A", "B", "C"])
    assert pooled["gwet_ac1"] == pytest.approx(CAC(frame, digits=12).gwet()["est"]["coefficient_value"], abs=1e-6)
    # pass rates count the n/a verdict in the denominator: A passed 3 of 6
    assert pooled["pass_rates"]["A"] == 0.5
    assert len(analyse(ratings).disagreements) == 2


def test_a_decision_with_a_single_rating_among_others():
    """A lone rating is not pairable: n, percent, kappa and alpha ignore it; AC1 uses it in the
    category prevalences (Gwet 2008; irrCAC does the same)."""
    full = grid({"A": "p f p p f p", "B": "p f f p f p"})
    lone = full + [("crit", "item099", "A", "fail")]
    with_lone, without = analyse(build(lone)).pooled, analyse(build(full)).pooled
    for key in ("n", "agree", "percent", "wilson95", "cohen_kappa", "cohen_kappa_se", "krippendorff_alpha"):
        assert with_lone[key] == without[key], key
    frame = pd.DataFrame({"A": [0, 1, 0, 0, 1, 0, 1], "B": [0, 1, 1, 0, 1, 0, np.nan]}, dtype=float)
    assert with_lone["gwet_ac1"] == pytest.approx(CAC(frame, digits=12).gwet()["est"]["coefficient_value"], abs=1e-6)
    assert with_lone["gwet_ac1"] != without["gwet_ac1"]
    assert with_lone["decisions"] == 7 and without["decisions"] == 6


# -- the judge against experts, by hand ---------------------------------------------------------------

JUDGE_TABLE = {          # d1 d2 d3 d4 d5 d6
    "judge": "p p f p f .",
    "E1":    "p f p f f p",
    "E2":    "p p p f . f",
}


def test_judge_false_pass_and_false_fail_rates_by_hand():
    """Pairs (judge, expert) where both rated:
    E1: d1 p/p, d2 p/f (false pass), d3 f/p (false fail), d4 p/f (false pass), d5 f/f
    E2: d1 p/p, d2 p/p, d3 f/p (false fail), d4 p/f (false pass)
    expert fails 3 + 1 = 4, of which the judge passed 2 + 1 = 3; expert passes 2 + 3 = 5, of
    which the judge failed 1 + 1 = 2. d6 has no judge verdict."""
    report = analyse(build(grid(JUDGE_TABLE)))
    assert report.judge == "judge"
    pooled = report.pooled
    assert pooled["judge_vs_experts"] == {"false_pass_rate": 0.75, "false_fail_rate": 0.4, "false_pass": 3,
                                          "expert_fail": 4, "false_fail": 2, "expert_pass": 5}
    # judge rows × pooled expert columns, [pass, fail]
    assert pooled["confusion"] == {"rows": "judge", "columns": "experts (pooled)", "labels": ["pass", "fail"],
                                   "counts": [[3, 3], [2, 1]]}
    assert pooled["n"] == 6 and pooled["agree"] == 2  # every decision has 2+ ratings; d1, d5 unanimous
    assert pooled["pass_rates"] == {"judge": 0.6, "E1": 0.5, "E2": 0.6}


def test_judge_expert_and_expert_expert_means():
    """judge|E1: n 5, Po .4, Pe .6·.4 + .4·.6 = .48, kappa -.08/.52; judge|E2: n 4, Po .5,
    Pe .75² + .25² = .625, kappa -1/3; E1|E2: n 5 (d1-d4, d6), agree d1, d3, d4."""
    pooled = analyse(build(grid(JUDGE_TABLE))).pooled
    pairs = pooled["pairwise"]
    assert set(pairs) == {"judge|E1", "judge|E2", "E1|E2"}
    assert (pairs["judge|E1"]["n"], pairs["judge|E1"]["percent"]) == (5, 40.0)
    assert (pairs["judge|E2"]["n"], pairs["judge|E2"]["percent"]) == (4, 50.0)
    assert (pairs["E1|E2"]["n"], pairs["E1|E2"]["percent"]) == (5, 60.0)
    assert pairs["judge|E1"]["cohen_kappa"] == pytest.approx(-0.08 / 0.52, abs=1e-6)
    assert pairs["judge|E2"]["cohen_kappa"] == pytest.approx(-1 / 3, abs=1e-6)
    judge_expert, expert_expert = pooled["judge_expert"], pooled["expert_expert"]
    assert judge_expert["pairs"] == 2 and expert_expert["pairs"] == 1
    assert judge_expert["percent"] == 45.0 and expert_expert["percent"] == 60.0
    assert judge_expert["cohen_kappa"] == pytest.approx((-0.08 / 0.52 - 1 / 3) / 2, abs=1e-6)
    assert judge_expert["gwet_ac1"] == pytest.approx(
        (pairs["judge|E1"]["gwet_ac1"] + pairs["judge|E2"]["gwet_ac1"]) / 2, abs=1e-6)
    assert expert_expert["cohen_kappa"] == pairs["E1|E2"]["cohen_kappa"]
    assert pooled["percent"] == 50.0  # more than two raters: mean of the pairwise percents


def test_judge_named_explicitly_and_unknown_judge():
    rows = [(c, i, {"judge": "llm"}.get(r, r), lab) for c, i, r, lab in grid(JUDGE_TABLE)]
    pooled = analyse(build(rows), judge="llm").pooled
    assert pooled["judge_vs_experts"]["false_pass"] == 3
    assert "judge_expert" in pooled
    assert "judge_vs_experts" not in analyse(build(rows)).pooled  # no rater is called 'judge'
    with pytest.raises(ValueError, match="no rater named 'gpt'"):
        analyse(build(rows), judge="gpt")


# -- bootstrap -------------------------------------------------------------------------------------

def _large(raters: int, items: int = 150, criteria: int = 3, seed: int = 0):
    """Raters who mostly copy a hidden truth, with missing ratings; pass/fail plus 'n/a'."""
    rng = np.random.default_rng(seed)
    labels = ["pass", "fail", "n/a"]
    builder = RatingsBuilder()
    for i in range(items):
        for c in range(criteria):
            truth = rng.choice(3, p=[0.55, 0.35, 0.10])
            for r in range(raters):
                if rng.random() < 0.1:
                    continue
                label = truth if rng.random() < 0.8 else rng.integers(3)
                builder.add(f"crit{c}", f"item{i:03d}", f"r{r}", labels[label], target=f"t{i % 2}")
    return builder.build()


@pytest.mark.parametrize("raters", [2, 4])
def test_bootstrap_is_reproducible_by_seed(raters):
    ratings = _large(raters)
    first = analyse(ratings, resamples=300, seed=11)
    again = analyse(ratings, resamples=300, seed=11)
    other = analyse(ratings, resamples=300, seed=12)
    assert first == again
    assert first.bootstrap == {"resamples": 300, "seed": 11, "unit": "item"}
    for name, value in first.pooled["bootstrap95"].items():
        assert value["interval"] != other.pooled["bootstrap95"][name]["interval"], name
    assert first.by_target["t0"]["bootstrap95"] == again.by_target["t0"]["bootstrap95"]
    # the point estimates do not depend on the bootstrap
    strip = lambda block: {k: v for k, v in block.items() if k != "bootstrap95"}  # noqa: E731
    assert strip(first.pooled) == strip(other.pooled) == strip(analyse(ratings).pooled)


@pytest.mark.parametrize("raters", [2, 4])
def test_bootstrap_intervals_contain_the_point_estimate(raters):
    ratings = _large(raters, seed=5)
    report = analyse(ratings, resamples=1000, seed=2)
    for block in [report.pooled, *report.by_target.values()]:
        names = list(block["bootstrap95"])
        assert {"gwet_ac1", "krippendorff_alpha", "percent"} <= set(names)
        assert ("cohen_kappa" in names) == (raters == 2)
        for name in names:
            value = block["bootstrap95"][name]
            assert value["undefined_resamples"] == 0
            lo, hi = value["interval"]
            assert lo < block[name] < hi, (name, lo, block[name], hi)
            assert hi - lo < (40 if name in ("percent", "pooled_percent") else 0.4)  # a real, narrow-ish interval


def test_bootstrap_resamples_items_not_decisions():
    """Item multiplicities: each replicate draws as many items as there are, with replacement."""
    ratings = _large(2, items=40)
    weights = Analysis(ratings, resamples=500, seed=9).weights
    assert weights.shape == (500, 40)
    assert np.all(weights.sum(axis=1) == 40)
    assert np.array_equal(weights, Analysis(ratings, resamples=500, seed=9).weights)


def test_coefficient_functions_return_nan_never_0_or_1_when_undefined():
    from studio.agreement import coefficients as co

    nothing, one_category = np.zeros((2, 2)), np.array([[5.0, 0.0], [0.0, 0.0]])
    for table in (nothing, one_category, np.zeros((0, 0))):
        assert np.isnan(co.cohen_kappa(table)), table
        assert np.isnan(co.krippendorff_alpha(table)), table
    assert all(np.isnan(co.cohen_kappa_se(one_category))) and all(np.isnan(co.cohen_kappa_se(nothing)))
    assert np.isnan(co.percent_from_confusion(nothing)) and co.wilson(0, 0) is None
    assert np.isnan(co.gwet_ac1_pair(nothing, 2))
    assert np.isnan(co.gwet_ac1_pair(np.array([[5.0]]), 1))  # one-category scale
    assert co.gwet_ac1_pair(one_category, 2) == 1.0  # pass/fail scale, one seen: defined (pe = 0)
    assert np.isnan(co.gwet_ac1(np.array(0.0), np.array(0.0), np.zeros(2), np.array(0.0), 2))  # no pairs
    # stacks (bootstrap replicates) keep undefined entries undefined, defined ones defined
    stack = np.stack([nothing, one_category, np.array([[3.0, 1.0], [1.0, 3.0]])])
    assert np.isnan(co.cohen_kappa(stack)[:2]).all() and co.cohen_kappa(stack)[2] == pytest.approx(0.5)
    assert np.isnan(co.krippendorff_alpha(stack)[:2]).all() and not np.isnan(co.krippendorff_alpha(stack)[2])
