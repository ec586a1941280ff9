"""Agreement statistics checked against independent implementations on random rating tables.

Second implementations (test extras): krippendorff (alpha), irrCAC (Gwet's AC1), scikit-learn
and statsmodels (Cohen's kappa and its standard errors, Wilson interval). Tables have 2..5
raters, 2..4 categories (pass/fail and other labels), missing ratings (absent rows and empty
verdicts) and items judged on several criteria. Our values are rounded to 6 decimals.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from itertools import combinations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from irrCAC.raw import CAC
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from studio.agreement import Analysis, RatingsBuilder, analyse
from studio.agreement.ratings import FAIL, PASS

# the second implementations warn on their own 0/0 (they report NaN, compared as "undefined");
# warnings from studio.* stay errors (pyproject's filterwarnings)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:irrCAC.*", "ignore::RuntimeWarning:statsmodels.*")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOL = 1e-5
CATEGORY_SETS = [
    [PASS, FAIL],
    [PASS, FAIL, "n/a"],
    [PASS, FAIL, "partial", "n/a"],
    ["good", "bad"],
    ["low", "mid", "high"],
    ["A", "B", "C", "D"],
]


@dataclass
class Table:
    """cells[d, r]: index into labels, or -1 for a missing rating; raters are r0, r1, …"""

    labels: list[str]
    cells: np.ndarray
    items: list[str]
    targets: list[str]  # per decision (one target per item)

    @property
    def raters(self) -> list[str]:
        return [f"r{r}" for r in range(self.cells.shape[1])]

    def column(self, name: str) -> np.ndarray:
        return self.cells[:, self.raters.index(name)]

    def as_float(self) -> np.ndarray:
        """decisions × raters, NaN for missing (the form krippendorff and irrCAC take)."""
        return np.where(self.cells >= 0, self.cells, np.nan).astype(float)

    def dataframe(self, columns: list[int] | None = None) -> pd.DataFrame:
        values = self.as_float()
        columns = list(range(values.shape[1])) if columns is None else columns
        return pd.DataFrame({self.raters[c]: values[:, c] for c in columns})

    def observed(self) -> set[int]:
        return {int(v) for v in np.unique(self.cells) if v >= 0}

    def subset(self, target: str) -> Table:
        keep = [d for d, t in enumerate(self.targets) if t == target]
        return Table(self.labels, self.cells[keep], [self.items[d] for d in keep], [target] * len(keep))


@st.composite
def tables(draw, min_raters: int = 2, max_raters: int = 5, missing: bool = True,
           every_category: bool = True, category_sets: list[list[str]] = CATEGORY_SETS) -> tuple[Table, object]:
    """A random table and the Ratings built from it through RatingsBuilder."""
    labels = draw(st.sampled_from(category_sets))
    q = len(labels)
    n_raters = draw(st.integers(min_raters, max_raters))
    n_decisions = draw(st.integers(2, 24))
    n_items = draw(st.integers(1, n_decisions))
    items = [f"item{draw(st.integers(0, n_items - 1))}" for _ in range(n_decisions)]  # items with several criteria
    low = -1 if missing else 0
    cells = np.array([[draw(st.integers(low, q - 1)) for _ in range(n_raters)] for _ in range(n_decisions)])
    if every_category:  # every category appears at least once (irrCAC takes its scale from the data)
        for k in range(q):
            cells[k // n_raters, k % n_raters] = k
    target_of = {item: draw(st.sampled_from(["t0", "t1"])) for item in sorted(set(items))}
    table = Table(labels, cells, items, [target_of[item] for item in items])
    # A missing rating is either an absent row or a row with an empty verdict; the first
    # decision always names every rater, so no rater is lost.
    builder = RatingsBuilder()
    for d in range(n_decisions):
        for r, name in enumerate(table.raters):
            code = int(cells[d, r])
            if code >= 0:
                builder.add(f"crit{d}", items[d], name, labels[code], target=table.targets[d])
            elif d == 0 or draw(st.booleans()):
                builder.add(f"crit{d}", items[d], name, None, target=table.targets[d])
    return table, builder.build()


def reference(compute) -> float:
    """A second implementation's value, NaN when it calls the value undefined (NaN or raises)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = float(compute())
        except (ValueError, ZeroDivisionError, FloatingPointError):
            return math.nan
    return value if math.isfinite(value) else math.nan


def irrcac_ac1(frame: pd.DataFrame, categories: list[int] | None = None) -> float:
    """irrCAC's AC1. irrCAC divides by n(n-1) for its variance, so it fails on one rated unit;
    AC1 itself is a function of unit means, unchanged when every unit is doubled — done then."""
    if len(frame.dropna(how="all")) == 1:
        frame = pd.concat([frame, frame], ignore_index=True)
    return CAC(frame, categories=categories, digits=12).gwet()["est"]["coefficient_value"]


