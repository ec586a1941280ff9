"""Deterministic DeliverBench scoring: rubric scores from 0/1 verdicts, and the verdict table."""

from studio.scoring.engine import (
    BenchmarkScores,
    RubricResult,
    ScoredCriterion,
    SystemProjectScores,
    score_benchmark,
    score_rubric,
)
from studio.scoring.batch import score_columns
from studio.scoring.table import VerdictTableError, gc_paused, read_verdict_columns, read_verdict_table


def score_table(path) -> BenchmarkScores:
    """Read a verdict table and score it (VerdictTableError or ScoringError if it cannot be)."""
    with gc_paused():
        return score_columns(read_verdict_columns(path))

__all__ = [
    "BenchmarkScores", "RubricResult", "ScoredCriterion", "SystemProjectScores",
    "score_benchmark", "score_rubric", "score_table", "VerdictTableError", "read_verdict_table",
]
