"""The judge's measured error from the verdict store: its verdicts on the decisions the people
settled (the certification of studio.agreement.certification) and each rubric's credit split by
whose verdict counts (the corrected scores of studio.agreement.corrected)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from studio.agreement.certification import (
    INTERVAL_METHOD,
    Certificate,
    Checked,
    ErrorRates,
    certificates,
    common_decisions,
)
from studio.agreement.corrected import POOLED, RubricCredit
from studio.judging.decisions import PASS_FAIL, human_reference
from studio.judging.errors import JudgingError
from studio.judging.tables import ProjectVerdicts, score_rows
from studio.judging.verdicts import is_judge

if TYPE_CHECKING:
    from studio.agreement.corrected import CorrectedScore
    from studio.judging.visibility import Viewer
    from studio.model import Project


def checked_decisions(verdicts: ProjectVerdicts, judges: Sequence[str] | None = None) -> list[Checked]:
    """Every judge's (or each of `judges`') pass/fail on the decisions the people settled."""
    out = []
    for (submission, scope, criterion), ratings in sorted(verdicts.found.decisions.items()):
        entry = verdicts.rubrics.get(scope, {}).get(criterion)
        settled = human_reference(ratings)
        if entry is None or settled is None:
            continue
        for rater, verdict in sorted(ratings.items()):
            if is_judge(rater) and (judges is None or rater in judges) and verdict.verdict in PASS_FAIL:
                out.append(Checked(rater, verdict.verdict, settled, (verdicts.project_id, submission, scope, criterion),
                                   f"{verdicts.project_id}/{submission}/{scope}",
                                   {"target": entry.target, "dimension": entry.dimension, "scope": scope}))
    return out


@dataclass(frozen=True)
class Comparison:
    """Several judges on the same checked decisions, side by side."""

    judges: list[str]
    decisions: int  # the decisions every judge judged and the people settled
    rows: list[Certificate]


@dataclass(frozen=True)
class CertificationReport:
    project: str
    threshold: float
    judges: list[str]
    certificates: list[Certificate]
    comparison: Comparison | None  # with two judges or more

    def to_json(self) -> dict:
        comparison = None
        if self.comparison is not None:
            comparison = {"judges": self.comparison.judges, "decisions": self.comparison.decisions,
                          "rows": [row.to_json() for row in self.comparison.rows]}
        return {"project": self.project, "threshold": self.threshold, "interval": INTERVAL_METHOD,
                "reference": "adjudicated, else every expert agreeing", "judges": self.judges,
                "certificates": [c.to_json() for c in self.certificates], "comparison": comparison}


def certification_report(verdicts: ProjectVerdicts, threshold: float,
                         judges: Sequence[str] | None = None) -> CertificationReport:
    """Each judge certified or not for the project, each target, dimension and scope (a subtask's
    checkpoint rubric, or final); with two
    judges or more, also side by side on the decisions all of them judged."""
    checked = checked_decisions(verdicts, judges)
    found = sorted({entry.judge for entry in checked} | set(judges or ()))
    comparison = None
    if len(found) >= 2:
        shared = common_decisions(checked, found)
        rows = [_certify_pooled(judge, verdicts.project_id, [e for e in shared if e.judge == judge], threshold)
                for judge in found]
        comparison = Comparison(found, len({e.decision for e in shared}), rows)
    certified = certificates(checked, verdicts.project_id, threshold, ("target", "dimension", "scope"))
    present = {c.judge for c in certified}
    certified += [_certify_pooled(judge, verdicts.project_id, [], threshold) for judge in found if judge not in present]
    return CertificationReport(verdicts.project_id, threshold, found, certified, comparison)


def _certify_pooled(judge: str, project: str, checked: Sequence[Checked], threshold: float) -> Certificate:
    from studio.agreement.certification import certify

    return certify(judge, "project", project, ErrorRates.of(checked), threshold)


def rubric_credits(verdicts: ProjectVerdicts, judge: str, by: str = "pooled") -> list[RubricCredit]:
    """Each run's rubrics as the correction takes them: the scores `judge`'s verdicts give, each
    criterion's weighted effective verdict credited to the people or to the judge (by class)."""
    from studio.scoring.engine import RubricColumns, ScoredCriterion, score_rubric

    grouped: dict[tuple[str, str], list] = {}
    for row in score_rows(verdicts, judge):
        grouped.setdefault((row.submission, row.scope), []).append(row)
    out = []
    for (submission, scope), rows in grouped.items():
        columns = RubricColumns.of([ScoredCriterion(r.criterion, r.weight, r.target, r.dimension,
                                                    None if r.verdict is None else r.verdict == "pass", r.gate,
                                                    r.requires) for r in rows])
        result = score_rubric(columns)
        system = rows[0].system
        base = {"system": system, "submission": submission, "scope": scope, "raw": result.score,
                "positive": float(result.positive_weight)}
        if result.gate_triggered:
            out.append(RubricCredit(**base, gate_triggered=True,
                                    not_corrected="a fatal gate is triggered: the score stays 0 (gates are not corrected)"))
            continue
        counted = [(r, h) for r, h in zip(rows, result.effective, strict=True) if not r.gate]
        if all(r.verdict is None for r, _ in counted):
            out.append(RubricCredit(**base, not_corrected="not judged: no criterion has a verdict"))
            continue
        if any(h is None for _, h in counted):
            missing = sum(1 for _, h in counted if h is None)
            out.append(RubricCredit(**base, not_corrected=f"unknown: {missing} missing verdict(s) leave the raw "
                                                          "score open"))
            continue
        settled = 0.0
        credit: dict[str, float] = {}
        weight: dict[str, float] = {}
        for r, h in counted:
            if r.source == judge:
                c = POOLED if by == "pooled" else getattr(r, by)
                credit[c] = credit.get(c, 0.0) + r.weight * bool(h)
                weight[c] = weight.get(c, 0.0) + r.weight
            else:
                settled += r.weight * bool(h)
        out.append(RubricCredit(**base, settled_credit=settled, judged_credit=credit, judged_weight=weight))
    return out


