"""`dbstudio benchmark report`: the paper's Table 5 from a benchmark's reported outcomes — the final
and process matrices (projects x systems), each system's means over all its own known projects (as
`dbstudio score` gives them) beside its means over the **shared** project set (the projects on
which every system has a known final score), the subtask pass rate at 90 and the delivery gap;
every pair named with its status, so nothing is dropped silently.

The scores are `dbstudio score`'s, computed by the same engine over the same rubrics: for each
project the verdicts of the selected submissions only (the unselected attempts never count), each
submission scored as its system's id, the benchmark's judge's verdicts where the people have not
settled them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from studio.benchmark.loader import LoadedBenchmark
from studio.benchmark.reading import BenchmarkReading
from studio.benchmark.resources import PairResources, SystemResources, pair_resources, system_resources
from studio.benchmark.status import PairStatus, benchmark_status
from studio.errors import StudioError

if TYPE_CHECKING:
    from studio.benchmark.reading import ProjectReading
    from studio.judging.tables import ProjectVerdicts
    from studio.scoring.engine import BenchmarkScores, SystemSummary


class BenchmarkReportError(StudioError):
    """The benchmark cannot be reported (its file has problems, or a project does not load)."""


@dataclass(frozen=True)
class SharedSet:
    projects: list[str]  # every system's final score is known on them
    systems: dict[str, SystemSummary]  # each system's means over them
    left_out: dict[str, list[str]]  # project -> the systems without a known final score there


@dataclass(frozen=True)
class BenchmarkReport:
    benchmark: str
    judge: str | None
    projects: list[str]  # in the file's order
    systems: list[str]
    scores: BenchmarkScores
    shared: SharedSet
    pairs: list[PairStatus]
    resources: list[PairResources]
    system_resources: dict[str, SystemResources]
    # "PROJECT/SYSTEM" -> its defects by lineage class (studio.scoring.lineage), once `with_lineage` read them
    lineage: dict[str, dict[str, int]] | None = None

    def to_json(self) -> dict:
        from studio.scoring.report import to_json

        scored = to_json(self.scores)
        shared = {"projects": self.shared.projects, "left_out": self.shared.left_out,
                  "systems": {s: _means(summary) for s, summary in self.shared.systems.items()}}
        return {"benchmark": self.benchmark, "judge": self.judge, "projects": scored["projects"],
                "systems": scored["systems"], "missing": scored["missing"], "shared": shared,
                "pairs": [p.to_json() for p in self.pairs],
                "resources": {"tokens": "input + cache_creation + output (cached input counted once)",
                              "agent_time": "the sum of the subtask intervals, seconds",
                              "systems": {s: r.to_json() for s, r in self.system_resources.items()},
                              "pairs": [r.to_json() for r in self.resources]},
                **({"lineage": self.lineage} if self.lineage is not None else {})}


def _means(summary: SystemSummary) -> dict:
    def r(value: float | None, digits: int = 4) -> float | None:
        return None if value is None else round(value, digits)

    return {"final_mean": r(summary.final_mean), "process_mean": r(summary.process_mean), "gap": r(summary.gap),
            "pass_rate_90": r(summary.pass_rate_90, 6), "projects": summary.projects}


def benchmark_report(loaded: LoadedBenchmark, reading: BenchmarkReading | None = None,
                     status: list[PairStatus] | None = None) -> BenchmarkReport:
    """Table 5; `reading` and `status`: the projects and the pairs' status as already read for them."""
    from studio.judging.tables import score_rubrics
    from studio.scoring.engine import score_benchmark, summarise_system

    benchmark = loaded.benchmark
    if benchmark is None or loaded.errors:
        raise BenchmarkReportError(f"{loaded.path} has {len(loaded.errors)} problem(s): fix them first "
                                   "(`dbstudio benchmark validate`)")
    judge = benchmark.judge_rater
    reading = reading or BenchmarkReading(loaded)  # each project read once, for the scores and the status alike
    rubrics: dict = {}
    for project_id, project in loaded.projects.items():
        read = reading.project(project_id)
        project_files = read.files
        if project_files.problems:
            first = project_files.problems[0]
            line, column = project_files.locate(first)
            raise BenchmarkReportError(f"{project.folder / first.file}:{line}:{column}: {first.message} "
                                       f"(`dbstudio validate {project.folder}` lists every problem)")
        if read.rubrics is None:
            raise BenchmarkReportError(f"{project.folder}: {read.rubric_error}") from None
        if read.verdict_error is not None:
            raise read.verdict_error
        verdicts = scored_verdicts(loaded, read, project_id)
        rubrics.update(score_rubrics([verdicts], judge))
    scores = score_benchmark(rubrics)
    systems = [s.id for s in benchmark.systems]
    projects = list(loaded.projects)
    known = {p: {s for s, value in scores.projects.get(p, {}).items() if value.final is not None} for p in projects}
    # rubrics holds each project once: score_rubrics keys by project id
    shared = [p for p in projects if all(s in known[p] for s in systems)] if systems else []
    left_out = {p: [s for s in systems if s not in known[p]] for p in projects if p not in shared}
    shared_means = {s: summarise_system({p: scores.projects[p][s] for p in shared}) for s in systems} if shared else {}
    resources = pair_resources(loaded)
    return BenchmarkReport(benchmark.id, judge, projects, systems, scores, SharedSet(shared, shared_means, left_out),
                           benchmark_status(loaded, reading) if status is None else status, resources, system_resources(resources, systems))


