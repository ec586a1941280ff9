"""`review`: validation first, then every rule family, as one list of located findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import studio.review.facts as facts
import studio.review.io_agreement as io_agreement
import studio.review.paraphrase as paraphrase
from studio.collector import collector_paused
from studio.review import alignment, availability, context, dependencies, leaks, propagation, weights
from studio.review.context import ReviewContext
from studio.review.weights import WeightShares
from studio.store import layout
from studio.store.loader import LoadedProject, load_project
from studio.validation.findings import Finding, Severity
from studio.validation.validate import NotAProjectError, validate_loaded

FAMILIES = [alignment, availability, leaks, propagation, weights, dependencies, facts, paraphrase, io_agreement]
RULES: dict[str, str] = {rule: text for family in FAMILIES for rule, text in family.RULES.items()} | context.RULES


@dataclass
class ReviewReport:
    findings: list[Finding] = field(default_factory=list)
    weight_shares: WeightShares = field(default_factory=WeightShares)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def has_errors(self) -> bool:
        return self.count(Severity.ERROR) > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "findings": [f.to_json() | {"rule": f.code} for f in self.findings],
            "counts": {s.value: self.count(s) for s in Severity},
            "weight_shares": self.weight_shares.to_json(),
        }


def review_loaded(loaded: LoadedProject, validation: list[Finding] | None = None) -> ReviewReport:
    """Every finding of `loaded`: its validation findings (computed here unless given) and the rules'."""
    if validation is None:
        validation = validate_loaded(loaded)
    with collector_paused():
        return _review(loaded, validation)


def _review(loaded: LoadedProject, validation: list[Finding]) -> ReviewReport:
    ctx = ReviewContext(loaded)
    ctx.findings.extend(Finding(f.file, f.line, f.column, f.message, f"validate.{f.code}", Severity.ERROR, f.object_id)
                        for f in validation)
    for family in FAMILIES:
        try:
            family.check(ctx)
        except (KeyError, AttributeError, TypeError, ValueError) as exc:
            if not validation:
                raise  # on a valid project a failing rule is a bug, not a finding
            ctx.report(f"{family.__name__.rsplit('.', 1)[-1]}.skipped", Severity.ERROR,
                       f"these rules could not run on a project with validation errors ({type(exc).__name__}): "
                       "fix the errors above first", layout.PROJECT_FILE)
    # Message last in the key: findings at one place with one rule (two deliverables, say) come out
    # in the same order on every run, not in the order of a set.
    report = ReviewReport(sorted(set(ctx.findings), key=lambda f: (f.file, f.line, f.column, f.code, f.message)))
    try:
        report.weight_shares = weights.weight_shares(ctx)
    except (KeyError, AttributeError):
        report.weight_shares = WeightShares()
    return report


def review_project(path: Path) -> ReviewReport:
    folder = Path(path)
    if not layout.is_project_folder(folder):
        raise NotAProjectError(f"{folder}: not a project folder (it has no {layout.PROJECT_FILE})")
    return review_loaded(load_project(folder))
