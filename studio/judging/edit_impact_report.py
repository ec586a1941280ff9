"""The edit-impact preview in words and rows, as `dbstudio edit-impact` prints it and the rubric
editor's Edit impact panel shows it (one wording for both), and as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from studio.scoring.edit_impact import flip_text, span_text
from studio.scoring.engine import FINAL_SCOPE

if TYPE_CHECKING:
    from studio.judging.edit_impact import ProjectEditImpact
    from studio.scoring.bounds import ScoreRange
    from studio.scoring.edit_impact import Flip


class ImpactRow(NamedTuple):
    """One score of one submission: its final and process scores, then each checkpoint the edit changes."""

    submission: str  # the name it is shown by
    score: str  # "final", "process" or a subtask id
    before: str
    after: str
    stale: int  # verdicts that stop counting in it
    missing: int  # verdicts missing in it after the edit (the stale ones included)
    changed: bool


def impact_rows(impact: ProjectEditImpact) -> list[ImpactRow]:
    rows = []
    for sub in impact.submissions:
        name = impact.systems.get(sub.submission, sub.submission)
        checkpoints = {scope: r for scope, r in sub.rubrics.items() if scope != FINAL_SCOPE}
        final = sub.rubrics.get(FINAL_SCOPE)
        rows.append(ImpactRow(name, "final", span_text(sub.final[0]), span_text(sub.final[1]),
                              len(final.stale) if final else 0, final.missing if final else 0,
                              sub.final[0] != sub.final[1]))
        rows.append(ImpactRow(name, "process", span_text(sub.process[0]), span_text(sub.process[1]),
                              sum(len(r.stale) for r in checkpoints.values()),
                              sum(r.missing for r in checkpoints.values()), sub.process[0] != sub.process[1]))
        rows += [ImpactRow(name, scope, span_text(r.before), span_text(r.after), len(r.stale), r.missing, True)
                 for scope, r in checkpoints.items() if r.before != r.after]
    return rows


def changes_text(impact: ProjectEditImpact) -> str:
    if not impact.changes:
        return "criteria changed: none that a score reads (text, weight, gate, requires)"
    return "criteria changed: " + "; ".join(
        c.text() + (" (its verdicts stop counting)" if c.stales else "") for c in impact.changes)


def choice_text(judge: str | None) -> str:
    return "verdicts counted: adjudicated, else the experts agreeing, else " + (judge or "every judge agreeing")


def named(flip: Flip, systems: dict[str, str]) -> Flip:
    return flip._replace(above=systems.get(flip.above, flip.above), below=systems.get(flip.below, flip.below))


def flips_text(impact: ProjectEditImpact) -> list[str]:
    """A heading, then one line per flip."""
    if not impact.flips:
        return ["orders the edit can change: none (every pair ranked before keeps its order)"]
    return [f"orders the edit can change ({len(impact.flips)}):",
            *(flip_text(named(f, impact.systems)) for f in impact.flips)]


def rejudge_text(impact: ProjectEditImpact, folder: str) -> str:
    r = impact.rejudge
    if not r.decisions and not r.checks:
        return "to judge again: nothing"
    text = (f"to judge again: {r.decisions} decision(s) in about {r.requests} judge request(s) at {r.batch} criteria "
            "a request")
    if r.checks:
        text += f", and {r.checks} decided by their programmatic checks"
    if r.judge_verdicts or r.people_verdicts:
        text += (f"; {r.judge_verdicts} judge verdict(s) and {r.people_verdicts} expert verdict(s) in the store stop "
                 "counting (they stay in the store)")
    return text + f" (`dbstudio judge {folder} --run RUN --dry-run` gives the exact requests)"


# -- JSON ----------------------------------------------------------------------------------------
def span_json(span: ScoreRange | None) -> dict | None:
    return None if span is None else {"low": round(span.low, 4), "high": round(span.high, 4), "exact": span.exact}


def flip_json(flip: Flip, systems: dict[str, str] | None = None) -> dict:
    shown = flip if systems is None else named(flip, systems)
    return {"measure": flip.measure, "above": shown.above, "below": shown.below,
            "before": [span_json(s) for s in flip.before], "after": [span_json(s) for s in flip.after],
            "certain": flip.certain, "tie_only": flip.tie_only, "exact": flip.exact}


def impact_json(impact: ProjectEditImpact) -> dict:
    submissions = []
    for sub in impact.submissions:
        submissions.append({
            "submission": sub.submission, "system": impact.systems.get(sub.submission, sub.submission),
            "changed": sub.changed, "stale": sub.stale, "missing": sub.missing,
            "final": {"before": span_json(sub.final[0]), "after": span_json(sub.final[1])},
            "process": {"before": span_json(sub.process[0]), "after": span_json(sub.process[1])},
            "rubrics": {scope: {"before": span_json(r.before), "after": span_json(r.after), "stale": list(r.stale),
                                "added": list(r.added), "removed": list(r.removed), "missing": r.missing}
                        for scope, r in sub.rubrics.items()}})
    r = impact.rejudge
    return {"project": impact.project_id, "judge": impact.judge,
            "changes": [{"scope": c.scope, "criterion": c.criterion, "fields": list(c.fields), "stales": c.stales}
                        for c in impact.changes],
            "submissions": submissions, "flips": [flip_json(f, impact.systems) for f in impact.flips],
            "rejudge": {"decisions": r.decisions, "checks": r.checks, "requests": r.requests, "batch": r.batch,
                        "judge_verdicts": r.judge_verdicts, "people_verdicts": r.people_verdicts}}
