"""Agreement coefficients against values published with worked examples.

- Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011): the 4 observers × 12
  units example with missing values (nominal alpha = 0.743) and the binary two-observer
  example (alpha = 0.095).
- Gwet, Handbook of Inter-Rater Reliability: AC1 on the same 4-rater data set (irrCAC's
  cac.raw4raters): AC1 = 0.7754, pa = 0.8182, pe = 0.1903.
- Cohen's kappa with standard errors: Bonnardel's kappa program documentation (3×3 table,
  n = 100: kappa = 0.654, s.e. 0.062, s.e. under H0 0.069) and Fleiss, Statistical Methods for
  Rates and Proportions (proportions table, n = 100: kappa = 0.676, s.e. 0.088).

Each data set is built through RatingsBuilder and checked in analyse(...).pooled, and the
coefficient functions are checked directly on the same counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from studio.agreement import RatingsBuilder, analyse, normalise_label
from studio.agreement import coefficients as co

# -- Krippendorff's 4 observers × 12 units (". " = no value) ----------------------------------------
KRIPPENDORFF_4X12 = {
    "A": "1 2 3 3 2 1 4 1 2 . . .",
    "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    "C": ". 3 3 3 2 3 4 2 2 5 1 .",
    "D": "1 2 3 3 2 4 4 1 2 5 1 .",
}


def _from_rows(rows: dict[str, str], normalise: bool = False):
    builder = RatingsBuilder()
    for rater, values in rows.items():
        for unit, value in enumerate(values.split(), start=1):
            if value != ".":
                builder.add("crit", f"unit{unit:02d}", rater, normalise_label(value) if normalise else value)
    return builder.build()


def _from_confusion(table: list[list[int]], labels: str = "abcdefgh"):
    """Expand a confusion table (rows: rater A, columns: rater B) into one decision per count."""
    builder = RatingsBuilder()
    k = 0
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            for _ in range(count):
                k += 1
                builder.add("crit", f"item{k:04d}", "A", labels[i])
                builder.add("crit", f"item{k:04d}", "B", labels[j])
    return builder.build()


def _unit_counts(ratings) -> np.ndarray:
    q = len(ratings.categories)
    counts = np.zeros((ratings.n_decisions, q))
    for r in range(len(ratings.raters)):
        rated = ratings.codes[:, r] >= 0
        np.add.at(counts, (np.flatnonzero(rated), ratings.codes[rated, r]), 1)
    return counts


def _coincidence(ratings) -> np.ndarray:
    """Krippendorff's coincidence matrix, written out as in his paper."""
    q = len(ratings.categories)
    out = np.zeros((q, q))
    for counts in _unit_counts(ratings):
        m = counts.sum()
        if m >= 2:
            out += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    return out


def test_krippendorff_4_observers_12_units_with_missing_values():
    ratings = _from_rows(KRIPPENDORFF_4X12)
    assert ratings.categories == ["1", "2", "3", "4", "5"]
    assert ratings.n_decisions == 12
    pooled = analyse(ratings).pooled
    assert pooled["krippendorff_alpha"] == pytest.approx(0.743, abs=5e-4)
    assert pooled["krippendorff_alpha"] == pytest.approx(0.743421, abs=1e-6)  # 1 - 0.195/0.760 = 0.74342…
    assert pooled["n"] == 11  # unit 12 has a single value: not pairable
    # the coincidence matrix in the paper: n_c = 9, 13, 10, 5, 3 (n = 40 pairable values)
    coincidence = _coincidence(ratings)
    assert coincidence.sum(axis=1) == pytest.approx([9, 13, 10, 5, 3])
    assert float(co.krippendorff_alpha(coincidence)) == pytest.approx(0.743421, abs=1e-6)


def test_krippendorff_binary_two_observers():
    rows = {"A": "0 1 0 0 0 0 0 0 1 0", "B": "1 1 1 0 0 1 0 0 0 0"}
    ratings = _from_rows(rows)
    assert ratings.categories == ["0", "1"]  # the builder keeps labels as given
    pooled = analyse(ratings).pooled
    assert pooled["krippendorff_alpha"] == pytest.approx(0.095, abs=5e-4)
    assert pooled["krippendorff_alpha"] == pytest.approx(1 - 4 / 4.4211, abs=1e-4)  # 1 - D_o/D_e = 0.0952
    assert float(co.krippendorff_alpha(_coincidence(ratings))) == pytest.approx(0.095238, abs=1e-6)
    # as a table would give them (1/0 are pass/fail synonyms) the value is the same: nominal
    # alpha does not depend on the labels
    normalised = _from_rows(rows, normalise=True)
    assert normalised.categories == ["pass", "fail"]
    assert analyse(normalised).pooled["krippendorff_alpha"] == pooled["krippendorff_alpha"]


