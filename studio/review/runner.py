"""`review`: validation first, then every rule family, as one list of located findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.collector import collector_paused
from studio.review import (
    alignment,
    availability,
    calibration,
    context,
    contract,
    dependencies,
    facts,
    io_agreement,
    leaks,
    mutation,
    paraphrase,
    propagation,
    weights,
)
from studio.review.context import ReviewContext
from studio.review.weights import WeightShares
from studio.store import layout
from studio.store.loader import LoadedProject, load_project
from studio.validation.findings import Finding, Severity
from studio.validation.validate import validate_loaded

FAMILIES = [alignment, availability, leaks, propagation, weights, dependencies, contract, facts, paraphrase,
            io_agreement, calibration, mutation]
RULES: dict[str, str] = {rule: text for family in FAMILIES for rule, text in family.RULES.items()} | context.RULES

# The kinds of project file each family reads. A family whose file did not load (syntax or
# schema error, missing) is not run: on what remains it would report false errors (a final
# rubric that failed its schema "has no package criterion"). A family not listed here, or
# without its own READS, reads every kind.
FILE_KINDS = ("project", "stages", "materials", "dependencies", "references", "subtasks", "rubrics")
READS: dict[str, tuple[str, ...]] = {
    "alignment": ("project", "stages", "subtasks", "rubrics"),
    "availability": ("project", "stages", "materials", "subtasks", "rubrics"),
    "leaks": ("project", "materials", "references", "subtasks"),
    "propagation": ("project", "stages", "materials", "dependencies", "subtasks", "rubrics"),
    "weights": ("rubrics",),
    "dependencies": ("project", "stages", "materials", "dependencies", "subtasks"),
    "facts": ("project", "stages", "materials", "references", "subtasks", "rubrics"),
    "paraphrase": ("project", "stages", "materials", "references", "subtasks"),
    "io_agreement": ("project", "stages", "materials", "dependencies", "subtasks"),
}


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


def _family_name(family: Any) -> str:
    return str(family.__name__).rsplit(".", 1)[-1]


def _file_kind(rel: str) -> str:
    if rel == layout.PROJECT_FILE:
        return "project"
    if rel == layout.STAGES_FILE:
        return "stages"
    if rel == layout.MATERIALS_FILE:
        return "materials"
    if rel == layout.DEPENDENCIES_FILE:
        return "dependencies"
    if rel == layout.REFERENCES_FILE:
        return "references"
    if rel.endswith(layout.SUBTASK_FILE):
        return "subtasks"
    return "rubrics"  # the final rubric and the checkpoint rubrics


def _unloaded(loaded: LoadedProject) -> dict[str, list[str]]:
    """File kind -> the files of that kind that did not load into the model, in name order."""
    failed: dict[str, list[str]] = {}
    for rel in sorted({problem.file for problem in loaded.problems}):
        failed.setdefault(_file_kind(rel), []).append(rel)
    return failed


def _review(loaded: LoadedProject, validation: list[Finding]) -> ReviewReport:
    ctx = ReviewContext(loaded)
    ctx.findings.extend(Finding(f.file, f.line, f.column, f.message, f"validate.{f.code}", Severity.ERROR, f.object_id)
                        for f in validation)
    unloaded = _unloaded(loaded)
    for family in FAMILIES:
        name = _family_name(family)
        reads = getattr(family, "READS", None)
        if reads is None:
            reads = READS.get(name, FILE_KINDS)
        blocking = [rel for kind in reads for rel in unloaded.get(kind, [])]
        if blocking:
            listed = ", ".join(sorted(blocking)[:3]) + (f" and {len(blocking) - 3} more" if len(blocking) > 3 else "")
            ctx.report(f"{name}.skipped", Severity.INFO,
                       f"the {name} rules did not run: {listed} could not be read into the project (see the "
                       "validation errors); they run once it is fixed", sorted(blocking)[0])
            continue
        try:
            family.check(ctx)
        except (KeyError, AttributeError, TypeError, ValueError) as exc:
            if not validation:
                raise  # on a valid project a failing rule is a bug, not a finding
            ctx.report(f"{name}.skipped", Severity.INFO,
                       f"the {name} rules could not run on a project with validation errors "
                       f"({type(exc).__name__}): fix the errors above first", layout.PROJECT_FILE)
    # Message last in the key: findings at one place with one rule (two deliverables, say) come out
    # in the same order on every run, not in the order of a set.
    report = ReviewReport(sorted(set(ctx.findings), key=lambda f: (f.file, f.line, f.column, f.code, f.message)))
    try:
        report.weight_shares = weights.weight_shares(ctx)
    except (KeyError, AttributeError):
        report.weight_shares = WeightShares()
    return report


def review_project(path: Path) -> ReviewReport:
    return review_loaded(load_project(layout.project_folder(path)))
