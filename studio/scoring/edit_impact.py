"""What a rubric edit does to the scores already judged: each submission's scores before and after
the edit (a value, or the exact range over every completion of the verdicts the edit leaves
missing) and the pairs of submissions (or systems) whose order the edit can reverse.

Plain records in, plain records out: the caller (studio.judging.edit_impact) gives, per submission,
its rubrics as scored before the edit (the verdicts that count on the saved criteria) and after it
(the edited rubrics with the verdicts that still count: a verdict given on a criterion whose text,
weight or gate changed no longer does, a new criterion has none). Everything else (`requires`,
gate and deletion edits) is the rubric itself, so the engine scores it exactly.

**Why the pairwise test on ranges is exact.** After the edit the rubrics are fixed; what is open
is the verdicts left missing, and those belong to one submission each (a decision is submission x
scope x criterion). Two submissions' completions therefore vary independently: the pairs of
scores they can reach together are every pair of a score S can reach and a score T can reach.
Some completion gives T >= S exactly when T's highest score is at least S's lowest, and the
engine's ranges reach both ends (studio.scoring.bounds; `exact` False marks an outer bound, for
which the test can only say "may"). The same holds for a process score (each checkpoint has its
own verdicts) and for a benchmark mean over projects (each project, and each system, has its own).
Nothing between the ends needs to be reachable: a score's range may have holes, the test does not
look inside it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from studio.scoring.bounds import ScoreRange
from studio.scoring.engine import (
    FINAL_SCOPE,
    RubricColumns,
    RubricResult,
    ScoringError,
    score_rubric,
    system_project_scores,
)

MEASURES = ("final", "process")
"""The scores a ranking is made on."""


class RubricImpact(NamedTuple):
    """One rubric of one submission: its score before and after (None: no such rubric then)."""

    scope: str
    before: ScoreRange | None
    after: ScoreRange | None
    stale: tuple[str, ...]  # criteria whose counted verdict no longer counts
    added: tuple[str, ...]  # criteria new in the rubric with no verdict that counts
    removed: tuple[str, ...]  # criteria the edit deleted (their verdicts leave the score)
    missing: int  # verdicts missing after the edit, in all (the stale ones included)


class SubmissionImpact(NamedTuple):
    submission: str
    rubrics: dict[str, RubricImpact]  # checkpoint scopes in the order given, then "final"
    final: tuple[ScoreRange | None, ScoreRange | None]  # (before, after)
    process: tuple[ScoreRange | None, ScoreRange | None]

    @property
    def stale(self) -> int:
        return sum(len(r.stale) for r in self.rubrics.values())

    @property
    def missing(self) -> int:
        return sum(r.missing for r in self.rubrics.values())

    @property
    def changed(self) -> bool:
        """Whether any of its scores (or what is known of one) differs after the edit."""
        return any(r.before != r.after for r in self.rubrics.values())

    def span(self, measure: str, side: int) -> ScoreRange | None:
        """`measure` ("final", "process") before (side 0) or after (side 1)."""
        return (self.final if measure == "final" else self.process)[side]


class Flip(NamedTuple):
    """A pair ranked `above` over `below` before the edit whose order the edit can change."""

    measure: str
    above: str
    below: str
    before: tuple[ScoreRange, ScoreRange]  # (above's, below's)
    after: tuple[ScoreRange, ScoreRange]
    certain: bool  # every completion puts `below` level with or over `above`
    tie_only: bool  # the most it can come to is a tie
    exact: bool  # False: an end is an outer bound, so "can" means "may"


def known(value: float) -> ScoreRange:
    return ScoreRange(value, value, True)


def span_of(result: RubricResult) -> ScoreRange:
    """A rubric result as a range (both ends equal when the score is known)."""
    exact = result.bounds is None or result.bounds.exact
    return ScoreRange(result.low, result.high, exact)


def _scored(side: str, columns: Mapping[str, RubricColumns]) -> dict[str, RubricResult]:
    results = {}
    for scope, rubric in columns.items():
        if not len(rubric):
            continue
        try:
            results[scope] = score_rubric(rubric)
        except ScoringError as exc:
            raise ScoringError(f"{_rubric_name(scope)} {side}: {exc}") from None
    return results


def _rubric_name(scope: str) -> str:
    return "the final rubric" if scope == FINAL_SCOPE else f"the rubric of {scope}"


def _totals(results: dict[str, RubricResult]) -> tuple[ScoreRange | None, ScoreRange | None]:
    """(final, process) of one side, as the engine combines them."""
    if not results:
        return None, None
    scores = system_project_scores(results, None)
    exact = scores.range_exact
    final = None if scores.final_range is None else ScoreRange(*scores.final_range, exact)
    process = None if scores.process_range is None else ScoreRange(*scores.process_range, exact)
    return final, process


def submission_impact(submission: str, before: Mapping[str, RubricColumns],
                      after: Mapping[str, RubricColumns]) -> SubmissionImpact:
    """Scores before and after of one submission. `before` and `after` map scope -> the rubric with
    the verdicts that count on that side (None: missing). ScoringError names the rubric and side
    that cannot be scored (no positive weight, a `requires` cycle or unknown id)."""
    old, new = _scored("as saved", before), _scored("as edited", after)
    scopes = [s for s in dict.fromkeys([*after, *before]) if s != FINAL_SCOPE and (s in old or s in new)]
    scopes += [FINAL_SCOPE] if FINAL_SCOPE in old or FINAL_SCOPE in new else []
    rubrics = {}
    for scope in scopes:
        was = dict(zip(before[scope].ids, before[scope].verdicts, strict=True)) if scope in old else {}
        now = dict(zip(after[scope].ids, after[scope].verdicts, strict=True)) if scope in new else {}
        stale = tuple(cid for cid, value in now.items() if value is None and was.get(cid) is not None)
        rubrics[scope] = RubricImpact(
            scope, span_of(old[scope]) if scope in old else None, span_of(new[scope]) if scope in new else None,
            stale, tuple(cid for cid, value in now.items() if value is None and cid not in was),
            tuple(cid for cid in was if cid not in now),
            sum(value is None for value in now.values()))
    (final_before, process_before), (final_after, process_after) = _totals(old), _totals(new)
    return SubmissionImpact(submission, rubrics, (final_before, final_after), (process_before, process_after))


def above(upper: ScoreRange, lower: ScoreRange) -> bool:
    """Whether `upper` ranks over `lower` in every completion (with known scores: upper > lower)."""
    return upper.low > lower.high


def possible_flips(measure: str, before: Mapping[str, ScoreRange | None],
                   after: Mapping[str, ScoreRange | None]) -> list[Flip]:
    """Every pair (S, T) with S over T before in every completion whose ranges after let T reach S
    or pass it (T's highest >= S's lowest: see the module's docstring for why that is exact). Names
    without a score on either side are left out. Ordered by S's standing before, then T's."""
    names = [n for n in before if before[n] is not None and after.get(n) is not None]
    names.sort(key=lambda n: (-before[n].low, -before[n].high, n))  # type: ignore[union-attr]
    flips = []
    for i, upper in enumerate(names):
        for lower in names[i + 1:]:
            b_up, b_low = before[upper], before[lower]
            a_up, a_low = after[upper], after[lower]
            assert b_up is not None and b_low is not None and a_up is not None and a_low is not None
            if not above(b_up, b_low) or a_low.high < a_up.low:
                continue
            flips.append(Flip(measure, upper, lower, (b_up, b_low), (a_up, a_low),
                              certain=a_low.low >= a_up.high, tie_only=a_low.high == a_up.low,
                              exact=a_up.exact and a_low.exact))
    return flips


def project_flips(impacts: Iterable[SubmissionImpact]) -> list[Flip]:
    """The flips among one project's submissions, by final score and by process score."""
    impacts = list(impacts)
    return [flip for measure in MEASURES
            for flip in possible_flips(measure, {i.submission: i.span(measure, 0) for i in impacts},
                                       {i.submission: i.span(measure, 1) for i in impacts})]


def mean_span(spans: Sequence[ScoreRange | None]) -> ScoreRange | None:
    """The range of the mean of independent scores: the mean of the lows to the mean of the highs
    (None when there are none, or one has no score)."""
    if not spans or any(s is None for s in spans):
        return None
    present = [s for s in spans if s is not None]
    return ScoreRange(math.fsum(s.low for s in present) / len(present),
                      math.fsum(s.high for s in present) / len(present), all(s.exact for s in present))


def span_text(span: ScoreRange | None) -> str:
    """72.50, or 60.00–85.00 for a range (≈ before an end that is an outer bound); — for none."""
    if span is None:
        return "—"
    if span.low == span.high:
        return f"{span.low:.2f}"
    return f"{'' if span.exact else '≈'}{span.low:.2f}–{span.high:.2f}"


def flip_text(flip: Flip) -> str:
    """One line on one flip: who ranked over whom, and what the edit lets happen."""
    (b_up, b_low), (a_up, a_low) = flip.before, flip.after
    if flip.certain:
        verdict = "ranks above it" if a_low.low > a_up.high else "ranks level or above it"
        verdict += " in every completion" if a_low.low != a_low.high or a_up.low != a_up.high else ""
    elif flip.tie_only:
        verdict = "can tie it, no more"
    else:
        verdict = "can rank level or above it"
    may = "" if flip.exact else " (an end is an outer bound: it may)"
    return (f"{flip.measure}: {flip.above} ({span_text(b_up)}) was above {flip.below} ({span_text(b_low)}); "
            f"after the edit {span_text(a_up)} against {span_text(a_low)}: {flip.below} {verdict}{may}")