def assert_same(ours: float | None, theirs: float) -> None:
    if math.isnan(theirs):
        assert ours is None, f"ours {ours}, theirs undefined"
    else:
        assert ours is not None, f"ours undefined, theirs {theirs}"
        assert ours == pytest.approx(theirs, abs=TOL)


def scale_codes(table: Table, ratings) -> list[int]:
    """Our scale as table codes: pass/fail whenever every label is pass/fail, else the observed labels."""
    return [table.labels.index(label) for label in ratings.categories]


# -- Krippendorff's alpha ------------------------------------------------------------------------

@SETTINGS
@given(tables())
def test_alpha_matches_krippendorff_package(data):
    table, ratings = data
    report = analyse(ratings)
    blocks = [(report.pooled, table)] + [(block, table.subset(t)) for t, block in report.by_target.items()]
    for block, part in blocks:
        theirs = reference(lambda part=part: krippendorff.alpha(reliability_data=part.as_float().T,
                                                                level_of_measurement="nominal",
                                                                value_domain=list(range(len(part.labels)))))
        assert_same(block["krippendorff_alpha"], theirs)


# -- Gwet's AC1 --------------------------------------------------------------------------------

@SETTINGS
@given(tables())
def test_ac1_matches_irrcac_when_every_category_is_observed(data):
    table, ratings = data
    assert len(ratings.categories) == len(table.labels)  # the scale is the same for both
    report = analyse(ratings)
    assert_same(report.pooled["gwet_ac1"], reference(lambda: irrcac_ac1(table.dataframe())))
    # a block (target) keeps the whole table's scale, though it may not see every category
    scale = scale_codes(table, ratings)
    # a decision whose ratings are all absent rows never reaches Ratings, nor its target
    assert set(report.by_target) == set(ratings.attributes.get("target", [])) <= set(table.targets)
    for target, block in report.by_target.items():
        part = table.subset(target)
        assert_same(block["gwet_ac1"], reference(lambda part=part: irrcac_ac1(part.dataframe(), scale)))


@SETTINGS
@given(tables(every_category=False, category_sets=[[PASS, FAIL]]))
def test_ac1_on_a_pass_fail_scale_counts_both_categories_even_if_one_is_unseen(data):
    """Our Ratings always has the scale [pass, fail] for pass/fail labels; irrCAC agrees once it
    is told that scale (by default it would take only the observed categories)."""
    table, ratings = data
    assume(table.observed())  # with no verdict at all there is no scale (see test_degenerate)
    assert ratings.categories == [PASS, FAIL]
    assert ratings.binary
    pooled = analyse(ratings).pooled
    scale = scale_codes(table, ratings)
    theirs = reference(lambda: irrcac_ac1(table.dataframe(), scale))
    assert_same(pooled["gwet_ac1"], theirs)
    alpha = reference(lambda: krippendorff.alpha(reliability_data=table.as_float().T, level_of_measurement="nominal",
                                                 value_domain=scale))
    assert_same(pooled["krippendorff_alpha"], alpha)


def test_pass_fail_scale_with_one_observed_category_explicitly():
    """All three raters say 'pass' (one decision misses a rating). The scale is still pass/fail
    (q = 2), so AC1's chance agreement pe = Σ π_k(1-π_k)/(q-1) = 1·0 + 0·1 = 0 and AC1 = pa = 1:
    defined, as irrCAC also gives with categories=[pass, fail]. Kappa and alpha are undefined
    (their expected agreement is 1 / expected disagreement 0)."""
    builder = RatingsBuilder()
    for d in range(4):
        for rater in ("r0", "r1", "r2"):
            if not (d == 3 and rater == "r2"):
                builder.add("crit", f"item{d}", rater, "pass")
    ratings = builder.build()
    assert ratings.categories == [PASS, FAIL]
    pooled = analyse(ratings).pooled
    assert pooled["gwet_ac1"] == 1.0
    assert pooled["krippendorff_alpha"] is None
    values = pd.DataFrame({"r0": [0.0] * 4, "r1": [0.0] * 4, "r2": [0.0, 0.0, 0.0, np.nan]})
    assert CAC(values, categories=[0, 1], digits=12).gwet()["est"]["coefficient_value"] == pytest.approx(1.0)
    # irrCAC's own default scale is the observed categories only: a one-category scale.
    assert CAC(values, digits=12).gwet()["categories"] == [0.0]
    # A non-pass/fail label seen alone is a one-category scale: AC1 undefined, not 1.
    builder = RatingsBuilder()
    for d in range(4):
        for rater in ("r0", "r1"):
            builder.add("crit", f"item{d}", rater, "good")
    lone = analyse(builder.build()).pooled
    assert lone["gwet_ac1"] is None and lone["krippendorff_alpha"] is None and lone["cohen_kappa"] is None


