"""Scores corrected for the judge's measured error (Rogan–Gladen), with a cluster-bootstrap interval.

A judge's pass on a criterion whose truth is t has probability se·t + (1 − sp)·(1 − t), so
(x + sp − 1) / (se + sp − 1) is unbiased for t (Rogan & Gladen 1978). A rubric's score is linear
in its verdicts, so the corrected score is the raw one with every judge-decided verdict x
replaced by that value; the verdicts the people settled are kept as they are:

    corrected = clip(100 · (Σ_people w·h + Σ_c (Σ_judge,c w·x + (sp_c − 1)·Σ_judge,c w) / (se_c + sp_c − 1)) / W+)

with c the class of a criterion whose error rates are used (every criterion one class, or its
target). The interval resamples the expert-checked decisions by item (the agreement code's
cluster bootstrap), re-measures se and sp in each replicate and takes its 2.5th–97.5th
percentiles. See docs/scoring.md, "Scores corrected for the judge's error".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from studio.agreement.analysis import percentile_interval, resample_weights
from studio.agreement.certification import Checked, ErrorRates

POOLED = "all criteria"


@dataclass(frozen=True)
class RubricCredit:
    """One rubric of one run, its credit split by whose verdict counts."""

    system: str
    submission: str
    scope: str
    raw: float | None  # the engine's score; None when missing verdicts leave it open
    positive: float  # W+
    settled_credit: float = 0.0  # Σ w·h over the criteria the people settled
    judged_credit: Mapping[str, float] = field(default_factory=dict)  # class -> Σ w·x of the judge's verdicts
    judged_weight: Mapping[str, float] = field(default_factory=dict)  # class -> Σ w of those criteria
    not_corrected: str | None = None  # why the raw score stands uncorrected (a gate, missing verdicts)
    gate_triggered: bool = False  # a fatal gate's 0 stands: the corrected score is 0 too


@dataclass(frozen=True)
class CorrectedScore:
    system: str
    submission: str
    scope: str
    raw: float | None
    corrected: float | None  # None: undefined or unknown (`reason` says which)
    interval: list[float] | None  # 95% bootstrap percentile interval; None without --bootstrap
    undefined_resamples: int = 0
    reason: str | None = None

    def to_json(self) -> dict:
        return {"system": self.system, "submission": self.submission, "scope": self.scope,
                "raw": _r(self.raw), "corrected": _r(self.corrected), "bootstrap95": self.interval,
                "undefined_resamples": self.undefined_resamples, "reason": self.reason}


def rates_problem(rates: ErrorRates, where: str) -> str | None:
    """Why the correction is undefined with these rates, or None."""
    if rates.decisions == 0:
        return f"no decision{where} is checked by experts: the judge's error is not measured"
    if rates.sensitivity is None:
        return (f"no checked decision{where} the experts passed: the judge's sensitivity is unknown, "
                "so the correction is undefined")
    if rates.specificity is None:
        return (f"no checked decision{where} the experts failed: the judge's specificity is unknown, "
                "so the correction is undefined")
    youden = rates.youden()
    if youden is not None and youden <= 0:
        return (f"sensitivity + specificity - 1 = {youden:.3f}{where}: the judge does no better than chance, "
                "so its verdicts cannot be corrected")
    return None


class Correction:
    """Error rates per class from the checked decisions, and their bootstrap replicates."""

    def __init__(self, checked: Sequence[Checked], class_of: Callable[[Checked], str], resamples: int = 0,
                 seed: int = 0):
        self.classes = sorted({class_of(entry) for entry in checked})
        self.rates = {c: ErrorRates.of(e for e in checked if class_of(e) == c) for c in self.classes}
        self.resamples = resamples
        self.replicates: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if resamples and checked:
            items = sorted({entry.item for entry in checked})
            index = {item: i for i, item in enumerate(items)}
            weights = resample_weights(len(items), resamples, seed)  # resamples x items
            for c in self.classes:
                counts = np.zeros((len(items), 4))  # tp, fn, tn, fp per item
                cell = {("pass", "pass"): 0, ("fail", "pass"): 1, ("fail", "fail"): 2, ("pass", "fail"): 3}
                for entry in checked:
                    if class_of(entry) == c:
                        counts[index[entry.item], cell[(entry.judged, entry.settled)]] += 1
                tp, fn, tn, fp = (weights @ counts).T
                with np.errstate(invalid="ignore", divide="ignore"):
                    self.replicates[c] = (tp / (tp + fn), tn / (tn + fp))

    def problem(self, c: str, label: str) -> str | None:
        rates = self.rates.get(c, ErrorRates(0, 0, 0, 0))
        return rates_problem(rates, "" if c == POOLED else f" of {label} {c}")

    def correct(self, credit: RubricCredit, label: str) -> tuple[float | None, np.ndarray | None, str | None]:
        """(corrected score, its replicates or None, why undefined)."""
        if credit.not_corrected is not None:
            return (credit.raw if credit.gate_triggered else None), None, credit.not_corrected
        used = [c for c, weight in credit.judged_weight.items() if weight != 0 or credit.judged_credit.get(c)]
        for c in used:
            problem = self.problem(c, label)
            if problem is not None:
                return None, None, problem
        total = credit.settled_credit
        for c in used:
            rates = self.rates[c]
            specificity, youden = rates.specificity, rates.youden()
            assert specificity is not None and youden is not None  # self.problem() found none
            total += (credit.judged_credit.get(c, 0.0) + (specificity - 1.0) * credit.judged_weight[c]) / youden
        point = float(np.clip(100.0 * total / credit.positive, 0.0, 100.0))
        if not self.resamples:
            return point, None, None
        values = np.full(self.resamples, credit.settled_credit)
        for c in used:
            sens, spec = self.replicates[c]
            youden = sens + spec - 1.0
            with np.errstate(invalid="ignore", divide="ignore"):
                part = (credit.judged_credit.get(c, 0.0) + (spec - 1.0) * credit.judged_weight[c]) / youden
            values = values + np.where(youden > 0, part, np.nan)
        with np.errstate(invalid="ignore"):
            values = np.clip(100.0 * values / credit.positive, 0.0, 100.0)
        return point, values, None


def class_of(by: str) -> Callable[[Checked], str]:
    """The class whose error rates correct a criterion: every criterion one (`pooled`), or its group `by`."""
    return (lambda entry: POOLED) if by == "pooled" else (lambda entry: entry.groups.get(by, ""))


def corrected_scores(credits: Sequence[RubricCredit], checked: Sequence[Checked], by: str = "pooled",
                     resamples: int = 0, seed: int = 0) -> list[CorrectedScore]:
    """Every rubric's corrected score, then each run's process score (the mean of its checkpoints')."""
    correction = Correction(checked, class_of(by), resamples, seed)
    out: list[CorrectedScore] = []
    per_run: dict[str, list[tuple[float | None, np.ndarray | None, str | None]]] = {}
    for credit in credits:
        point, values, reason = correction.correct(credit, by)
        out.append(_score(credit.system, credit.submission, credit.scope, credit.raw, point, values, reason))
        if credit.scope != "final":
            per_run.setdefault(credit.submission, []).append((point, values, reason))
    systems = {credit.submission: credit.system for credit in credits}
    raws: dict[str, list[float | None]] = {}
    for credit in credits:
        if credit.scope != "final":
            raws.setdefault(credit.submission, []).append(credit.raw)
    for submission, parts in per_run.items():
        raw_values = raws[submission]
        raw = sum(raw_values) / len(raw_values) if None not in raw_values else None  # type: ignore[arg-type]
        reason = next((why for point, _, why in parts if point is None), None)
        if reason is not None:
            out.append(CorrectedScore(systems[submission], submission, "process", raw, None, None, 0,
                                      f"a checkpoint score is not corrected: {reason}"))
            continue
        point = sum(p for p, _, _ in parts) / len(parts)  # type: ignore[misc]
        values = None
        if resamples:
            values = np.mean([v if v is not None else np.full(resamples, p) for p, v, _ in parts], axis=0)
        out.append(_score(systems[submission], submission, "process", raw, point, values, None))
    return out


def _score(system: str, submission: str, scope: str, raw: float | None, point: float | None,
           values: np.ndarray | None, reason: str | None) -> CorrectedScore:
    if values is None:
        return CorrectedScore(system, submission, scope, raw, point, None, 0, reason)
    found = percentile_interval(values)
    return CorrectedScore(system, submission, scope, raw, point, found["interval"], found["undefined_resamples"],
                          reason)


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
