"""Where every (system, project) pair of a benchmark stands: its run (not started, pending, running,
failed and why, cancelled, interrupted, completed; or a named submission of the verdict store), then
its judging by the benchmark's judge (not judged, judged with N verdicts missing, scored), and how
many attempts it has. Every pair of systems x projects is listed: nothing is dropped unnamed."""

from __future__ import annotations

from dataclasses import dataclass

from studio.benchmark.loader import BenchmarkProject, LoadedBenchmark
from studio.benchmark.model import Outcome
from studio.benchmark.reading import BenchmarkReading, ProjectReading

NOT_STARTED, MISSING, SUBMITTED = "not started", "missing", "submitted"
NOT_JUDGED, SCORED = "not judged", "scored"


@dataclass(frozen=True)
class PairStatus:
    system: str
    project: str
    outcome: Outcome | None  # the reported one
    attempts: int
    run: str  # NOT_STARTED, a run status (pending, running, failed, ...), SUBMITTED or MISSING
    detail: str  # the run's message (why it failed), or why the submission is missing
    judging: str | None  # None before a run completes; NOT_JUDGED, "judged", SCORED
    verdicts: int = 0  # the decisions with a verdict (the judge's, or the experts' over it)
    missing: int = 0  # the decisions of the pair's rubrics without one

    @property
    def state(self) -> str:
        """How far the pair got, in one word for a display: a run that went wrong (failed, missing,
        cancelled), else its judging once it has one, else its run."""
        if self.run in ("failed", "missing", "cancelled"):
            return self.run
        return self.judging or self.run

    @property
    def text(self) -> str:
        """One cell of `benchmark status`: "completed, scored", "failed: Docker engine lost", ..."""
        parts = [self.run + (f": {self.detail}" if self.detail else "")]
        if self.judging == "judged":
            parts.append(f"judged, {self.missing} of {self.verdicts + self.missing} verdicts missing")
        elif self.judging is not None:
            parts.append(self.judging)
        if self.attempts > 1:
            parts.append(f"{self.attempts} attempts")
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {"system": self.system, "project": self.project,
                "submission": None if self.outcome is None else self.outcome.submission, "attempts": self.attempts,
                "run": self.run, "detail": self.detail or None, "judging": self.judging, "verdicts": self.verdicts,
                "missing": self.missing}


def benchmark_status(loaded: LoadedBenchmark, reading: BenchmarkReading | None = None) -> list[PairStatus]:
    """Every pair, systems in file order, projects in file order; each project read once (`reading`:
    the projects as a report has read them already)."""
    benchmark = loaded.benchmark
    if benchmark is None:
        return []
    reading = reading or BenchmarkReading(loaded)
    reported = loaded.reported()
    judge = benchmark.judge_rater
    out = []
    for project_id, project in loaded.projects.items():
        for system in benchmark.systems:
            outcome = reported.get((system.id, project_id))
            attempts = len(loaded.attempts(system.id, project_id))
            if outcome is None:
                out.append(PairStatus(system.id, project_id, None, attempts, NOT_STARTED, "", None))
                continue
            out.append(_pair(reading, project, system.id, outcome, attempts, judge))
    return out


def _pair(reading: BenchmarkReading, project: BenchmarkProject, system: str, outcome: Outcome, attempts: int,
          judge: str | None) -> PairStatus:
    from studio.judging.verdict_store import VerdictStore
    from studio.runs.errors import RunError
    from studio.runs.record import RECORD_FILE, RunStatus, load_run, shown_status
    from studio.store import layout

    run_dir = project.folder / layout.RUNS_DIR / outcome.submission
    stored = outcome.submission in VerdictStore(project.folder).submissions()
    if (run_dir / RECORD_FILE).is_file():
        try:
            record = load_run(run_dir)
        except RunError as error:
            return PairStatus(system, project.project_id or "", outcome, attempts, MISSING, str(error), None)
        status = shown_status(run_dir, record)
        run, detail = status.value, record.message or ""
        if status in (RunStatus.PENDING, RunStatus.RUNNING):
            return PairStatus(system, project.project_id or "", outcome, attempts, run, detail, None)
        # a run that stopped early has checkpoints to judge: they count, the rest is missing
    elif stored:
        run, detail = SUBMITTED, ""
    else:
        return PairStatus(system, project.project_id or "", outcome, attempts, MISSING,
                          f"no run or submission {outcome.submission} in {project.written} (`dbstudio runs list "
                          f"{project.written}` lists its runs)", None)
    judging, verdicts, missing = (_judging(reading.project(project.project_id or ""), outcome.submission, judge)
                                  if stored else (NOT_JUDGED, 0, 0))
    return PairStatus(system, project.project_id or "", outcome, attempts, run, detail, judging, verdicts, missing)


def _judging(reading: ProjectReading, submission: str, judge: str | None) -> tuple[str, int, int]:
    """(judging state, decisions with a verdict, decisions without) of one submission's rubrics."""
    from studio.judging.decisions import choose

    verdicts = reading.of(submission)
    if verdicts is None:
        return NOT_JUDGED, 0, 0
    if judge is not None and judge not in reading.raters_of(submission):
        return NOT_JUDGED, 0, 0
    # the verdict each score row would hold (studio.judging.tables.score_rows), counted without the rows
    decisions = verdicts.found.decisions
    nothing: dict = {}
    chosen = [choose(decisions.get((submission, scope, entry.id), nothing), judge).value
              for scope, entries in verdicts.rubrics.items() for entry in entries.values()]
    missing = chosen.count(None)
    if missing == len(chosen):
        return NOT_JUDGED, 0, missing
    return (SCORED if missing == 0 else "judged"), len(chosen) - missing, missing
