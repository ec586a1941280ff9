"""The edit-impact preview across a benchmark: a rubric edit in one of its projects, and whether the
systems' order by their means over the shared project set can change.

Every other project keeps its scores (the edit touches one project's rubrics, and only its verdicts
go stale): they are `dbstudio benchmark report`'s. The edited project is scored as saved and as
edited with the benchmark's judge and each system's reported submission
(studio.judging.edit_impact). The shared set is the report's rule (the projects where every system
has a known final score) applied to the scores before the edit, and is kept after it: the edit
makes the question "can the order over the same projects change", not "which projects are known".
Each system's mean over it ranges from the mean of its lows to the mean of its highs, exactly
(each project's verdicts are its own; studio.scoring.edit_impact explains why ranges suffice)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from studio.judging.edit_impact import EditImpactError, ProjectEditImpact, project_edit_impact
from studio.scoring.bounds import ScoreRange
from studio.scoring.edit_impact import MEASURES, Flip, flip_text, mean_span, possible_flips, span_text

if TYPE_CHECKING:
    from studio.model import Project
    from studio.scoring.engine import SystemProjectScores

NO_OUTCOME = "(no outcome: {system})"
"""How a system without a reported outcome in the edited project is named there (every verdict missing)."""

Spans = tuple[ScoreRange | None, ScoreRange | None]  # (final, process)


@dataclass
class BenchmarkEditImpact:
    benchmark: str
    judge: str | None
    project_id: str  # the edited project
    project: ProjectEditImpact  # its submissions named by system
    shared: list[str]  # the shared project set, before the edit
    left_out: dict[str, list[str]]  # project -> the systems without a known final score there, before
    means: dict[str, dict[str, tuple[ScoreRange | None, ScoreRange | None]]] = field(default_factory=dict)
    """system -> measure -> (mean before, mean after) over the shared set."""
    flips: list[Flip] = field(default_factory=list)

    def text(self) -> str:
        lines = [f"benchmark {self.benchmark} (judge {self.judge or 'every judge'}): means over the shared set, "
                 f"{len(self.shared)} project(s) known before the edit"]
        if not self.shared:
            lines.append("  no project has a known final score for every system: no shared set to rank on")
            return "\n".join(lines)
        width = max(len("system"), *(len(s) for s in self.means))
        lines.append(f"  {'system':<{width}}  {'final before':<14} {'after':<14} {'process before':<14} after")
        for system, means in self.means.items():
            (f0, f1), (p0, p1) = means["final"], means["process"]
            lines.append(f"  {system:<{width}}  {span_text(f0):<14} {span_text(f1):<14} {span_text(p0):<14} "
                         f"{span_text(p1)}")
        if self.flips:
            lines.append(f"  orders the edit can change ({len(self.flips)}):")
            lines += ["    " + flip_text(f) for f in self.flips]
        else:
            lines.append("  orders the edit can change: none")
        return "\n".join(lines)

    def to_json(self) -> dict:
        from studio.judging.edit_impact_report import flip_json, span_json

        return {"benchmark": self.benchmark, "judge": self.judge, "project": self.project_id,
                "shared": self.shared, "left_out": self.left_out,
                "means": {system: {measure: {"before": span_json(pair[0]), "after": span_json(pair[1])}
                                   for measure, pair in means.items()} for system, means in self.means.items()},
                "flips": [flip_json(f) for f in self.flips]}


def _spans(scores: SystemProjectScores | None) -> Spans:
    if scores is None:
        return None, None
    exact = scores.range_exact
    final = None if scores.final_range is None else ScoreRange(*scores.final_range, exact)
    process = None if scores.process_range is None else ScoreRange(*scores.process_range, exact)
    return final, process


def benchmark_edit_impact(benchmark: Path | str, root: Path, before: Project, after: Project) -> BenchmarkEditImpact:
    """The preview of the edit of project folder `root` (`before` as saved, `after` as edited) across
    `benchmark` (a benchmark.yaml or its folder). EditImpactError when the benchmark has problems
    or does not hold the project; the report's own errors when a project does not load."""
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.report import benchmark_report

    loaded = load_benchmark(benchmark)
    if loaded.benchmark is None or loaded.errors:
        raise EditImpactError(f"{loaded.path} has {len(loaded.errors)} problem(s): fix them first "
                              f"(`dbstudio benchmark validate {loaded.path}`)")
    folder = Path(root).resolve()
    project_id = next((pid for pid, project in loaded.projects.items() if project.folder == folder), None)
    if project_id is None:
        listed = ", ".join(f"{pid} ({p.written})" for pid, p in loaded.projects.items()) or "none"
        raise EditImpactError(f"{folder} is not one of the projects of {loaded.path} (its projects: {listed}): "
                              "give the folder of the project you edited")
    report = benchmark_report(loaded)
    systems = report.systems
    submission_of = {system: o.submission for (system, pid), o in loaded.reported().items() if pid == project_id}
    names = {submission_of.get(s, NO_OUTCOME.format(system=s)): s for s in systems}
    edited = project_edit_impact(folder, before, after, judge=report.judge, submissions=list(names), systems=names)
    spans_before: dict[str, dict[str, Spans]] = {s: {} for s in systems}
    spans_after: dict[str, dict[str, Spans]] = {s: {} for s in systems}
    for pid in report.projects:
        for system in systems:
            if pid == project_id:
                impact = edited.impact_of(next(sub for sub, s in names.items() if s == system))
                assert impact is not None
                spans_before[system][pid] = (impact.final[0], impact.process[0])
                spans_after[system][pid] = (impact.final[1], impact.process[1])
            else:
                spans_before[system][pid] = spans_after[system][pid] = _spans(
                    report.scores.projects.get(pid, {}).get(system))

    def known_final(system: str, pid: str) -> bool:
        final = spans_before[system][pid][0]
        return final is not None and final.low == final.high

    shared = [p for p in report.projects if all(known_final(s, p) for s in systems)] if systems else []
    left_out = {p: [s for s in systems if not known_final(s, p)] for p in report.projects if p not in shared}
    result = BenchmarkEditImpact(report.benchmark, report.judge, project_id, edited, shared, left_out)
    if not shared:
        return result
    for system in systems:
        result.means[system] = {
            measure: (mean_span([spans_before[system][p][place] for p in shared]),
                      mean_span([spans_after[system][p][place] for p in shared]))
            for place, measure in enumerate(MEASURES)}
    result.flips = [flip for measure in MEASURES for flip in possible_flips(
        measure, {s: result.means[s][measure][0] for s in systems}, {s: result.means[s][measure][1] for s in systems})]
    return result
