"""Agreement between raters, pooled and by target, dimension and project, with intervals.

Each decision contributes additive sufficient statistics (features); a block of decisions is
summed per item, and the bootstrap resamples items (clusters) by drawing item counts and
multiplying — so point estimates and every replicate come from one code path.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from studio.agreement import coefficients as co
from studio.agreement.ratings import FAIL, MISSING, PASS, Ratings, coded
from studio.agreement.results import (
    AgreementReport,
    Block,
    BootstrapInterval,
    BootstrapSetting,
    Confusion,
    Disagreement,
    JudgeRates,
    PairAgreement,
    PairMean,
)

JUDGE = "judge"
MAX_DISAGREEMENTS = 10_000
# Up to this many possible rows of codes, features are computed per pattern, not per decision.
MAX_PATTERNS = 4096


@dataclass
class Layout:
    """Where each statistic sits in the feature vector of a decision."""

    q: int
    pairs: list[tuple[int, int]]
    main: str  # "pair" (two raters), "judge" (judge vs pooled experts) or "none"

    @property
    def width(self) -> int:
        return self.q * self.q * 2 + self.q + 4 + 2 * len(self.pairs)

    def slices(self) -> dict[str, slice]:
        q2, q = self.q * self.q, self.q
        bounds = {"pa": 1, "n2": 1, "pi": q, "n1": 1, "coincidence": q2, "confusion": q2, "unanimous": 1,
                  "pairs": 2 * len(self.pairs)}
        out, start = {}, 0
        for name, size in bounds.items():
            out[name] = slice(start, start + size)
            start += size
        return out


def _features(codes: np.ndarray, layout: Layout, judge: int | None) -> np.ndarray:
    """The features of each row of rating codes (decisions x raters)."""
    n, q = codes.shape[0], layout.q
    rated = codes != MISSING
    counts = np.zeros((n, q))
    for k in range(q):
        counts[:, k] = (codes == k).sum(axis=1)
    r = rated.sum(axis=1).astype(float)
    two, one = r >= 2, r >= 1
    # Column-major: every feature is written as one contiguous column.
    f = np.zeros((n, layout.width), order="F")
    s = layout.slices()
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide((counts * (counts - 1)).sum(axis=1), r * (r - 1), out=f[:, s["pa"].start], where=two)
        for k in range(q):
            np.divide(counts[:, k], r, out=f[:, s["pi"].start + k], where=one)
            for c in range(q):
                pair = counts[:, c] * counts[:, k] - (counts[:, c] if c == k else 0.0)
                np.divide(pair, r - 1, out=f[:, s["coincidence"].start + c * q + k], where=two)
    f[:, s["n2"].start] = two
    f[:, s["n1"].start] = one
    f[:, s["unanimous"].start] = two & (counts.max(axis=1, initial=0) == r)  # initial: no categories at all
    if layout.main == "pair":
        _add_confusion(f, s["confusion"].start, codes[:, 0], codes[:, 1], rated[:, 0] & rated[:, 1], q)
    elif layout.main == "judge":
        for e in range(codes.shape[1]):
            if e != judge:
                _add_confusion(f, s["confusion"].start, codes[:, judge], codes[:, e], rated[:, judge] & rated[:, e], q)
    for p, (i, j) in enumerate(layout.pairs):
        both = rated[:, i] & rated[:, j]
        f[:, s["pairs"].start + 2 * p] = both
        f[:, s["pairs"].start + 2 * p + 1] = both & (codes[:, i] == codes[:, j])
    return f


def _add_confusion(f: np.ndarray, start: int, a: np.ndarray, b: np.ndarray, both: np.ndarray, q: int) -> None:
    """Add one count per decision rated by both, in the confusion cell (a, b)."""
    cell = np.where(both, a.astype(np.int32) * q + b, -1)
    for v in range(q * q):
        f[:, start + v] += cell == v


def _coefficients(totals: np.ndarray, layout: Layout) -> dict[str, np.ndarray]:
    """Every bootstrapped coefficient from feature totals (..., width)."""
    s, q = layout.slices(), layout.q
    confusion = totals[..., s["confusion"]].reshape(totals.shape[:-1] + (q, q))
    out = {
        "gwet_ac1": co.gwet_ac1(totals[..., s["pa"].start], totals[..., s["n2"].start], totals[..., s["pi"]],
                                totals[..., s["n1"].start], q),
        "krippendorff_alpha": co.krippendorff_alpha(totals[..., s["coincidence"]].reshape(totals.shape[:-1] + (q, q))),
    }
    if layout.main == "pair":
        out["cohen_kappa"] = co.cohen_kappa(confusion)
        out["percent"] = co.percent_from_confusion(confusion)
    else:
        pair_totals = totals[..., s["pairs"]].reshape(totals.shape[:-1] + (len(layout.pairs), 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            per_pair = 100.0 * pair_totals[..., 1] / pair_totals[..., 0]
        out["percent"] = _nanmean_or_nan(per_pair)
        # The headline: every decision pair pooled, so a rater with three verdicts weighs three
        # decisions, not a third of the mean (issue 21). With a judge, its pairs with the experts
        # (the pooled confusion); without one, every rater pair.
        if layout.main == "judge":
            out["pooled_percent"] = co.percent_from_confusion(confusion)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                out["pooled_percent"] = 100.0 * pair_totals[..., 1].sum(axis=-1) / pair_totals[..., 0].sum(axis=-1)
    return out


def _nanmean_or_nan(values: np.ndarray) -> np.ndarray:
    valid = ~np.isnan(values)
    count = valid.sum(axis=-1)
    total = np.where(valid, values, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _num(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else round(value, 6)


def resample_weights(n_items: int, resamples: int, seed: int) -> np.ndarray:
    """Item multiplicities of `resamples` cluster-bootstrap samples (rows), drawn in chunks."""
    rng = np.random.default_rng(seed)
    weights = np.empty((resamples, n_items))
    chunk = max(1, min(resamples, 4_000_000 // max(n_items, 1)))
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        picks = rng.integers(0, n_items, size=(size, n_items)) + (np.arange(size) * n_items)[:, None]
        weights[start:start + size] = np.bincount(picks.ravel(), minlength=size * n_items).reshape(size, n_items)
    return weights


class _Groups:
    """Decisions split into G groups (code per decision, -1 for none), with every count a
    block needs summed per group in one bincount pass each, instead of one copy of the
    decisions per group."""

    def __init__(self, analysis: Analysis, code: np.ndarray, size: int):
        ratings, q = analysis.ratings, analysis.q
        self.size = size
        member = code >= 0
        self.code = code[member]
        codes = ratings.codes[member]
        self.decisions = np.bincount(self.code, minlength=size)
        # Feature sums per (group, item): the point estimates and the bootstrap's clusters.
        n_items = len(ratings.item_names)
        slot = self.code.astype(np.int64) * n_items + ratings.items[member]
        if analysis.pattern is not None:
            # Count the rating patterns per (group, item); their features times the counts.
            patterns = len(analysis.pattern_features)
            slot = slot * patterns + analysis.pattern[member]
            counts = np.bincount(slot, minlength=size * n_items * patterns).reshape(size * n_items, patterns)
            del slot
            self.per_item = (counts @ analysis.pattern_features).reshape(size, n_items, -1)
            del counts
        else:
            features = analysis.decision_features[member]
            self.per_item = np.empty((size, n_items, features.shape[1]))
            for k in range(features.shape[1]):
                self.per_item[:, :, k] = np.bincount(slot, weights=features[:, k],
                                                     minlength=size * n_items).reshape(size, n_items)
            del slot, features
        rated = codes != MISSING
        self.pass_code = ratings.categories.index(PASS) if PASS in ratings.categories else None
        self.rated = [np.bincount(self.code[rated[:, r]], minlength=size) for r in range(codes.shape[1])]
        self.passed = ([np.bincount(self.code[codes[:, r] == self.pass_code], minlength=size)
                        for r in range(codes.shape[1])] if self.pass_code is not None else None)
        # Confusion of every rater pair per group: rows rater i, columns rater j.
        self.confusion: dict[tuple[int, int], np.ndarray] = {}
        for i, j in combinations(range(codes.shape[1]), 2):
            both = rated[:, i] & rated[:, j]
            cell = self.code[both].astype(np.int64) * q * q + codes[both, i].astype(np.int64) * q + codes[both, j]
            self.confusion[(i, j)] = np.bincount(cell, minlength=size * q * q).reshape(size, q, q)

    def pair(self, i: int, j: int, group: int) -> np.ndarray:
        """Confusion of raters i (rows) and j (columns) in one group."""
        return self.confusion[(i, j)][group] if i < j else self.confusion[(j, i)][group].T


class Analysis:
    """Agreement statistics of one rating set; blocks share one set of bootstrap draws."""

    def __init__(self, ratings: Ratings, judge: str | None = None, resamples: int = 0, seed: int = 0):
        self.ratings = ratings
        self.q = len(ratings.categories)
        names = ratings.raters
        if judge is not None and judge not in names:
            raise ValueError(f"no rater named '{judge}' (raters: {', '.join(names)})")
        if judge is None and JUDGE in names:
            judge = JUDGE
        self.judge = judge
        self.judge_index = names.index(judge) if judge is not None else None
        pairs = list(combinations(range(len(names)), 2))
        main = "pair" if len(names) == 2 else "judge" if judge is not None else "none"
        self.layout = Layout(self.q, pairs, main)
        # A decision's features depend only on its row of codes, and few rows of codes are
        # possible ((q+1)^raters): compute each pattern's features once and count patterns.
        base, raters = self.q + 1, len(names)
        self.pattern: np.ndarray | None = None
        if base ** raters <= MAX_PATTERNS:
            place = base ** np.arange(raters, dtype=np.int64)
            pattern = (ratings.codes.astype(np.int64) + 1) @ place
            present = np.flatnonzero(np.bincount(pattern, minlength=base ** raters))
            number = np.zeros(base ** raters, dtype=np.int64)
            number[present] = np.arange(len(present))
            self.pattern = number[pattern]
            rows = (present[:, None] // place) % base - 1
            self.pattern_features = _features(rows.astype(np.int16), self.layout, self.judge_index)
        else:
            self.decision_features = _features(ratings.codes, self.layout, self.judge_index)
        self.resamples, self.seed = resamples, seed
        self.weights = resample_weights(len(ratings.item_names), resamples, seed) if resamples else None

    # -- blocks ----------------------------------------------------------------------------
    def block(self, mask: np.ndarray | None = None) -> Block:
        """The statistics of the decisions in `mask` (all when None)."""
        if mask is None:
            return self._blocks(np.zeros(self.ratings.n_decisions, dtype=np.int64), 1)[0]
        return self._blocks(np.where(mask, 0, -1), 1)[0]

    def _blocks(self, code: np.ndarray, size: int) -> list[Block]:
        """The block of each of `size` groups, decisions coded by group (-1: in none)."""
        groups = _Groups(self, code, size)
        blocks = [self._block(groups, g) for g in range(size)]
        if self.weights is not None:
            # Every group's replicates in one product: (resamples x items) @ (items x groups*width).
            width = groups.per_item.shape[2]
            by_item = np.ascontiguousarray(groups.per_item.transpose(1, 0, 2)).reshape(-1, size * width)
            replicates_all = (self.weights @ by_item).reshape(len(self.weights), size, width)
            del by_item
            for g, block in enumerate(blocks):
                replicates = _coefficients(replicates_all[:, g, :], self.layout)
                block["bootstrap95"] = {name: percentile_interval(values) for name, values in replicates.items()}
        return blocks

    def _block(self, groups: _Groups, g: int) -> Block:
        ratings, layout, q = self.ratings, self.layout, self.q
        totals = groups.per_item[g].sum(axis=0)
        point = _coefficients(totals, layout)
        s = layout.slices()
        n2, unanimous = int(totals[s["n2"].start]), int(totals[s["unanimous"].start])
        confusion = np.rint(totals[s["confusion"]]).reshape(q, q).astype(int)
        result: Block = {"raters": len(ratings.raters), "decisions": int(groups.decisions[g])}
        if layout.main == "pair":
            n, agree = int(confusion.sum()), int(np.trace(confusion))
            se, se0 = co.cohen_kappa_se(confusion)
            result |= {"n": n, "agree": agree, "percent": _num(point["percent"]), "percent_basis": "two raters",
                       "pooled_n": n, "pooled_agree": agree, "pooled_percent": _num(point["percent"]),
                       "pooled_basis": "two raters",
                       "wilson95": _interval(co.wilson(agree, n), scale=100.0),
                       "cohen_kappa": _num(point["cohen_kappa"]), "cohen_kappa_se": _num(se),
                       "cohen_kappa_se0": _num(se0)}
        else:
            # With more than two raters, percent is the mean over rater pairs; n and agree
            # count decisions rated at least twice and those on which all raters agree.
            pooled_n, pooled_agree = self._pooled_pairs(totals, confusion)
            result |= {"n": n2, "agree": unanimous, "percent": _num(point["percent"]),
                       "percent_basis": "mean over rater pairs",
                       "pooled_n": pooled_n, "pooled_agree": pooled_agree, "pooled_percent": _num(point["pooled_percent"]),
                       "pooled_basis": "judge-expert decision pairs" if layout.main == "judge" else "rater decision pairs",
                       "unanimous_percent": _num(100.0 * unanimous / n2) if n2 else None,
                       "unanimous_wilson95": _interval(co.wilson(unanimous, n2), scale=100.0),
                       "wilson95": None, "cohen_kappa": None, "cohen_kappa_se": None, "cohen_kappa_se0": None}
        result["gwet_ac1"] = _num(point["gwet_ac1"])
        result["krippendorff_alpha"] = _num(point["krippendorff_alpha"])
        result["confusion"] = self._confusion_block(confusion)
        result["pass_rates"] = self._pass_rates(groups, g)
        if self.judge_index is not None:
            result["judge_vs_experts"] = self._judge_rates(groups, g)
        if len(ratings.raters) > 2:
            result |= self._pairwise(groups, g)
        return result

    def _pooled_pairs(self, totals: np.ndarray, confusion: np.ndarray) -> tuple[int, int]:
        """(decision pairs, agreeing pairs) behind the pooled percent: the judge's with each expert
        (its confusion), or without a judge every rater pair's."""
        if self.layout.main == "judge":
            return int(confusion.sum()), int(np.trace(confusion))
        pairs = totals[self.layout.slices()["pairs"]].reshape(len(self.layout.pairs), 2)
        return int(round(pairs[:, 0].sum())), int(round(pairs[:, 1].sum()))

    def _confusion_block(self, confusion: np.ndarray) -> Confusion | None:
        names = self.ratings.raters
        rows: str | None
        if self.layout.main == "pair":
            rows, columns = names[0], names[1]
        elif self.layout.main == "judge":
            rows, columns = self.judge, "experts (pooled)"
        else:
            return None
        return {"rows": rows, "columns": columns, "labels": list(self.ratings.categories), "counts": confusion.tolist()}

    def _pass_rates(self, groups: _Groups, g: int) -> dict[str, float | None]:
        if groups.passed is None:
            return {name: None for name in self.ratings.raters}
        out = {}
        for r, name in enumerate(self.ratings.raters):
            rated = int(groups.rated[r][g])
            out[name] = _num(int(groups.passed[r][g]) / rated) if rated else None
        return out

    def _judge_rates(self, groups: _Groups, g: int) -> JudgeRates | None:
        cats, judge = self.ratings.categories, self.judge_index
        if PASS not in cats or FAIL not in cats or judge is None:
            return None
        p, f = cats.index(PASS), cats.index(FAIL)
        expert_fail = expert_pass = false_pass = false_fail = 0
        for e in range(len(self.ratings.raters)):
            if e == judge:
                continue
            confusion = groups.pair(judge, e, g)  # rows: the judge; columns: the expert
            expert_fail += int(confusion[:, f].sum())
            expert_pass += int(confusion[:, p].sum())
            false_pass += int(confusion[p, f])
            false_fail += int(confusion[f, p])
        return {"false_pass_rate": _num(false_pass / expert_fail) if expert_fail else None,
                "false_fail_rate": _num(false_fail / expert_pass) if expert_pass else None,
                "false_pass": false_pass, "expert_fail": expert_fail,
                "false_fail": false_fail, "expert_pass": expert_pass}

    def _pairwise(self, groups: _Groups, g: int) -> Block:
        names, q = self.ratings.raters, self.q
        matrix: dict[str, PairAgreement] = {}
        for i, j in self.layout.pairs:
            confusion = groups.pair(i, j, g)
            n = int(confusion.sum())
            matrix[f"{names[i]}|{names[j]}"] = {
                "a": names[i], "b": names[j], "n": n, "agree": int(np.trace(confusion)),
                "percent": _num(co.percent_from_confusion(confusion)),
                "cohen_kappa": _num(co.cohen_kappa(confusion)), "gwet_ac1": _num(co.gwet_ac1_pair(confusion, q)),
            }
        out: Block = {"pairwise": matrix}
        if self.judge is not None:
            judge_pairs = [v for v in matrix.values() if self.judge in (v["a"], v["b"])]
            expert_pairs = [v for v in matrix.values() if self.judge not in (v["a"], v["b"])]
            out["judge_expert"] = _mean_pairs(judge_pairs)
            out["expert_expert"] = _mean_pairs(expert_pairs)
        return out

    # -- the whole report -------------------------------------------------------------------
    def report(self) -> AgreementReport:
        ratings = self.ratings
        by: dict[str, dict[str, Block]] = {}
        for attribute, key in (("target", "by_target"), ("dimension", "by_dimension"), ("project", "by_project")):
            values = ratings.attributes.get(attribute)
            groups: dict[str, Block] = {}
            if values is not None:
                column = coded(values)
                groups = dict(zip(column.names, self._blocks(column.codes, len(column.names)), strict=True))
            by[key] = groups
        bootstrap: BootstrapSetting | None = (
            {"resamples": self.resamples, "seed": self.seed, "unit": "item"} if self.resamples else None)
        return AgreementReport(
            raters=ratings.raters, categories=ratings.categories, judge=self.judge, decisions=ratings.n_decisions,
            items=len(ratings.item_names), bootstrap=bootstrap, pooled=self.block(), by_target=by["by_target"],
            by_dimension=by["by_dimension"], by_project=by["by_project"], disagreements=self.disagreements())

    def disagreements(self) -> list[Disagreement]:
        ratings = self.ratings
        codes = ratings.codes
        present = codes != MISSING
        lo = np.where(present, codes, np.iinfo(np.int16).max).min(axis=1)
        hi = np.where(present, codes, -1).max(axis=1)
        rows = np.flatnonzero((present.sum(axis=1) >= 2) & (lo != hi))[:MAX_DISAGREEMENTS]
        out = []
        for d in rows:
            entry: Disagreement = {"criterion": ratings.criteria[d], "item": ratings.item_names[ratings.items[d]]}
            for attribute, values in ratings.attributes.items():
                entry[attribute] = values[d]
            entry["ratings"] = {name: (ratings.categories[c] if c != MISSING else None)
                                for name, c in zip(ratings.raters, codes[d], strict=False)}
            out.append(entry)
        return out