def test_gwet_ac1_on_the_4_rater_handbook_data():
    ratings = _from_rows(KRIPPENDORFF_4X12)
    pooled = analyse(ratings).pooled
    assert pooled["gwet_ac1"] == pytest.approx(0.7754, abs=5e-5)
    # pa and pe directly, from the unit sums the coefficient functions take
    counts = _unit_counts(ratings)
    r = counts.sum(axis=1)
    two, one = r >= 2, r >= 1
    pa_sum = float(((counts[two] * (counts[two] - 1)).sum(axis=1) / (r[two] * (r[two] - 1))).sum())
    pi_sum = (counts[one] / r[one, None]).sum(axis=0)
    assert pa_sum / two.sum() == pytest.approx(0.8182, abs=5e-5)
    pi = pi_sum / one.sum()
    assert float((pi * (1 - pi)).sum() / (len(pi) - 1)) == pytest.approx(0.1903, abs=5e-5)
    ac1 = co.gwet_ac1(np.array(pa_sum), np.array(float(two.sum())), pi_sum, np.array(float(one.sum())), len(pi))
    assert float(ac1) == pytest.approx(0.7754, abs=5e-5)


def test_gwet_ac1_against_irrcac_dataset_itself():
    """irrCAC ships the same data (rater 3 holds unit 12's lone value instead of rater 2 — a single
    value is never paired, so every coefficient is the same)."""
    from irrCAC.datasets import raw_4raters

    frame = raw_4raters()
    builder = RatingsBuilder()
    for unit, row in frame.iterrows():
        for rater, value in row.items():
            if value == value:  # not NaN
                builder.add("crit", f"unit{int(unit):02d}", rater, str(int(value)))
    pooled = analyse(builder.build()).pooled
    assert pooled["gwet_ac1"] == pytest.approx(0.7754, abs=5e-5)
    assert pooled["krippendorff_alpha"] == pytest.approx(0.743421, abs=1e-6)


BONNARDEL = [[25, 3, 5], [6, 32, 8], [1, 0, 20]]
FLEISS = [[75, 1, 4], [5, 4, 1], [0, 0, 10]]  # proportions .75 .01 .04 / .05 .04 .01 / 0 0 .10, n = 100


def test_cohen_kappa_with_standard_errors_bonnardel():
    ratings = _from_confusion(BONNARDEL)
    pooled = analyse(ratings).pooled
    assert pooled["confusion"]["counts"] == BONNARDEL
    assert pooled["n"] == 100 and pooled["agree"] == 77
    assert pooled["percent"] == pytest.approx(77.0)  # Po = 0.770
    assert pooled["cohen_kappa"] == pytest.approx(0.654, abs=5e-4)
    assert pooled["cohen_kappa_se"] == pytest.approx(0.062, abs=5e-4)
    assert pooled["cohen_kappa_se0"] == pytest.approx(0.069, abs=5e-4)
    table = np.array(BONNARDEL)
    p = table / table.sum()
    assert float(p.sum(axis=1) @ p.sum(axis=0)) == pytest.approx(0.336, abs=5e-4)  # Pe
    assert float(co.cohen_kappa(table)) == pytest.approx(0.654, abs=5e-4)
    se, se0 = co.cohen_kappa_se(table)
    assert (se, se0) == pytest.approx((0.062, 0.069), abs=5e-4)


def test_cohen_kappa_with_standard_error_fleiss():
    pooled = analyse(_from_confusion(FLEISS)).pooled
    assert pooled["percent"] == pytest.approx(89.0)
    assert pooled["cohen_kappa"] == pytest.approx(0.676, abs=5e-4)
    assert pooled["cohen_kappa_se"] == pytest.approx(0.088, abs=5e-4)
    assert float(co.cohen_kappa(np.array(FLEISS))) == pytest.approx(0.676, abs=5e-4)
    assert co.cohen_kappa_se(np.array(FLEISS))[0] == pytest.approx(0.088, abs=5e-4)


def test_cohen_kappa_is_vectorised_over_replicates():
    """The bootstrap feeds stacks of tables; each entry equals the single-table value."""
    stack = np.stack([np.array(BONNARDEL), np.array(FLEISS), np.zeros((3, 3))])
    values = co.cohen_kappa(stack)
    assert values[0] == pytest.approx(float(co.cohen_kappa(np.array(BONNARDEL))))
    assert values[1] == pytest.approx(float(co.cohen_kappa(np.array(FLEISS))))
    assert np.isnan(values[2])  # no pairs: undefined