@dataclass(frozen=True)
class ProjectCorrection:
    """One project's scores corrected for one judge's error, and that error as measured per class."""

    project: str
    judge: str
    rates: dict[str, ErrorRates]  # class -> the judge's measured error
    scores: list[CorrectedScore]


def project_correction(verdicts: ProjectVerdicts, judge: str, by: str = POOLED, resamples: int = 0, seed: int = 0,
                       measured_on: ProjectVerdicts | None = None) -> ProjectCorrection:
    """The scores of `verdicts` corrected for `judge`'s error, measured on the checked decisions of
    `measured_on` (the whole project when only some runs are scored; default: `verdicts`)."""
    from studio.agreement.corrected import Correction, class_of, corrected_scores

    checked = checked_decisions(measured_on or verdicts, [judge])
    rates = Correction(checked, class_of(by)).rates
    scores = corrected_scores(rubric_credits(verdicts, judge, by), checked, by, resamples, seed)
    return ProjectCorrection(verdicts.project_id, judge, rates, scores)


@dataclass(frozen=True)
class JudgeErrorResult:
    """What the app's judge certification view shows: every judge's certificates and one judge's
    corrected scores."""

    judges: list[str]
    judge: str
    certification: CertificationReport
    correction: ProjectCorrection
    left_out: str | None


def compute_judge_error(root: Path, project: Project, judge: str | None = None, threshold: float = 0.8,
                        by: str = POOLED, resamples: int = 0, seed: int = 0,
                        viewer: Viewer | None = None) -> JudgeErrorResult:
    """The certification of every judge of the store at `threshold` and `judge`'s corrected scores
    (without `judge`, the store's first), as `dbstudio verdicts certify` and `dbstudio score
    --corrected` give them. For a blind rater (`viewer`), over the decisions they have rated."""
    from studio.judging.tables import read_project_verdicts
    from studio.scoring.project_rubrics import project_rubrics

    info = project.info
    project_id = info.id if info is not None else Path(root).name
    verdicts = read_project_verdicts(Path(root), project, project_id, project_rubrics(project), viewer=viewer)
    judges = sorted(r for r in verdicts.found.raters() if is_judge(r))
    if not judges:
        if viewer is not None and viewer.hides_any():
            who = viewer.name or "you (no rater name yet)"
            raise JudgingError(f"blind review shows the judge's error on the decisions you have rated yourself, and "
                               f"{who} rated none yet: review some decisions first, or turn Blind off in the Review tab")
        raise JudgingError("no judge has given verdicts yet: judge a run first (Judging > Judge…)")
    if judge not in judges:
        judge = judges[0]
    report = certification_report(verdicts, threshold, judges)
    return JudgeErrorResult(judges, judge, report, project_correction(verdicts, judge, by, resamples, seed),
                            verdicts.found.left_out())


def rate_text(hit: int, of: int, bounds: tuple[float, float] | None) -> str:
    """`18/20 0.90 [0.70, 0.97]` (a rate with its interval), or `0/0 —` for a class without a decision."""
    if bounds is None:
        return f"{hit}/{of} —"
    return f"{hit}/{of} {hit / of:.2f} [{bounds[0]:.2f}, {bounds[1]:.2f}]"


def certificate_cells(certificate: Certificate, scope: str | None = None) -> tuple[str, ...]:
    """One certificate as `verdicts certify` prints it and the app shows it: judge, scope, decisions,
    sensitivity, specificity, agreement, kappa, status."""
    rates = certificate.rates
    kappa, agreement = rates.kappa(), rates.agreement
    return (certificate.judge, scope or f"{certificate.kind} {certificate.scope}", str(rates.decisions),
            rate_text(rates.true_pass, rates.people_pass, rates.sensitivity_interval()),
            rate_text(rates.true_fail, rates.people_fail, rates.specificity_interval()),
            "—" if agreement is None else f"{agreement:.1%}", "—" if kappa is None else f"{kappa:.3f}",
            certificate.status)


def corrected_cells(score: CorrectedScore) -> tuple[str, ...]:
    """One corrected score as `score --corrected` prints it and the app shows it: system, scope, raw,
    corrected, and its interval or why there is none."""
    raw = "—" if score.raw is None else f"{score.raw:.2f}"
    value = "—" if score.corrected is None else f"{score.corrected:.2f}"
    extra = (f"[{score.interval[0]:.2f}, {score.interval[1]:.2f}]" if score.interval else "") + (
        f" ({score.undefined_resamples} resamples undefined)" if score.undefined_resamples else "")
    if score.reason:
        extra = f"{extra} {score.reason}".strip()
    return score.system, score.scope, raw, value, extra
