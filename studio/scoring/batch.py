"""Scoring a whole verdict table at once, with the same results as rubric by rubric.

Sums over each rubric come from prefix sums over the table's columns (itertools.accumulate,
in C), so a rubric costs a few subtractions instead of a Python loop over its criteria.
Only rubrics with `requires` resolve verdicts one by one, and only those criteria.
"""

from __future__ import annotations

from itertools import accumulate, repeat
from operator import and_, is_, mul, truth

from studio.scoring.columns import VerdictColumns
from studio.scoring.engine import (
    FINAL_SCOPE,
    BenchmarkScores,
    RubricResult,
    ScoringError,
    _clip,
    assemble_benchmark,
    system_project_scores,
)


_POSITIVE_PART = {w: max(w, 0) for w in range(-10, 11)}  # weights are checked to lie in -10..10


def _prefix(values) -> list[int]:
    return [0, *accumulate(values)]


def rubric_results(table: VerdictColumns) -> list[RubricResult]:
    """One RubricResult per run of the table, as score_rubric would give for each."""
    h = table.resolve_requires().effective
    rows = table.rows
    positive = _prefix(map(_POSITIVE_PART.__getitem__, rows.weights))  # gates weigh 0
    credit = _prefix(map(mul, rows.weights, map(truth, h)))  # a missing h adds nothing here...
    unknown = _prefix(map(is_, h, repeat(None)))  # ...and is counted here instead
    missing = _prefix(map(is_, rows.verdicts, repeat(None)))
    if True in rows.gates:
        triggered = _prefix(map(and_, rows.gates, map(is_, h, repeat(True))))
    else:
        triggered = [0] * (len(h) + 1)
    results = []
    for (_, _, scope), (start, end) in zip(table.keys, table.runs):
        effective = tuple(h[start:end]) if scope == FINAL_SCOPE else ()
        n_missing = missing[end] - missing[start]
        w_plus = positive[end] - positive[start]
        if triggered[end] > triggered[start]:
            results.append(RubricResult(0.0, True, n_missing, w_plus, effective))
        elif w_plus <= 0:
            raise ScoringError("the rubric has no positive weight (W+ = 0)")
        elif unknown[end] > unknown[start]:
            results.append(RubricResult(None, False, n_missing, w_plus, effective))
        else:
            score = _clip(100.0 * (credit[end] - credit[start]) / w_plus)
            results.append(RubricResult(score, False, n_missing, w_plus, effective))
    return results


def score_columns(table: VerdictColumns) -> BenchmarkScores:
    """Benchmark scores of a whole table (equal to score_benchmark(table.rubrics()))."""
    results = rubric_results(table)
    grouped: dict[tuple[str, str], dict] = {}
    finals: dict[tuple[str, str], int] = {}
    for k, ((project, system, scope), result) in enumerate(zip(table.keys, results)):
        grouped.setdefault((project, system), {})[scope] = result
        if scope == FINAL_SCOPE:
            finals[(project, system)] = k
    return assemble_benchmark(
        (project, system, system_project_scores(by_scope, table.rubric(finals[(project, system)])
                                                 if (project, system) in finals else None))
        for (project, system), by_scope in grouped.items())
