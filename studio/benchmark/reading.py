"""Each project of a benchmark read once, for its pairs' status and its report alike: its files, its
rubrics and the verdicts of its reported submissions, each verdict file parsed once (a paper-scale
benchmark has 77 pairs over 11 projects: reading a project per pair read each one seven times)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from studio.benchmark.loader import BenchmarkProject, LoadedBenchmark
from studio.errors import StudioError

if TYPE_CHECKING:
    from studio.judging.tables import ProjectVerdicts
    from studio.scoring.project_rubrics import ProjectRubrics
    from studio.store.loader import LoadedProject


@dataclass
class ProjectReading:
    """One project as its status and its report need it."""

    project: BenchmarkProject
    project_id: str
    files: LoadedProject
    stored: frozenset[str]  # the submissions of its verdict store
    rubrics: ProjectRubrics | None  # None when they do not resolve (rubric_error says why)
    rubric_error: StudioError | None
    judged: list[str]  # its reported submissions with verdicts, in outcome order
    verdicts: ProjectVerdicts | None  # theirs, read together (None: none judged, or verdict_error)
    verdict_error: StudioError | None
    raters: dict[str, frozenset[str]] = field(default_factory=dict)  # submission -> who rated a decision of it

    def of(self, submission: str) -> ProjectVerdicts | None:
        """One judged submission's verdicts, or None when they cannot be read (as `dbstudio score` would
        say why: its own files are read alone when another submission's fail)."""
        if self.verdicts is not None:
            return replace(self.verdicts, submissions=[submission])
        if self.rubrics is None or submission not in self.stored:
            return None
        from studio.judging.tables import read_project_verdicts

        try:
            return read_project_verdicts(self.project.folder, self.files.project, self.project_id, self.rubrics,
                                         [submission])
        except StudioError:
            return None

    def raters_of(self, submission: str) -> frozenset[str]:
        if submission in self.raters:
            return self.raters[submission]
        verdicts = self.of(submission)
        if verdicts is None:
            return frozenset()
        return frozenset(r for (s, _, _), ratings in verdicts.found.decisions.items() if s == submission
                         for r in ratings)


class BenchmarkReading:
    """The benchmark's projects, each read on first use and then kept."""

    def __init__(self, loaded: LoadedBenchmark) -> None:
        self.loaded = loaded
        reported = loaded.reported()
        self.reported = {pid: [o.submission for (_, p), o in reported.items() if p == pid] for pid in loaded.projects}
        self._read: dict[str, ProjectReading] = {}

    def project(self, project_id: str) -> ProjectReading:
        if project_id not in self._read:
            self._read[project_id] = read_project(self.loaded.projects[project_id], project_id,
                                                  self.reported.get(project_id, []))
        return self._read[project_id]


def read_project(project: BenchmarkProject, project_id: str, reported: list[str]) -> ProjectReading:
    from studio.judging.tables import read_project_verdicts
    from studio.judging.verdict_store import VerdictStore
    from studio.scoring.project_rubrics import project_rubrics
    from studio.store.loader import load_project

    files = load_project(project.folder)
    stored = frozenset(VerdictStore(project.folder).submissions())
    rubrics, rubric_error = None, None
    try:
        rubrics = project_rubrics(files.project)
    except StudioError as exc:
        rubric_error = exc
    judged = list(dict.fromkeys(s for s in reported if s in stored))
    verdicts, verdict_error = None, None
    raters: dict[str, frozenset[str]] = {}
    if judged and rubrics is not None:
        try:
            verdicts = read_project_verdicts(project.folder, files.project, project_id, rubrics, judged)
        except StudioError as exc:
            verdict_error = exc
        else:
            found: dict[str, set[str]] = {s: set() for s in judged}
            for (submission, _, _), ratings in verdicts.found.decisions.items():
                found.setdefault(submission, set()).update(ratings)
            raters = {s: frozenset(r) for s, r in found.items()}
    return ProjectReading(project, project_id, files, stored, rubrics, rubric_error, judged, verdicts, verdict_error,
                          raters)
