"""Judges you can vouch for: a judge's sensitivity and specificity against the people's settled
verdicts, with Wilson score intervals, and its certification for a scope.

Sensitivity is P(judge pass | people pass), specificity P(judge fail | people fail). A judge is
*certified* for a scope only when the lower 95% Wilson bounds of both reach the threshold the
user sets; with too few checked decisions of a class, even perfect agreement could not reach it,
and the judge is "not enough expert verdicts", never certified by default.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from studio.agreement import coefficients as co

PASS, FAIL = "pass", "fail"
CERTIFIED, NOT_CERTIFIED, NOT_ENOUGH = "certified", "not certified", "not enough expert verdicts"
INTERVAL_METHOD = "Wilson score interval, 95%"


@dataclass(frozen=True)
class Checked:
    """One judge's pass/fail on a decision the people settled (adjudicated, else agreeing experts)."""

    judge: str
    judged: str  # the judge's pass/fail
    settled: str  # the people's pass/fail
    decision: tuple[str, ...]  # what was decided (e.g. submission, scope, criterion): judges are compared on it
    item: str  # the bootstrap's cluster (a submission's scope)
    groups: Mapping[str, str] = field(default_factory=dict)  # e.g. target, dimension


@dataclass(frozen=True)
class ErrorRates:
    """The judge-people confusion counts of a set of checked decisions, and what they give."""

    true_pass: int  # judge pass, people pass
    false_fail: int  # judge fail, people pass
    true_fail: int  # judge fail, people fail
    false_pass: int  # judge pass, people fail

    @classmethod
    def of(cls, checked: Iterable[Checked]) -> ErrorRates:
        counts = {(PASS, PASS): 0, (FAIL, PASS): 0, (FAIL, FAIL): 0, (PASS, FAIL): 0}
        for entry in checked:
            counts[(entry.judged, entry.settled)] += 1
        return cls(counts[(PASS, PASS)], counts[(FAIL, PASS)], counts[(FAIL, FAIL)], counts[(PASS, FAIL)])

    @property
    def people_pass(self) -> int:
        return self.true_pass + self.false_fail

    @property
    def people_fail(self) -> int:
        return self.true_fail + self.false_pass

    @property
    def decisions(self) -> int:
        return self.people_pass + self.people_fail

    @property
    def sensitivity(self) -> float | None:
        return self.true_pass / self.people_pass if self.people_pass else None

    @property
    def specificity(self) -> float | None:
        return self.true_fail / self.people_fail if self.people_fail else None

    @property
    def agreement(self) -> float | None:
        return (self.true_pass + self.true_fail) / self.decisions if self.decisions else None

    def sensitivity_interval(self) -> tuple[float, float] | None:
        return co.wilson(self.true_pass, self.people_pass)

    def specificity_interval(self) -> tuple[float, float] | None:
        return co.wilson(self.true_fail, self.people_fail)

    def agreement_interval(self) -> tuple[float, float] | None:
        return co.wilson(self.true_pass + self.true_fail, self.decisions)

    def kappa(self) -> float | None:
        """Cohen's kappa of judge and people (None where undefined, e.g. one class only)."""
        confusion = np.array([[self.true_pass, self.false_pass], [self.false_fail, self.true_fail]])
        value = float(co.cohen_kappa(confusion))
        return None if math.isnan(value) else value

    def youden(self) -> float | None:
        """sensitivity + specificity - 1: the denominator of the correction (studio.agreement.corrected)."""
        if self.sensitivity is None or self.specificity is None:
            return None
        return self.sensitivity + self.specificity - 1.0


def needed_per_class(threshold: float, z: float = co.Z95) -> int:
    """The fewest decisions of one class (people pass, or people fail) whose Wilson lower bound
    can reach `threshold`: with all of them agreeing the bound is n / (n + z²), so n ≥ t·z² / (1 − t)."""
    if not 0 < threshold < 1:
        raise ValueError(f"the certification threshold is a share between 0 and 1 (got {threshold})")
    n = max(1, math.ceil(threshold * z * z / (1.0 - threshold) - 1e-9))
    while n / (n + z * z) < threshold:  # guard the rounding of the line above
        n += 1
    return n


