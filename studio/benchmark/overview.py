"""What the app's Benchmark window shows of a benchmark.yaml, computed in the background, in stages
that each show as soon as they are known: the file's problems (when it has any, nothing else), else
every pair's run state (the grid's first paint: no rubric or verdict file read), then each pair's
judging from the projects' verdicts, then the Table 5 report from the same reading; its figures as
PNG only when asked for (drawing them all takes longer than reading the benchmark)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from studio.benchmark.loader import LoadedBenchmark, load_benchmark
from studio.benchmark.reading import BenchmarkReading
from studio.benchmark.report import BenchmarkReport, benchmark_report
from studio.benchmark.status import READING, PairStatus, benchmark_status, run_states


@dataclass(frozen=True)
class BenchmarkOverview:
    loaded: LoadedBenchmark
    status: list[PairStatus] | None  # every pair's (judging READING until read); None while the file has errors
    report: BenchmarkReport | None = None  # None while the file has errors, or until it is computed
    reading: BenchmarkReading | None = None  # the projects as the status read them, for the report to reuse

    @property
    def pairs(self) -> dict[tuple[str, str], PairStatus]:
        """(project, system) -> its status."""
        return {(p.project, p.system): p for p in self.status or []}

    @property
    def judging_known(self) -> bool:
        """Every pair's judging is read (none is READING)."""
        return self.status is not None and all(p.judging != READING for p in self.status)

    def waiting(self) -> list[str]:
        """The projects, in file order, with a pair whose judging is not read yet."""
        return list(dict.fromkeys(p.project for p in self.status or [] if p.judging == READING))


def benchmark_runs(path: Path) -> BenchmarkOverview:
    """The file's problems, or every pair's run state (what the grid shows first, its judging READING
    where verdicts decide it); NotABenchmarkError when there is no file."""
    loaded = load_benchmark(path)
    if loaded.errors or loaded.benchmark is None:
        return BenchmarkOverview(loaded, None)
    return BenchmarkOverview(loaded, run_states(loaded))


def with_judging(overview: BenchmarkOverview, project: str | None = None) -> BenchmarkOverview:
    """The overview with every pair's judging read (`project`: only that project's pairs), each project
    read once and kept for the report."""
    if overview.status is None:
        return overview
    reading = overview.reading or BenchmarkReading(overview.loaded)
    runs = overview.status if project is None else [p for p in overview.status if p.project == project]
    judged = iter(benchmark_status(overview.loaded, reading, runs))
    status = [next(judged) if project is None or p.project == project else p for p in overview.status]
    return replace(overview, status=status, reading=reading)


def benchmark_pairs(path: Path) -> BenchmarkOverview:
    """The file's problems, or every pair's status as `benchmark status` gives it."""
    return with_judging(benchmark_runs(path))


def with_report(overview: BenchmarkOverview) -> BenchmarkOverview:
    """The overview with its report, scored from the projects the status read (nothing read twice)."""
    if overview.status is None:
        return overview
    overview = with_judging(overview) if not overview.judging_known else overview
    report = benchmark_report(overview.loaded, overview.reading, overview.status)
    return replace(overview, report=report, reading=None)  # the verdicts read are not kept with the window


def benchmark_overview(path: Path) -> BenchmarkOverview:
    """NotABenchmarkError when there is no file; the file's problems, or every pair's status and the report."""
    return with_report(benchmark_pairs(path))


def figure_png(report: BenchmarkReport, name: str) -> bytes:
    """The figure `name` of the report as PNG: the bytes `benchmark report --out` writes as NAME.png."""
    from studio.benchmark.figures import one_figure, rendered

    return rendered(one_figure(report, name), "png")
