"""What the app's Benchmark window shows of a benchmark.yaml, computed in the background: the file's
problems (when it has any, nothing else), else every pair's status and the Table 5 report; its
figures as PNG only when asked for (drawing them all takes longer than reading the benchmark)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.benchmark.loader import LoadedBenchmark, load_benchmark
from studio.benchmark.report import BenchmarkReport, benchmark_report
from studio.benchmark.status import PairStatus


@dataclass(frozen=True)
class BenchmarkOverview:
    loaded: LoadedBenchmark
    report: BenchmarkReport | None  # None while the file has errors

    @property
    def pairs(self) -> dict[tuple[str, str], PairStatus]:
        """(project, system) -> its status."""
        return {} if self.report is None else {(p.project, p.system): p for p in self.report.pairs}


def benchmark_overview(path: Path) -> BenchmarkOverview:
    """NotABenchmarkError when there is no file; the file's problems, or the report."""
    loaded = load_benchmark(path)
    if loaded.errors or loaded.benchmark is None:
        return BenchmarkOverview(loaded, None)
    return BenchmarkOverview(loaded, benchmark_report(loaded))


def figure_png(report: BenchmarkReport, name: str) -> bytes:
    """The figure `name` of the report as PNG: the bytes `benchmark report --out` writes as NAME.png."""
    from studio.benchmark.figures import one_figure, rendered

    return rendered(one_figure(report, name), "png")