def scored_verdicts(loaded: LoadedBenchmark, read: ProjectReading, project_id: str) -> ProjectVerdicts:
    """A project's verdicts as the report scores them: the selected submissions only, each under its system's
    id, and every system without verdicts there as a submission with none (every verdict missing: its score
    is unknown and the project named among its left-out ones, never dropped, as a table without its rows)."""
    from studio.judging.decisions import StoreDecisions
    from studio.judging.tables import ProjectVerdicts

    benchmark = loaded.benchmark
    assert benchmark is not None and read.rubrics is not None  # the report refuses the project otherwise
    selected = {o.submission: system for (system, pid), o in loaded.reported().items() if pid == project_id}
    if read.verdicts is not None:
        verdicts = replace(read.verdicts, systems={s: selected[s] for s in read.verdicts.submissions})
    else:
        verdicts = ProjectVerdicts(read.project.folder, project_id, read.rubrics, [], {}, StoreDecisions())
    scored = set(verdicts.systems.values())
    unscored = [s.id for s in benchmark.systems if s.id not in scored]
    return replace(verdicts, submissions=verdicts.submissions + [f"\0{s}" for s in unscored],
                   systems={**verdicts.systems, **{f"\0{s}": s for s in unscored}})


def with_lineage(report: BenchmarkReport, loaded: LoadedBenchmark, reading: BenchmarkReading | None = None) \
        -> BenchmarkReport:
    """The report with each judged pair's defects counted by lineage class (docs/lineage.md): how many of
    a system's checkpoint failures persisted, were repaired, or propagated downstream."""
    from studio.judging.lineage_reading import outcomes_of
    from studio.scoring.lineage import classify

    reading = reading or BenchmarkReading(loaded)
    found: dict[str, dict[str, int]] = {}
    for (system, project_id), outcome in loaded.reported().items():
        read = reading.project(project_id)
        verdicts = read.of(outcome.submission) if outcome.submission in read.stored else None
        if verdicts is None or read.files.problems:
            continue
        try:  # the verdicts the report read: no project is read again
            lineage = classify(read.files.project, outcomes_of(verdicts, outcome.submission, report.judge),
                               outcome.submission)
        except StudioError:
            continue
        found[f"{project_id}/{system}"] = lineage.counts()
    return replace(report, lineage=found)


def cell_text(report: BenchmarkReport, project: str, system: str, key: str = "final") -> str:
    """One cell of a Table 5 matrix as shown: the score, its range when verdicts are missing, or —."""
    from studio.scoring.report import _score as score_text

    scores = report.scores.projects.get(project, {}).get(system)
    if scores is None:
        return "—"
    if key == "final":
        return score_text(scores.final, scores.final_range)
    return score_text(scores.process, scores.process_range)


def means_rows(report: BenchmarkReport) -> list[tuple[str, list[float | None]]]:
    """The means under the matrices, per system: (label, one value per system)."""
    own, shared = report.scores.systems, report.shared
    n = len(shared.projects)

    def per(pick: Callable[[str], float | None]) -> list[float | None]:
        return [pick(s) for s in report.systems]

    def pass_rate(system: str) -> float | None:
        rate = own[system].pass_rate_90 if system in own else None
        return None if rate is None else 100 * rate

    return [
        ("final, own", per(lambda s: own[s].final_mean if s in own else None)),
        ("process, own", per(lambda s: own[s].process_mean if s in own else None)),
        ("pass@90 %", per(pass_rate)),
        ("gap, own", per(lambda s: own[s].gap if s in own else None)),
        (f"final, shared ({n})", per(lambda s: shared.systems[s].final_mean if s in shared.systems else None)),
        (f"process, shared ({n})", per(lambda s: shared.systems[s].process_mean if s in shared.systems else None)),
        ("agent min / project", per(lambda s: _scaled(report.system_resources[s].agent_s_mean, 60))),
        ("k tokens / project", per(lambda s: _scaled(report.system_resources[s].tokens_mean, 1000))),
    ]


def _scaled(value: float | None, unit: float) -> float | None:
    return None if value is None else value / unit


