"""`dbstudio score` on a verdict table the size of the paper's benchmark, as a whole process,
against a whole-process `csv.reader` script doing the same pass over the same CSV.

7 systems x 11 projects; 150 checkpoints, 3,828 checkpoint criteria, 313 cross-file and 172
package criteria (4,313 unique), plus 1,150 checkpoint criteria reused in final rubrics:
5,463 rows per system, 38,241 in all. Both sides start a fresh Python, read the file and
print a result; they run alternately, and the bench prints the min, median and max of the
paired ratios (target <= 3x). Whole processes matter: importing numpy alone takes longer than
the floor's whole run, so the score path for such a table must not import it.

It then does the same on the table with one verdict in a hundred left empty (415 missing
verdicts, 60 of 77 final scores open), where every score they could change gets its range over
all completions (studio/scoring/bounds.py): the same target.

Exits 1 when the fast scorer's scores differ from the row-by-row reader's (on either table), when
the second table's open scores have no range, or when the score process imports numpy,
pydantic, GitPython, ruamel or openpyxl.

    python bench/score_bench.py [--rounds N] [--crossover]

--crossover also times both fast scorers as whole processes on tables 1x..16x this size, to
place studio.scoring.ARRAY_SCORER_BYTES (where numpy's import starts to pay for itself).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.processes import compile_bytecode, python_child, spread  # noqa: E402
from studio.scoring import read_verdict_table, score_benchmark, score_fast  # noqa: E402

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
            _split(PACKAGE, PROJECTS), _split(REUSED, PROJECTS), strict=False)):
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
            rubric_rows.append((project, "final", f"X-{c + 1:03d}", rng.choice([2, 4, 6, -3]), "cross-file",
                                "consistency", False, ""))
        for c in range(n_pkg):
            gate = c == 0
            rubric_rows.append((project, "final", f"P-{c + 1:03d}", 0 if gate else rng.choice([3, 5, -4]), "package",
                                rng.choice(DIMENSIONS), gate, ""))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["project", "system", "scope", "criterion", "weight", "target", "dimension", "verdict", "gate",
                         "requires"])
        rows = 0
        for s in range(SYSTEMS):
            skill = 0.45 + 0.07 * s
            for project, scope, cid, weight, target, dimension, gate, requires in rubric_rows:
                passed = rng.random() < (0.03 if gate else skill if weight > 0 else 1 - skill)
                writer.writerow([project, f"system-{s + 1}", scope, cid, weight, target, dimension,
                                 "pass" if passed else "fail", "true" if gate else "", requires])
                rows += 1
    return rows


FLOOR = """
import csv, sys
total = 0.0
with open(sys.argv[1], newline="", encoding="utf-8") as handle:
    reader = csv.reader(handle)
    next(reader)
    for row in reader:
        if row[7] == "pass":
            total += int(row[4])
print(total)
"""

# `dbstudio score TABLE` as the console script runs it: the command line's own main().
OURS = """
import sys
from studio.cli.main import main
status = main(["score", sys.argv[1]])
heavy = sorted(m for m in ("numpy", "pydantic", "git", "ruamel", "openpyxl") if m in sys.modules)
print("imported:", ",".join(heavy) or "-", file=sys.stderr)
sys.exit(status)
"""

# One fast scorer alone, forced, for the crossover.
SCORER = """
import sys
from pathlib import Path
if sys.argv[2] == "array":
    from studio.scoring.vectorized import score_plain_csv
    scores = score_plain_csv(Path(sys.argv[1]))
else:
    from studio.scoring.columnar import score_plain_text
    from studio.collector import collector_paused
    with collector_paused():
        scores = score_plain_text(Path(sys.argv[1]).read_bytes().decode("utf-8-sig"))
