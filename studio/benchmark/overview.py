"""What the app's Benchmark window shows of a benchmark.yaml, computed in one background task: the
file's problems (when it has any, nothing else), else every pair's status, the Table 5 report and
its figures as PNG."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from studio.benchmark.loader import LoadedBenchmark, load_benchmark
from studio.benchmark.report import BenchmarkReport, benchmark_report
from studio.benchmark.status import PairStatus


@dataclass(frozen=True)
class BenchmarkOverview:
    loaded: LoadedBenchmark
    report: BenchmarkReport | None  # None while the file has errors
    figures: dict[str, bytes] = field(default_factory=dict)  # name -> PNG (studio/benchmark/figures.py)

    @property
    def pairs(self) -> dict[tuple[str, str], PairStatus]:
        """(project, system) -> its status."""
        return {} if self.report is None else {(p.project, p.system): p for p in self.report.pairs}


def benchmark_overview(path: Path) -> BenchmarkOverview:
    """NotABenchmarkError when there is no file; the file's problems, or the report."""
    from studio.benchmark.figures import all_figures, rendered

    loaded = load_benchmark(path)
    if loaded.errors or loaded.benchmark is None:
        return BenchmarkOverview(loaded, None)
    report = benchmark_report(loaded)
    return BenchmarkOverview(loaded, report, {name: rendered(f, "png") for name, f in all_figures(report).items()})
