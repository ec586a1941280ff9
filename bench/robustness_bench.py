"""Rank intervals at paper scale (issue 27): `dbstudio benchmark robustness`'s four analyses, each
beside a floor measured in the same run.

The benchmark: benchmark_bench's (review_bench's 11 projects, 150 subtasks, 4,313 criteria; 7
systems, every decision judged, two experts on 478 decisions; one pair without an outcome, so the
shared set holds 10 projects). For the final metric (the 10 final rubrics) and the process metric
(every checkpoint rubric of them):

- floor: scoring the metric's rubrics once for every system with the engine (score_rubric), the
  least any re-scoring costs;
- leave a project out, leave a criterion out (every criterion of every rubric in turn, the
  vectorised path), weights +-1 (every pair and rubric), judge error (the expert sample's budgets);
  each with its ratio to the floor;
- naive: leaving each criterion out scored by the engine, perturbation by perturbation
  (tests/scoring/brute_ranks.py, the tests' brute force), the work the vectorised path avoids.

Checked: each analysis's pair order against the naive one (leaving out) and the definitions'
invariants (each interval holds the nominal rank; best <= worst); the nominal means against
`benchmark report`'s shared means. Exits 1 on a wrong answer.
Usage: python bench/robustness_bench.py [--quick] [--rounds N] [--only final|process]
(--quick: 3 small projects x 3 systems, one round)
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.benchmark_bench import make_benchmark  # noqa: E402
from bench.common import check, run_sections, spread  # noqa: E402

_made: dict[str, object] = {}


def _reading(args: argparse.Namespace, work: Path):  # type: ignore[no-untyped-def]
    """The benchmark, made once for every section, loaded and read."""
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.reading import BenchmarkReading
    from studio.benchmark.report import benchmark_report

    if "made" not in _made:
        started = time.perf_counter()
        made = make_benchmark(work / "suite", args.quick)
        loaded = load_benchmark(made.path)
        reading = BenchmarkReading(loaded)
        report = benchmark_report(loaded, reading)
        _made.update(made=made, loaded=loaded, reading=reading, report=report)
        print(f"benchmark made and reported in {time.perf_counter() - started:.1f} s: {len(made.projects)} projects "
              f"x {len(made.systems)} systems, {len(report.shared.projects)} shared")
    return _made["loaded"], _made["reading"], _made["report"]


def timed(call: Callable[[], object], rounds: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return times, result


def section(metric: str) -> Callable[[argparse.Namespace, Path], None]:
    def run(args: argparse.Namespace, work: Path) -> None:
        from studio.benchmark.robustness import benchmark_ranking, judge_sample
        from studio.scoring.engine import score_rubric
        from studio.scoring.rank_intervals import ranks
        from studio.scoring.robust_flips import budgets, judge_error
        from studio.scoring.robust_leave_out import leave_criterion_out, leave_project_out
        from studio.scoring.robust_weights import weight_box
        from tests.scoring.brute_ranks import brute_leave_criterion, brute_leave_project

        loaded, reading, report = _reading(args, work)
        ranking, _, _ = benchmark_ranking(loaded, metric, reading, report)
        rounds = args.rounds or (1 if args.quick else 3)
        criteria = sum(len(r.ids) for r in ranking.rubrics)
        shared = report.shared.systems
        for s in ranking.systems:
            expected = shared[s].final_mean if metric == "final" else shared[s].process_mean
            check(abs(float(ranking.means[s]) - expected) < 1e-9,
                  f"{metric}: {s}'s mean {float(ranking.means[s])} differs from the report's {expected}")

        def floor() -> None:
            for rubric in ranking.rubrics:
                for s in ranking.systems:
                    score_rubric(rubric.columns(s))

        sample = judge_sample(loaded, reading)
        check(sample.problem() is None, f"the expert sample gives no budget: {sample.problem()}")
        flip_budgets = budgets(ranking, sample.false_pass_rate, sample.false_fail_rate)
        floors, _ = timed(floor, rounds)
        results = {}
        lines = []
        for name, call in (("leave a project out", lambda: leave_project_out(ranking)),
                           ("leave a criterion out", lambda: leave_criterion_out(ranking)),
                           ("weights ±1", lambda: weight_box(ranking, 1)),
                           ("judge error", lambda: judge_error(ranking, flip_budgets))):
            times, results[name] = timed(call, rounds)
            lines.append(f"  {spread(name, times, ' s')}  ({statistics.median(times) / statistics.median(floors):.1f}x "
                         "the floor)")
        naive_times, naive = timed(lambda: brute_leave_criterion(ranking), 1)
        nominal = ranks(ranking.means)
        for name, order in results.items():
            for s, interval in order.intervals().items():  # type: ignore[attr-defined]
                check(interval.best <= nominal[s] <= interval.worst,
                      f"{metric} {name}: {s}'s interval {interval} does not hold its rank {nominal[s]}")
        for name, expected in (("leave a project out", brute_leave_project(ranking)),
                               ("leave a criterion out", naive)):
            order = results[name]
            check((set(order.above_some), set(order.above_every)) == expected,  # type: ignore[attr-defined]
                  f"{metric} {name}: the pair order differs from the engine's, perturbation by perturbation")
        print(f"\n{metric} score mean: {len(ranking.rubrics)} rubrics, {criteria} criteria, {len(ranking.systems)} "
              f"systems; judge budgets (to fail, to pass): "
              + ", ".join(f"{s} {b.to_fail}/{b.to_pass}" for s, b in flip_budgets.items()))
        print(f"  {spread('floor (the engine scores every rubric of every system once)', floors, ' s')}")
        print("\n".join(lines))
        print(f"  naive leave a criterion out (the engine per perturbation): {naive_times[0]:.3f} s  "
              f"({naive_times[0] / statistics.median(floors):.0f}x the floor)")
        order = results["judge error"]
        print("  intervals (projects | criteria | weights ±1 | judge error): " + "; ".join(
            f"{s} {nominal[s]}: " + " | ".join(o.intervals()[s].text() for o in results.values())  # type: ignore[attr-defined]
            for s in ranking.systems))

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 small projects x 3 systems, one round")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per figure (default 3, quick 1)")
    return run_sections(parser, {"final": section("final"), "process": section("process")}, "robustness-bench-")


if __name__ == "__main__":
    sys.exit(main())
