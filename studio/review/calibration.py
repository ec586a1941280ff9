"""Judge calibration: a criterion the judge and the experts keep reading differently is worth
rewriting (studio.judging.calibration computes the agreement from the verdict store)."""

from __future__ import annotations

from pathlib import Path

from studio.judging.calibration import calibrate, read_settings
from studio.judging.decisions import current_versions
from studio.judging.errors import JudgingError
from studio.judging.verdict_store import VerdictFileError, VerdictStore
from studio.review.context import ReviewContext
from studio.validation.findings import Severity

RULES = {
    "calibration.low-agreement": "A criterion on which the judge and the experts disagree often, once enough "
                                 "submissions were judged by both (information): rewrite it rather than overrule "
                                 "the judge forever.",
    "calibration.unreadable": "A verdict file or the calibration settings cannot be read.",
}
# Nothing is required: a rubric that did not load only hides its own criteria (their verdicts are
# then on no known criterion), so the families that need it report the file, not this one.
READS: tuple[str, ...] = ()


def check(ctx: ReviewContext) -> None:
    store = VerdictStore(ctx.root)
    if not store.root.is_dir():
        return
    settings, problem = read_settings(ctx.root)
    if problem is not None:
        ctx.report("calibration.unreadable", Severity.WARNING, problem.message, _relative(ctx, problem.path),
                   problem.line)
    try:
        calibrations = calibrate(store, current_versions(ctx.project), timeline=ctx.project.timeline())
    except VerdictFileError as exc:
        ctx.report("calibration.unreadable", Severity.WARNING, f"{exc.problem}; calibration did not run",
                   _relative(ctx, exc.path), exc.line)
        return
    except JudgingError as exc:
        ctx.report("calibration.unreadable", Severity.WARNING, f"{exc}; calibration did not run",
                   _relative(ctx, store.root))
        return
    for entry in calibrations:
        if not entry.flagged(settings.min_agreement, settings.min_decisions):
            continue
        rubric = ctx.project.rubric(entry.scope)
        criterion = next((c for c in rubric.criteria if c.key == entry.criterion), None) if rubric else None
        if criterion is None:
            continue
        agreement = entry.agreement or 0.0
        ctx.report_criterion(
            "calibration.low-agreement", Severity.INFO,
            f"the judge agrees with the experts on {entry.criterion} in {entry.decisions - len(entry.disagreements)} "
            f"of {entry.decisions} decisions ({agreement:.0%}, below {settings.min_agreement:.0%}); they differ on "
            f"{entry.describe_disagreements()}: make the criterion say exactly what passes, so judge and experts "
            "read it alike", entry.scope, criterion, "text" if criterion.text else None)


def _relative(ctx: ReviewContext, path: Path) -> str:
    try:
        return Path(path).resolve().relative_to(ctx.root.resolve()).as_posix()
    except ValueError:
        return str(path)
