"""Deterministic DeliverBench scoring: rubric scores from 0/1 verdicts, and the verdict table."""

from pathlib import Path

from studio.collector import collector_paused
from studio.scoring.engine import (
    BenchmarkScores,
    RubricResult,
    ScoredCriterion,
    SystemProjectScores,
    score_benchmark,
    score_rubric,
)
from studio.scoring.table import VerdictTableError, read_verdict_table
from studio.tabular import is_xlsx

# Above this size a plain CSV is scored in numpy, whose import (about 0.15 s) then pays for
# itself; below it the numpy-free column scorer is faster as a whole process. Measured by
# bench/score_bench.py --crossover: equal at 4.4 MiB, numpy 1.5x faster at 8.8 MiB.
ARRAY_SCORER_BYTES = 4 << 20


def score_table(path: Path | str) -> BenchmarkScores:
    """Read a verdict table and score it (VerdictTableError or ScoringError if it cannot be).

    A clean, plain CSV is scored column-wise (numpy-free) or, when large, in whole-array
    passes; anything else, and any table with a problem, goes through the row-by-row reader,
    which names every bad row. Both fast scorers give the row reader's exact scores."""
    path = Path(path)
    if path.is_file() and not is_xlsx(path):
        scores = score_fast(path)
        if scores is not None:
            return scores
    return score_benchmark(read_verdict_table(path))


def score_fast(path: Path) -> BenchmarkScores | None:
    """The scores of a clean plain CSV from the scorer that suits its size, or None where the
    row-by-row reader must decide."""
    try:
        if path.stat().st_size > ARRAY_SCORER_BYTES:
            from studio.scoring.vectorized import score_plain_csv

            return score_plain_csv(path)
        from studio.scoring.columnar import score_plain_text

        try:
            text = path.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            return None
        with collector_paused():
            return score_plain_text(text)
    except OSError:
        return None  # the row reader reports it, located

__all__ = [
    "BenchmarkScores", "RubricResult", "ScoredCriterion", "SystemProjectScores",
    "score_benchmark", "score_rubric", "score_table", "VerdictTableError", "read_verdict_table",
]
