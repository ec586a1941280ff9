"""Deterministic DeliverBench scoring: rubric scores from 0/1 verdicts, and the verdict table."""

from studio.scoring.engine import (
    BenchmarkScores,
    RubricResult,
    ScoredCriterion,
    SystemProjectScores,
    score_benchmark,
    score_rubric,
)
from studio.scoring.table import VerdictTableError, read_verdict_table

__all__ = [
    "BenchmarkScores", "RubricResult", "ScoredCriterion", "SystemProjectScores",
    "score_benchmark", "score_rubric", "VerdictTableError", "read_verdict_table",
]