assert scores is not None
"""


MISSING_SHARE = 0.01


def blank_some_verdicts(source: Path, target: Path, seed: int = 3) -> int:
    """The table with about one verdict in a hundred left empty (missing); how many."""
    rng = random.Random(seed)
    lines = source.read_text(encoding="utf-8").splitlines()
    blanked = 0
    with target.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(lines[0] + "\n")
        for line in lines[1:]:
            cells = line.split(",")
            if rng.random() < MISSING_SHARE:
                cells[7] = ""
                blanked += 1
            handle.write(",".join(cells) + "\n")
    return blanked


def paired(rounds: int, ours: tuple, floor: tuple) -> tuple[list[tuple[float, float]], list[tuple[float, float]], str]:
    """Alternate the two sides `rounds` times: ((wall, cpu) of ours, of the floor, our last stderr)."""
    mine, base, err = [], [], ""
    for _ in range(rounds):
        baseline = python_child(*floor)
        base.append((baseline.wall, baseline.cpu))
        child = python_child(*ours)
        mine.append((child.wall, child.cpu))
        err = child.stderr
    return mine, base, err


def scaled_table(source: Path, target: Path, copies: int) -> None:
    """The table repeated with renamed systems: `copies` times the rows and the bytes."""
    lines = source.read_text(encoding="utf-8").splitlines()
    with target.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(lines[0] + "\n")
        for k in range(copies):
            for line in lines[1:]:
                project, system, rest = line.split(",", 2)
                handle.write(f"{project},{system}-{k},{rest}\n")


def crossover(path: Path, rounds: int) -> None:
    print("\ncrossover (whole processes, median of paired ratios array / columnar):")
    for copies in (1, 2, 4, 8, 16):
        table = path.with_name(f"x{copies}.csv")
        scaled_table(path, table, copies)
        array, columnar, _ = paired(rounds, (SCORER, str(table), "array"), (SCORER, str(table), "columnar"))
        ratios = [a[0] / c[0] for a, c in zip(array, columnar, strict=True)]
        print(f"  {table.stat().st_size / 2**20:6.1f} MiB: array {statistics.median(a[0] for a in array):6.2f} s, "
              f"columnar {statistics.median(c[0] for c in columnar):6.2f} s, array/columnar (wall) {spread(ratios)}")
        table.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds (default 15)")
    parser.add_argument("--crossover", action="store_true", help="also time both fast scorers on larger tables")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "verdicts.csv"
        rows = make_table(path)
        compile_bytecode()
        python_child(OURS, str(path)), python_child(FLOOR, str(path))  # warm the file cache
        mine, base, err = paired(args.rounds, (OURS, str(path)), (FLOOR, str(path)))
        fast = score_fast(path)
        authority = score_benchmark(read_verdict_table(path))
        open_path = path.with_name("with-missing.csv")
        blanked = blank_some_verdicts(path, open_path)
        python_child(OURS, str(open_path))
        open_mine, open_base, _ = paired(args.rounds, (OURS, str(open_path)), (FLOOR, str(open_path)))
        open_fast = score_fast(open_path)
        open_authority = score_benchmark(read_verdict_table(open_path))
        if args.crossover:
            crossover(path, max(3, args.rounds // 3))
    ratios = [m[0] / b[0] for m, b in zip(mine, base, strict=True)]
    cpu_ratios = [m[1] / b[1] for m, b in zip(mine, base, strict=True)]
    imported = err.strip().rsplit("imported:", 1)[-1].strip()
    unique = CHECKPOINT_CRITERIA + CROSS_FILE + PACKAGE
    print(f"table: {rows} rows ({SYSTEMS} systems x {PROJECTS} projects, {unique} unique criteria + {REUSED} reused, "
          f"{CHECKPOINTS} checkpoints)")
    print(f"floor (python + csv.reader + sum):  {statistics.median(b[0] for b in base) * 1000:7.1f} ms wall, "
          f"{statistics.median(b[1] for b in base) * 1000:7.1f} ms CPU (medians)")
    print(f"dbstudio score (whole process):     {statistics.median(m[0] for m in mine) * 1000:7.1f} ms wall, "
          f"{statistics.median(m[1] for m in mine) * 1000:7.1f} ms CPU (medians)")
    print(f"ratio, wall (paired, {len(ratios)} rounds): {spread(ratios)}  (target <= 3x)")
    print(f"ratio, CPU  (paired, {len(ratios)} rounds): {spread(cpu_ratios)}")
    print(f"heavy modules imported by the score process: {imported}")
    open_ratios = [m[0] / b[0] for m, b in zip(open_mine, open_base, strict=True)]
    open_cpu = [m[1] / b[1] for m, b in zip(open_mine, open_base, strict=True)]
    open_scores = [s for p in open_authority.projects.values() for s in p.values()]
    ranged = [s for s in open_scores if s.final is None and s.final_range is not None and
              s.final_range[0] < s.final_range[1]]
    print(f"\nthe same table with {blanked} verdicts missing ({len(ranged)} of {len(open_scores)} final scores open, "
          "each with its range):")
    print(f"dbstudio score (whole process):     {statistics.median(m[0] for m in open_mine) * 1000:7.1f} ms wall "
          f"(floor {statistics.median(b[0] for b in open_base) * 1000:.1f} ms)")
    print(f"ratio, wall (paired, {len(open_ratios)} rounds): {spread(open_ratios)}  (target <= 3x)")
    print(f"ratio, CPU  (paired, {len(open_ratios)} rounds): {spread(open_cpu)}")
    wrong = []
    if fast is None:
        wrong.append("the fast scorer declined a clean table")
    elif fast != authority:
        wrong.append("the fast scorer's scores differ from the row-by-row reader's")
    if open_fast is None:
        wrong.append("the fast scorer declined the table with missing verdicts")
    elif open_fast != open_authority:
        wrong.append("with missing verdicts, the fast scorer's scores differ from the row-by-row reader's")
    if not ranged or any(s.final_range is None for s in open_scores):
        wrong.append("the open scores of the table with missing verdicts have no range")
    if imported != "-":
        wrong.append(f"the score process imported {imported}")
    print(f"scores equal to the row-by-row reader's: {fast == authority} (with missing verdicts: "
          f"{open_fast == open_authority})")
    for line in wrong:
        print("WRONG:", line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