def test_pass_fail_scale_block_where_only_pass_is_seen():
    """A block (here a target) on a pass/fail scale where only 'pass' occurs keeps q = 2."""
    builder = RatingsBuilder()
    verdicts = {"i1": ("pass", "pass"), "i2": ("pass", "pass"), "i3": ("fail", "pass"), "i4": ("fail", "fail")}
    for item, (a, b) in verdicts.items():
        target = "easy" if item in ("i1", "i2") else "hard"
        builder.add("crit", item, "r0", a, target=target)
        builder.add("crit", item, "r1", b, target=target)
    report = analyse(builder.build())
    easy = report.by_target["easy"]
    assert easy["n"] == 2 and easy["percent"] == 100.0
    assert easy["gwet_ac1"] == 1.0
    assert easy["cohen_kappa"] is None and easy["krippendorff_alpha"] is None
    hard = report.by_target["hard"]
    values = pd.DataFrame({"r0": [1.0, 1.0], "r1": [0.0, 1.0]})
    assert hard["gwet_ac1"] == pytest.approx(irrcac_ac1(values, [0, 1]), abs=TOL)


# -- Cohen's kappa and the Wilson interval (two raters) --------------------------------------------

@SETTINGS
@given(tables(min_raters=2, max_raters=2, every_category=False))
def test_two_raters_kappa_se_and_wilson_match_sklearn_and_statsmodels(data):
    table, ratings = data
    assert len(ratings.raters) == 2
    pooled = analyse(ratings).pooled
    a, b = table.column(ratings.raters[0]), table.column(ratings.raters[1])
    both = (a >= 0) & (b >= 0)
    q = len(table.labels)
    n, agree = int(both.sum()), int(np.sum(a[both] == b[both]))
    assert (pooled["n"], pooled["agree"]) == (n, agree)
    if n == 0:
        assert pooled["percent"] is None and pooled["wilson95"] is None
        assert pooled["cohen_kappa"] is None and pooled["cohen_kappa_se"] is None and pooled["cohen_kappa_se0"] is None
        return
    assert pooled["percent"] == pytest.approx(100.0 * agree / n, abs=TOL)
    lo, hi = proportion_confint(agree, n, alpha=0.05, method="wilson")
    assert pooled["wilson95"] == pytest.approx([100.0 * lo, 100.0 * hi], abs=TOL)

    kappa = reference(lambda: cohen_kappa_score(a[both], b[both], labels=list(range(q))))
    assert_same(pooled["cohen_kappa"], kappa)
    confusion = np.zeros((q, q))
    np.add.at(confusion, (a[both], b[both]), 1)
    result = cohens_kappa(confusion) if not math.isnan(kappa) else None
    assert_same(pooled["cohen_kappa"], reference(lambda: result.kappa) if result else math.nan)
    # statsmodels takes sqrt of a variance that rounding can leave at -1e-16 when it is exactly 0
    # (e.g. counts [[2, 1], [0, 0]]); we clamp at 0, so compare with the clamped root.
    se = reference(lambda: math.sqrt(max(result.var_kappa, 0.0))) if result else math.nan
    se0 = reference(lambda: math.sqrt(max(result.var_kappa0, 0.0))) if result else math.nan
    assert_same(pooled["cohen_kappa_se"], se)
    assert_same(pooled["cohen_kappa_se0"], se0)


# -- more than two raters: pairwise matrix and the pooled percent -----------------------------------

@SETTINGS
@given(tables(min_raters=3, max_raters=5))
def test_pairwise_entries_match_sklearn_and_irrcac_per_pair(data):
    table, ratings = data
    pooled = analyse(ratings).pooled
    scale = scale_codes(table, ratings)
    assert set(pooled["pairwise"]) == {f"{x}|{y}" for x, y in combinations(ratings.raters, 2)}
    percents = []
    for entry in pooled["pairwise"].values():
        a, b = table.column(entry["a"]), table.column(entry["b"])
        both = (a >= 0) & (b >= 0)
        n, agree = int(both.sum()), int(np.sum(a[both] == b[both]))
        assert (entry["n"], entry["agree"]) == (n, agree)
        if n == 0:
            assert entry["percent"] is None and entry["cohen_kappa"] is None and entry["gwet_ac1"] is None
            continue
        percents.append(100.0 * agree / n)
        assert entry["percent"] == pytest.approx(percents[-1], abs=TOL)
        assert_same(entry["cohen_kappa"],
                    reference(lambda a=a, b=b, both=both: cohen_kappa_score(a[both], b[both], labels=scale)))
        pair = pd.DataFrame({"a": a[both].astype(float), "b": b[both].astype(float)})
        assert_same(entry["gwet_ac1"],
                    reference(lambda pair=pair: irrcac_ac1(pair, scale)))
    # the pooled percent for more than two raters is the mean of the pairwise percents
    assert_same(pooled["percent"], float(np.mean(percents)) if percents else math.nan)
    # n counts decisions with at least two ratings, agree the unanimous ones among them
    rated = (table.cells >= 0).sum(axis=1)
    unanimous = [len({int(v) for v in row if v >= 0}) == 1 for row in table.cells]
    assert pooled["n"] == int(np.sum(rated >= 2))
    assert pooled["agree"] == int(np.sum((rated >= 2) & np.array(unanimous)))
    assert pooled["cohen_kappa"] is None and pooled["wilson95"] is None