@dataclass(frozen=True)
class Certificate:
    """One judge on one scope (the project, a target, a dimension)."""

    judge: str
    kind: str  # "project", or a group of the decisions: "target", "dimension", "scope"
    scope: str
    rates: ErrorRates
    threshold: float
    status: str  # CERTIFIED, NOT_CERTIFIED or NOT_ENOUGH
    reason: str

    @property
    def certified(self) -> bool:
        return self.status == CERTIFIED

    def to_json(self) -> dict:
        rates = self.rates
        return {"judge": self.judge, "kind": self.kind, "scope": self.scope, "decisions": rates.decisions,
                "true_pass": rates.true_pass, "false_fail": rates.false_fail, "true_fail": rates.true_fail,
                "false_pass": rates.false_pass, "people_pass": rates.people_pass, "people_fail": rates.people_fail,
                "sensitivity": _round(rates.sensitivity), "sensitivity_wilson95": _pair(rates.sensitivity_interval()),
                "specificity": _round(rates.specificity), "specificity_wilson95": _pair(rates.specificity_interval()),
                "agreement": _round(rates.agreement), "agreement_wilson95": _pair(rates.agreement_interval()),
                "cohen_kappa": _round(rates.kappa()), "threshold": self.threshold, "status": self.status,
                "certified": self.certified, "reason": self.reason}


def certify(judge: str, kind: str, scope: str, rates: ErrorRates, threshold: float) -> Certificate:
    """Certified only when both Wilson lower bounds reach `threshold`; the reason says why not."""
    needed = needed_per_class(threshold)
    short = [f"{count} the experts {word} (at least {needed} needed)"
             for count, word in ((rates.people_pass, "passed"), (rates.people_fail, "failed")) if count < needed]
    if short:
        return Certificate(judge, kind, scope, rates, threshold, NOT_ENOUGH,
                           f"{NOT_ENOUGH}: {' and '.join(short)}; even a judge agreeing on every one could not show "
                           f"both lower bounds at {threshold:g}: review more decisions as an expert")
    low_sens = rates.sensitivity_interval()[0]  # type: ignore[index]  # counts above are > 0
    low_spec = rates.specificity_interval()[0]  # type: ignore[index]
    below = [f"{name} lower bound {low:.3f} < {threshold:g}"
             for name, low in (("sensitivity", low_sens), ("specificity", low_spec)) if low < threshold]
    if below:
        return Certificate(judge, kind, scope, rates, threshold, NOT_CERTIFIED, f"{NOT_CERTIFIED}: {'; '.join(below)}")
    return Certificate(judge, kind, scope, rates, threshold, CERTIFIED,
                       f"{CERTIFIED}: lower bounds sensitivity {low_sens:.3f}, specificity {low_spec:.3f} "
                       f">= {threshold:g}")


def certificates(checked: Sequence[Checked], project: str, threshold: float,
                 kinds: Sequence[str] = ("target", "dimension")) -> list[Certificate]:
    """Per judge: the project pooled, then each value of each group kind, by name."""
    out = []
    for judge in sorted({entry.judge for entry in checked}):
        mine = [entry for entry in checked if entry.judge == judge]
        out.append(certify(judge, "project", project, ErrorRates.of(mine), threshold))
        for kind in kinds:
            for value in sorted({entry.groups[kind] for entry in mine if kind in entry.groups}):
                rates = ErrorRates.of(entry for entry in mine if entry.groups.get(kind) == value)
                out.append(certify(judge, kind, value, rates, threshold))
    return out


def common_decisions(checked: Sequence[Checked], judges: Sequence[str]) -> list[Checked]:
    """The checked verdicts of `judges` on the decisions every one of them judged (pass/fail)."""
    by_judge: dict[str, set[tuple[str, ...]]] = {judge: set() for judge in judges}
    for entry in checked:
        if entry.judge in by_judge:
            by_judge[entry.judge].add(entry.decision)
    shared = set.intersection(*by_judge.values()) if by_judge else set()
    return [entry for entry in checked if entry.judge in by_judge and entry.decision in shared]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _pair(bounds: tuple[float, float] | None) -> list[float] | None:
    return None if bounds is None else [round(bounds[0], 6), round(bounds[1], 6)]
