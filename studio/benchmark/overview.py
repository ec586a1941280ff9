"""What the app's Benchmark window shows of a benchmark.yaml, computed in the background: the file's
problems (when it has any, nothing else), else every pair's status (the grid, shown first), then the
Table 5 report from the same reading; its figures as PNG only when asked for (drawing them all takes
longer than reading the benchmark)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from studio.benchmark.loader import LoadedBenchmark, load_benchmark
from studio.benchmark.reading import BenchmarkReading
from studio.benchmark.report import BenchmarkReport, benchmark_report
from studio.benchmark.status import PairStatus, benchmark_status


@dataclass(frozen=True)
class BenchmarkOverview:
    loaded: LoadedBenchmark
    status: list[PairStatus] | None  # every pair's; None while the file has errors
    report: BenchmarkReport | None = None  # None while the file has errors, or until it is computed
    reading: BenchmarkReading | None = None  # the projects as the status read them, for the report to reuse

    @property
    def pairs(self) -> dict[tuple[str, str], PairStatus]:
        """(project, system) -> its status."""
        return {(p.project, p.system): p for p in self.status or []}


def benchmark_pairs(path: Path) -> BenchmarkOverview:
    """The file's problems, or every pair's status (what the grid shows first); NotABenchmarkError when
    there is no file."""
    loaded = load_benchmark(path)
    if loaded.errors or loaded.benchmark is None:
        return BenchmarkOverview(loaded, None)
    reading = BenchmarkReading(loaded)
    return BenchmarkOverview(loaded, benchmark_status(loaded, reading), None, reading)


def with_report(overview: BenchmarkOverview) -> BenchmarkOverview:
    """The overview with its report, scored from the projects the status read (nothing read twice)."""
    if overview.status is None:
        return overview
    report = benchmark_report(overview.loaded, overview.reading, overview.status)
    return replace(overview, report=report, reading=None)  # the verdicts read are not kept with the window


def benchmark_overview(path: Path) -> BenchmarkOverview:
    """NotABenchmarkError when there is no file; the file's problems, or every pair's status and the report."""
    return with_report(benchmark_pairs(path))


def figure_png(report: BenchmarkReport, name: str) -> bytes:
    """The figure `name` of the report as PNG: the bytes `benchmark report --out` writes as NAME.png."""
    from studio.benchmark.figures import one_figure, rendered

    return rendered(one_figure(report, name), "png")
