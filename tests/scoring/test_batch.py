"""Scoring a whole table at once equals scoring it rubric by rubric."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.scoring.batch import score_columns
from studio.scoring.columns import VerdictColumns
from studio.scoring.engine import RubricColumns, ScoredCriterion, ScoringError, score_benchmark

verdicts = st.sampled_from([True, False, None])


@st.composite
def rubric(draw, final: bool):
    n = draw(st.integers(1, 8))
    criteria = []
    for i in range(n):
        gate = draw(st.integers(0, 6)) == 0
        weight = 0 if gate else draw(st.sampled_from([1, 2, 5, 10, -1, -4, -10]))
        requires = tuple(draw(st.lists(st.sampled_from([f"c{j}" for j in range(i)]), max_size=2, unique=True))) if i else ()
        target = draw(st.sampled_from(["artifact", "cross-file", "package"])) if final else "checkpoint"
        dimension = draw(st.sampled_from(["correctness", "usability", "consistency"]))
        criteria.append(ScoredCriterion(f"c{i}", weight, target, dimension, draw(verdicts), gate, requires))
    criteria.append(ScoredCriterion("anchor", draw(st.integers(1, 10)), criteria[0].target, "correctness", draw(verdicts)))
    return RubricColumns.of(criteria)


@st.composite
def benchmarks(draw):
    out = {}
    for project in draw(st.lists(st.sampled_from(["P1", "P2", "P3"]), min_size=1, max_size=3, unique=True)):
        for system in draw(st.lists(st.sampled_from(["A", "B"]), min_size=1, max_size=2, unique=True)):
            scopes = {s: draw(rubric(final=False)) for s in draw(st.lists(st.sampled_from(["T01", "T02", "T03"]), max_size=3, unique=True))}
            if draw(st.booleans()):
                scopes["final"] = draw(rubric(final=True))
            if scopes:
                out.setdefault(project, {})[system] = scopes
    return out


@settings(max_examples=300, deadline=None)
@given(benchmarks())
def test_batch_scores_equal_rubric_by_rubric(rubrics):
    table = VerdictColumns.from_rubrics(rubrics)
    assert table.rubrics() == rubrics
    assert score_columns(table) == score_benchmark(rubrics)


def test_batch_refuses_a_rubric_without_positive_weight():
    bad = {"P": {"S": {"T01": RubricColumns.of([ScoredCriterion("n", -2, "checkpoint", "correctness", True)])}}}
    with pytest.raises(ScoringError, match="no positive weight"):
        score_columns(VerdictColumns.from_rubrics(bad))
