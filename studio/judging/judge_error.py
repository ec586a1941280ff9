"""The judge's measured error from the verdict store: its verdicts on the decisions the people
settled (the certification of studio.agreement.certification) and each rubric's credit split by
whose verdict counts (the corrected scores of studio.agreement.corrected)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
from studio.judging.tables import ProjectVerdicts, score_rows
from studio.judging.verdicts import is_judge


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
