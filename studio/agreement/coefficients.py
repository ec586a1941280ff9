"""Agreement coefficients from count totals, vectorised over bootstrap replicates.

Every function takes totals whose last axes are the counts and returns a value per leading
index (one per replicate), with NaN where the coefficient is undefined — never 0 or 1.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def _safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def wilson(agree: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for a proportion agree/n (None when n = 0); `agree` may be an expected
    share times n (the double-coding plan sizes from it)."""
    if n <= 0:
        return None
    p = agree / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percent_from_confusion(confusion: np.ndarray) -> np.ndarray:
    """Share of agreeing pairs, ×100, from (..., q, q) confusion counts."""
    n = confusion.sum(axis=(-2, -1))
    return 100.0 * _safe_divide(np.trace(confusion, axis1=-2, axis2=-1), n)


def cohen_kappa(confusion: np.ndarray) -> np.ndarray:
    """Cohen's kappa from (..., q, q) counts (rows: rater A, columns: rater B)."""
    n = confusion.sum(axis=(-2, -1))
    p = _safe_divide(confusion, n[..., None, None])
    po = np.trace(p, axis1=-2, axis2=-1)
    pe = (p.sum(axis=-1) * p.sum(axis=-2)).sum(axis=-1)
    return np.where(n > 0, _safe_divide(po - pe, 1.0 - pe), np.nan)  # no pairs (even no categories): undefined


def cohen_kappa_se(confusion: np.ndarray) -> tuple[float, float]:
    """Large-sample standard errors of kappa (Fleiss, Cohen & Everitt 1969): (se, se under
    the null hypothesis kappa = 0). NaN where undefined."""
    confusion = np.asarray(confusion, dtype=float)
    n = confusion.sum()
    if n == 0:
        return math.nan, math.nan
    p = confusion / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po, pe = np.trace(p), float(rows @ cols)
    if pe >= 1.0:
        return math.nan, math.nan
    q = len(p)
    diag = sum(p[i, i] * ((1 - pe) - (rows[i] + cols[i]) * (1 - po)) ** 2 for i in range(q))
    off = (1 - po) ** 2 * sum(p[i, j] * (cols[i] + rows[j]) ** 2 for i in range(q) for j in range(q) if i != j)
    var = (diag + off - (po * pe - 2 * pe + po) ** 2) / (n * (1 - pe) ** 4)
    var0 = (pe + pe * pe - float(np.sum(rows * cols * (rows + cols)))) / (n * (1 - pe) ** 2)
    return math.sqrt(max(var, 0.0)), math.sqrt(max(var0, 0.0))


def gwet_ac1_pair(confusion: np.ndarray, q: int) -> np.ndarray:
    """Gwet's AC1 for two raters from (..., q, q) counts on a q-category scale."""
    if q < 2:
        return np.full(confusion.shape[:-2], np.nan)
    n = confusion.sum(axis=(-2, -1))
    p = _safe_divide(confusion, n[..., None, None])
    pa = np.trace(p, axis1=-2, axis2=-1)
    pi = (p.sum(axis=-1) + p.sum(axis=-2)) / 2.0
    pe = (pi * (1.0 - pi)).sum(axis=-1) / (q - 1)
    return _safe_divide(pa - pe, 1.0 - pe)


def gwet_ac1(pa_sum: np.ndarray, n2: np.ndarray, pi_sum: np.ndarray, n1: np.ndarray, q: int) -> np.ndarray:
    """Gwet's AC1 for any number of raters with missing ratings (Gwet 2008 / irrCAC's raw
    estimator), from unit sums: pa_sum = Σ Σ_k r_k(r_k-1)/(r(r-1)) over units with r ≥ 2
    (n2 of them), pi_sum[k] = Σ r_k/r over units with r ≥ 1 (n1 of them)."""
    if q < 2:
        return np.full(np.shape(n2), np.nan)
    pa = _safe_divide(pa_sum, n2)
    pi = _safe_divide(pi_sum, np.asarray(n1, dtype=float)[..., None])
    pe = (pi * (1.0 - pi)).sum(axis=-1) / (q - 1)
    return _safe_divide(pa - pe, 1.0 - pe)


def krippendorff_alpha(coincidence: np.ndarray) -> np.ndarray:
    """Nominal Krippendorff's alpha from the (..., q, q) coincidence matrix."""
    n_c = coincidence.sum(axis=-1)
    n = n_c.sum(axis=-1)
    observed = coincidence.sum(axis=(-2, -1)) - np.trace(coincidence, axis1=-2, axis2=-1)
    expected = (n * n - (n_c * n_c).sum(axis=-1)) / np.where(n > 1, n - 1, np.nan)
    return 1.0 - _safe_divide(observed, expected)
