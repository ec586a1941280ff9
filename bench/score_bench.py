"""Score a synthetic verdict table the size of the paper's benchmark, against a plain floor.

7 systems x 11 projects; 150 checkpoints, 3,828 checkpoint criteria, 313 cross-file and 172
package criteria (4,313 unique), plus 1,150 checkpoint criteria reused in final rubrics:
5,463 rows per system, 38,241 in all. The floor is a plain-Python single pass over the same
CSV (csv.reader, summing weight x verdict); both include reading the file. Prints the ratio,
and checks that the table took the array path with the row-by-row reader's exact scores
(exit 1 if not).
"""

from __future__ import annotations

import csv
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.scoring import read_verdict_table, score_benchmark, score_table  # noqa: E402
from studio.scoring.vectorized import score_plain_csv  # noqa: E402

SYSTEMS = 7
PROJECTS = 11
CHECKPOINTS = 150
CHECKPOINT_CRITERIA = 3828
CROSS_FILE = 313
PACKAGE = 172
REUSED = 1150
DIMENSIONS = ["correctness", "completeness", "consistency", "professionalism", "usability"]


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def make_table(path: Path, seed: int = 7) -> int:
    rng = random.Random(seed)
    rubric_rows: list[tuple] = []  # (project, scope, criterion, weight, target, dimension, gate, requires)
    for p, (n_cp, n_crit, n_cross, n_pkg, n_reuse) in enumerate(zip(
            _split(CHECKPOINTS, PROJECTS), _split(CHECKPOINT_CRITERIA, PROJECTS), _split(CROSS_FILE, PROJECTS),
            _split(PACKAGE, PROJECTS), _split(REUSED, PROJECTS))):
        project = f"P{p + 1:02d}"
        per_cp = _split(n_crit, n_cp)
        checkpoint_ids = []
        for t, count in enumerate(per_cp):
            scope = f"T{t + 1:02d}"
            for c in range(count):
                cid = f"{scope}-C{c + 1:02d}"
                gate = c == count - 1 and t % 5 == 0
                weight = 0 if gate else rng.choice([1, 2, 3, 5, 8, 10, -2, -5]) if c else 6
                requires = f"{scope}-C01" if c and c % 7 == 0 and not gate else ""
                rubric_rows.append((project, scope, cid, weight, "checkpoint", rng.choice(DIMENSIONS), gate, requires))
                if not gate and weight > 0:
                    checkpoint_ids.append((cid, weight))
        for cid, weight in rng.sample(checkpoint_ids, n_reuse):
            rubric_rows.append((project, "final", cid, weight, "artifact", rng.choice(DIMENSIONS), False, ""))
        for c in range(n_cross):
            rubric_rows.append((project, "final", f"X-{c + 1:03d}", rng.choice([2, 4, 6, -3]), "cross-file", "consistency", False, ""))
        for c in range(n_pkg):
            gate = c == 0
            rubric_rows.append((project, "final", f"P-{c + 1:03d}", 0 if gate else rng.choice([3, 5, -4]), "package",
                                rng.choice(DIMENSIONS), gate, ""))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["project", "system", "scope", "criterion", "weight", "target", "dimension", "verdict", "gate", "requires"])
        rows = 0
        for s in range(SYSTEMS):
            skill = 0.45 + 0.07 * s
            for project, scope, cid, weight, target, dimension, gate, requires in rubric_rows:
                passed = rng.random() < (0.03 if gate else skill if weight > 0 else 1 - skill)
                writer.writerow([project, f"system-{s + 1}", scope, cid, weight, target, dimension,
                                 "pass" if passed else "fail", "true" if gate else "", requires])
                rows += 1
    return rows


def floor(path: Path) -> float:
    total = 0.0
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        next(reader)
        for row in reader:
            if row[7] == "pass":
                total += int(row[4])
    return total


def ours(path: Path):
    return score_table(path)


def best_of_interleaved(path: Path, repeat: int) -> tuple[float, float]:
    """Best times of the floor and of ours, measured alternately so drift hits both alike."""
    floors, mine = [], []
    for _ in range(repeat):
        for fn, times in ((floor, floors), (ours, mine)):
            start = time.perf_counter()
            fn(path)
            times.append(time.perf_counter() - start)
    return min(floors), min(mine)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "verdicts.csv"
        rows = make_table(path)
        ours(path)  # warm imports and caches for both
        floor(path)
        base, mine = best_of_interleaved(path, 15)
        scores = ours(path)
        took_array_path = score_plain_csv(path) is not None
        start = time.perf_counter()
        authority = score_benchmark(read_verdict_table(path))
        row_path = time.perf_counter() - start
    unique = CHECKPOINT_CRITERIA + CROSS_FILE + PACKAGE
    print(f"table: {rows} rows ({SYSTEMS} systems x {PROJECTS} projects, {unique} unique criteria + {REUSED} reused, {CHECKPOINTS} checkpoints)")
    print(f"floor (csv.reader + sum):   {base * 1000:8.1f} ms")
    print(f"dbstudio score (read+score): {mine * 1000:8.1f} ms")
    print(f"ratio: {mine / base:.2f}x the floor (target <= 3x), absolute {'under' if mine < 1 else 'OVER'} 1 s")
    print(f"array path taken: {took_array_path}; row-by-row reader (for comparison): {row_path * 1000:.1f} ms, "
          f"same scores: {authority == scores}")
    print("final means:", {s: round(v.final_mean, 2) for s, v in scores.systems.items() if v.final_mean is not None})
    return 0 if took_array_path and authority == scores else 1


if __name__ == "__main__":
    sys.exit(main())