def report_text(report: BenchmarkReport) -> str:
    """Table 5 as text: the final and process matrices, then the means (own and shared)."""
    width = max([len(p) for p in report.projects] + [len(label) for label, _ in means_rows(report)])
    cell = max([len(s) for s in report.systems] + [12])
    lines = [f"{report.benchmark}: {len(report.projects)} projects x {len(report.systems)} systems"
             + (f", scored by {report.judge}" if report.judge else "")]
    for title, key in (("Final score", "final"), ("Process score", "process")):
        lines += ["", title, f"{'project':<{width}}  " + "  ".join(f"{s:>{cell}}" for s in report.systems)]
        for project in report.projects:
            texts = [cell_text(report, project, system, key) for system in report.systems]
            lines.append(f"{project:<{width}}  " + "  ".join(f"{t:>{cell}}" for t in texts))
    lines += ["", f"{'means':<{width}}  " + "  ".join(f"{s:>{cell}}" for s in report.systems)]
    for label, values in means_rows(report):
        lines.append(f"{label:<{width}}  " + "  ".join(f"{'—' if v is None else f'{v:.2f}':>{cell}}" for v in values))
    shared = report.shared
    if shared.left_out:
        lines += ["", "Left out of the shared set: " + "; ".join(
            f"{p} (no known final score for {', '.join(systems)})" for p, systems in shared.left_out.items())]
    if report.lineage:
        from studio.scoring.lineage import CLASSES

        lines += ["", "Defect lineage (checkpoint failures by what became of them)",
                  f"{'pair':<{width + cell}}  " + "  ".join(f"{c:>10}" for c in CLASSES)]
        for pair, counts in report.lineage.items():
            lines.append(f"{pair:<{width + cell}}  " + "  ".join(f"{counts.get(c, 0):>10}" for c in CLASSES))
    not_reported = [p for p in report.pairs if p.judging != "scored"]
    if not_reported:
        lines += ["", "Pairs not fully scored:"] + [f"  {p.system} on {p.project}: {p.text}" for p in not_reported]
    return "\n".join(lines)


def matrix_rows(report: BenchmarkReport, key: str) -> list[list[object]]:
    """The final (`key` "final") or process matrix as rows: a header, then a row per project with each
    system's score (None: unknown, its range in the JSON; no verdicts: None too)."""
    rows: list[list[object]] = [["project", *report.systems]]
    for project in report.projects:
        row = report.scores.projects.get(project, {})
        rows.append([project, *[None if system not in row else
                                (row[system].final if key == "final" else row[system].process)
                                for system in report.systems]])
    return rows


def write_report(report: BenchmarkReport, out: Path) -> list[Path]:
    """Into `out`: report.json, final.csv, process.csv, table5.xlsx (both matrices and the means)
    and the figures (studio/benchmark/figures.py) as PNG and SVG; the paths written, each atomically."""
    import csv
    import io
    import json

    from openpyxl import Workbook

    from studio.store.atomic import write_atomic

    if out.exists() and not out.is_dir():
        raise BenchmarkReportError(f"--out {out} is a file: give a folder")
    out.mkdir(parents=True, exist_ok=True)
    written = []

    def put(name: str, data: bytes) -> None:
        write_atomic(out / name, data)
        written.append(out / name)

    put("report.json", (json.dumps(report.to_json(), indent=2) + "\n").encode("utf-8"))
    if report.lineage is not None:
        from studio.scoring.lineage import CLASSES

        text = io.StringIO()
        writer = csv.writer(text)
        writer.writerow(["project", "system", *CLASSES])
        for pair, counts in report.lineage.items():
            project, _, system = pair.partition("/")
            writer.writerow([project, system, *(counts.get(c, 0) for c in CLASSES)])
        put("lineage.csv", text.getvalue().encode("utf-8"))
    book = Workbook()
    book.remove(book.active)
    for key in ("final", "process"):
        rows = matrix_rows(report, key)
        text = io.StringIO()
        csv.writer(text).writerows([["" if v is None else v for v in row] for row in rows])
        put(f"{key}.csv", text.getvalue().encode("utf-8"))
        sheet = book.create_sheet(key.capitalize())
        for row in rows:
            sheet.append(row)
    means = book.create_sheet("Means")
    means.append(["system", "final mean (own)", "process mean (own)", "gap (own)", "pass@90 (own)",
                  f"final mean (shared, {len(report.shared.projects)})", "process mean (shared)"])
    for system in report.systems:
        own = report.scores.systems.get(system)
        shared = report.shared.systems.get(system)
        means.append([system, *([None] * 4 if own is None else
                                [own.final_mean, own.process_mean, own.gap, own.pass_rate_90]),
                      None if shared is None else shared.final_mean, None if shared is None else shared.process_mean])
    data = io.BytesIO()
    book.save(data)
    put("table5.xlsx", data.getvalue())
    from studio.benchmark.figures import all_figures, rendered

    for name, figure in all_figures(report).items():
        for form in ("png", "svg"):
            put(f"{name}.{form}", rendered(figure, form))
    return written