# -- the bootstrap's cluster replicates are the statistics of the resampled table -------------------

@SETTINGS
@given(tables(max_raters=4), st.integers(0, 2**32 - 1))
def test_a_bootstrap_replicate_equals_analysing_the_resampled_items(data, seed):
    """With one resample, the percentile interval is [v, v] where v is the replicate; it must
    equal the statistics of a table that repeats each item as often as the draw picked it."""
    table, ratings = data
    analysis = Analysis(ratings, resamples=1, seed=seed)
    weights = analysis.weights[0]
    builder = RatingsBuilder()
    for d, criterion in enumerate(ratings.criteria):
        item = ratings.item_names[ratings.items[d]]
        for copy in range(int(weights[ratings.items[d]])):
            for r, rater in enumerate(ratings.raters):
                code = int(ratings.codes[d, r])
                builder.add(criterion, f"{item}#{copy}", rater, ratings.categories[code] if code >= 0 else None)
    for rater in ratings.raters:  # keep every rater and category in the resampled table
        builder.add("__keep__", "__keep__", rater, None)
    resampled = builder.build()
    scale = [resampled.categories.index(c) for c in ratings.categories if c in resampled.categories]
    boot = analysis.report().pooled["bootstrap95"]
    direct = analyse(resampled).pooled
    names = list(boot)
    if len(scale) != len(ratings.categories):  # a category lost in the draw changes AC1's scale (q) only
        names.remove("gwet_ac1")
    for name in names:
        interval = boot[name]["interval"]
        if direct[name] is None:
            assert interval is None and boot[name]["undefined_resamples"] == 1
        else:
            assert interval is not None and interval[0] == interval[1]
            assert interval[0] == pytest.approx(direct[name], abs=TOL)


# -- a judge among experts: error rates and pooled confusion by brute force -------------------------

@SETTINGS
@given(tables(min_raters=2, max_raters=5, every_category=False, category_sets=[[PASS, FAIL], [PASS, FAIL, "n/a"]]),
       st.data())
def test_judge_rates_and_pooled_confusion_by_brute_force(data, choice):
    table, ratings = data
    assume(set(table.observed()) >= {0, 1})  # both pass and fail seen, else there are no rates
    judge = choice.draw(st.sampled_from(ratings.raters))
    pooled = analyse(ratings, judge=judge).pooled
    j = table.column(judge)
    scale = scale_codes(table, ratings)
    false_pass = expert_fail = false_fail = expert_pass = 0
    confusion = np.zeros((len(scale), len(scale)), dtype=int)
    for expert in ratings.raters:
        if expert == judge:
            continue
        x = table.column(expert)
        for a, b in zip(j, x, strict=False):
            if a < 0 or b < 0:
                continue
            confusion[scale.index(a), scale.index(b)] += 1
            expert_fail += b == 1
            expert_pass += b == 0
            false_pass += (b == 1) and (a == 0)
            false_fail += (b == 0) and (a == 1)
    rates = pooled["judge_vs_experts"]
    assert (rates["false_pass"], rates["expert_fail"], rates["false_fail"], rates["expert_pass"]) == \
        (false_pass, expert_fail, false_fail, expert_pass)
    assert_same(rates["false_pass_rate"], false_pass / expert_fail if expert_fail else math.nan)
    assert_same(rates["false_fail_rate"], false_fail / expert_pass if expert_pass else math.nan)
    if len(ratings.raters) > 2:  # two raters: the confusion is rater A × rater B instead
        assert pooled["confusion"]["rows"] == judge
        assert pooled["confusion"]["counts"] == confusion.tolist()
        means = {"judge_expert": [], "expert_expert": []}
        for entry in pooled["pairwise"].values():
            if entry["percent"] is not None:
                means["judge_expert" if judge in (entry["a"], entry["b"]) else "expert_expert"].append(entry["percent"])
        for key, values in means.items():
            assert_same(pooled[key]["percent"], float(np.mean(values)) if values else math.nan)