def _interval(bounds: tuple[float, float] | None, scale: float = 1.0) -> list[float] | None:
    return None if bounds is None else [round(bounds[0] * scale, 6), round(bounds[1] * scale, 6)]


def percentile_interval(values: np.ndarray) -> BootstrapInterval:
    defined = values[~np.isnan(values)]
    if defined.size == 0:
        return {"interval": None, "undefined_resamples": int(values.size)}
    lo, hi = np.percentile(defined, [2.5, 97.5])
    return {"interval": [round(float(lo), 6), round(float(hi), 6)],
            "undefined_resamples": int(values.size - defined.size)}


def _mean_pairs(pairs: list[PairAgreement]) -> PairMean | None:
    if not pairs:
        return None
    def mean(key: Literal["percent", "cohen_kappa", "gwet_ac1"]) -> float | None:
        values = [value for value in (p[key] for p in pairs) if value is not None]
        return round(sum(values) / len(values), 6) if values else None

    return {"pairs": len(pairs), "percent": mean("percent"), "cohen_kappa": mean("cohen_kappa"),
            "gwet_ac1": mean("gwet_ac1")}


def analyse(ratings: Ratings, judge: str | None = None, resamples: int = 0, seed: int = 0) -> AgreementReport:
    """The full agreement report (its to_json() is the documented JSON structure)."""
    return Analysis(ratings, judge, resamples, seed).report()
