"""Deterministic DeliverBench scoring: rubric scores from 0/1 verdicts, and the verdict table."""

from pathlib import Path

from studio.scoring.engine import (
    BenchmarkScores,
    RubricResult,
    ScoredCriterion,
    SystemProjectScores,
    score_benchmark,
    score_rubric,
)
from studio.scoring.table import VerdictTableError, read_verdict_table
from studio.scoring.vectorized import score_plain_csv
from studio.tabular import is_xlsx


def score_table(path) -> BenchmarkScores:
    """Read a verdict table and score it (VerdictTableError or ScoringError if it cannot be).

    A clean, plain CSV is scored in whole-array passes; anything else, and any table with a
    problem, goes through the row-by-row reader, which names every bad row."""
    path = Path(path)
    if path.is_file() and not is_xlsx(path):
        scores = score_plain_csv(path)
        if scores is not None:
            return scores
    return score_benchmark(read_verdict_table(path))

__all__ = [
    "BenchmarkScores", "RubricResult", "ScoredCriterion", "SystemProjectScores",
    "score_benchmark", "score_rubric", "score_table", "VerdictTableError", "read_verdict_table",
]
