"""The scores of a project's runs from the verdict store, as the app's scores view and the
trajectory chart show them: per run, each checkpoint score along the timeline, the final score,
and the final rubric's profiles by target and by dimension.

Everything is computed by the scoring engine (studio.scoring.engine) from the verdicts the rule of
studio.judging.decisions chooses, exactly as `dbstudio score --project` computes it from the score
rows of studio.judging.tables; here in one pass per run (a rubric's criteria are the same in every
run, only its verdicts differ), and a run whose verdict files did not change keeps its scores. A
score that missing verdicts could change is unknown and carries its range; a scope without a single
verdict is *not judged*. Neither is ever shown as 0.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from studio.collector import collector_paused
from studio.judging.decisions import StoreDecisions
from studio.model.vocabulary import FINAL_SCOPE

if TYPE_CHECKING:
    from studio.judging.tables import ProjectVerdicts
    from studio.judging.verdict_store import FileSignature
    from studio.judging.verdicts import Verdict
    from studio.judging.visibility import Viewer
    from studio.model import Project
    from studio.scoring.project_rubrics import ProjectRubrics


@dataclass(frozen=True)
class ScopeScore:
    """One rubric (a checkpoint or the final rubric) of one run."""

    scope: str
    score: float | None  # None: unknown (missing verdicts could change it) or not judged
    low: float | None  # the range of an unknown score; equal to score when it is known
    high: float | None
    criteria: int
    missing: int  # criteria without a pass/fail verdict
    gate_triggered: bool = False

    @property
    def judged(self) -> bool:
        """Whether any criterion of the rubric has a verdict."""
        return self.missing < self.criteria

    def text(self) -> str:
        """`72.50`, `0.00 (gate)` when a fatal gate triggered, `38.9–41.2` for an unknown score,
        `not judged` for a rubric without verdicts."""
        if not self.judged:
            return "not judged"
        if self.score is not None:
            return f"{self.score:.2f}" + (" (gate)" if self.gate_triggered else "")
        return f"{self.low:.1f}–{self.high:.1f}"

    def explain(self) -> str:
        """A tooltip: how many verdicts the score rests on, and what the range means."""
        if not self.judged:
            return f"{self.scope}: none of its {self.criteria} criteria has a verdict yet"
        given = f"{self.criteria - self.missing} of {self.criteria} criteria have a verdict"
        gate = "; a fatal gate is triggered: the score is 0" if self.gate_triggered else ""
        if self.score is not None:
            return f"{self.scope}: {given}{gate}"
        return (f"{self.scope}: {given}; the {self.missing} missing verdict(s) leave the score between "
                f"{self.low:.2f} and {self.high:.2f}")


@dataclass(frozen=True)
class RunScores:
    submission: str
    system: str
    checkpoints: list[ScopeScore]  # along the timeline
    final: ScopeScore | None
    process: float | None  # the mean of the checkpoint scores, None when one is unknown
    process_range: tuple[float, float] | None
    targets: dict[str, float | None]  # profile of the final rubric by target; None: unknown or unavailable
    dimensions: dict[str, float | None]
    missing: int

    def process_text(self) -> str:
        if self.process is not None:
            return f"{self.process:.2f}"
        if not any(score.judged for score in self.checkpoints):
            return "not judged"
        if self.process_range is None:
            return "—"
        return f"{self.process_range[0]:.1f}–{self.process_range[1]:.1f}"


@dataclass
class ScoreSheet:
    project_id: str
    title: str
    scopes: list[str]  # the checkpoint rubrics along the timeline
    has_final: bool
    runs: list[RunScores]
    judges: list[str] = field(default_factory=list)  # the judge raters of the store
    judge: str | None = None  # the one judge whose verdicts count (None: every judge, when they agree)
    left_out: str | None = None  # the verdicts left out (stale, on criteria the project no longer has)
    # The groups the final rubric gives positive weight; the others are unavailable, never 0.
    available_targets: list[str] = field(default_factory=list)
    available_dimensions: list[str] = field(default_factory=list)

    def columns(self) -> list[str]:
        """The score table's columns: run, the checkpoints, process, final (when judged) and missing."""
        return ["run", *self.scopes, "process", *(["final"] if self.has_final else []), "missing"]

    def by_scope(self) -> list[dict[str, ScopeScore]]:
        """Each run's scores by scope (a subtask id or final), in the order of `runs`."""
        return [{**{score.scope: score for score in run.checkpoints}, **({FINAL_SCOPE: run.final} if run.final else {})}
                for run in self.runs]

    def table(self) -> tuple[list[str], list[list[str | int]]]:
        """The scores as a table (columns, rows), for export."""
        columns = ["system", "submission", *self.scopes, "process", *(["final"] if self.has_final else []), "missing"]
        rows: list[list[str | int]] = []
        for run in self.runs:
            row: list[str | int] = [run.system, run.submission, *(score.text() for score in run.checkpoints),
                                    run.process_text()]
            if self.has_final:
                row.append(run.final.text() if run.final is not None else "not judged")
            rows.append([*row, run.missing])
        return columns, rows


def score_sheet(verdicts: ProjectVerdicts, judge: str | None = None, title: str = "") -> ScoreSheet:
    """Every submission of `verdicts` scored by the engine, checkpoints in the project's order."""
    from studio.judging.verdicts import is_judge

    tables = _rubric_tables(verdicts.rubrics)
    counted: dict[Pairs | None, bool | None] = {None: None}
    given: dict[str, dict[tuple[str, str], Pairs]] = {submission: {} for submission in verdicts.submissions}
    for (submission, scope, criterion), ratings in verdicts.found.decisions.items():
        if ratings and submission in given:
            given[submission][(scope, criterion)] = tuple(chain.from_iterable(
                (rater, verdict.verdict) for rater, verdict in ratings.items()))
    runs = [_run_scores(submission, verdicts.systems[submission], tables, given[submission], judge, counted)
            for submission in verdicts.submissions]
    judges = sorted(r for r in verdicts.found.raters() if is_judge(r))
    return _sheet(verdicts.project_id, title or verdicts.project_id, verdicts.rubrics, runs, judges, judge,
                  verdicts.found.left_out())


def _sheet(project_id: str, title: str, rubrics: ProjectRubrics, runs: list[RunScores], judges: list[str],
           judge: str | None, left_out: str | None) -> ScoreSheet:
    scopes = [scope for scope in rubrics if scope != FINAL_SCOPE and rubrics[scope]]
    final = [entry for entry in rubrics.get(FINAL_SCOPE, {}).values() if entry.weight > 0]
    return ScoreSheet(project_id, title, scopes, bool(rubrics.get(FINAL_SCOPE)), runs, judges, judge, left_out,
                      sorted({e.target for e in final}), sorted({e.dimension for e in final}))


class _RubricTable(NamedTuple):
    """One rubric's columns as every run has them: only the verdicts differ from run to run, so the
    criteria are listed once per sheet, not once per run and criterion."""

    scope: str
    ids: tuple[str, ...]
    weights: tuple[int, ...]
    targets: tuple[str, ...]
    dimensions: tuple[str, ...]
    gates: tuple[bool, ...]
    requires: tuple[tuple[str, ...], ...]
    decisions: tuple[tuple[str, str], ...]  # (scope, criterion id) of each criterion, as a run's verdicts are keyed


def _rubric_tables(rubrics: ProjectRubrics) -> list[_RubricTable]:
    """The rubrics with criteria, in project order, each criterion in the order a score table lists it."""
    return [_RubricTable(scope, *zip(*((e.id, e.weight, e.target, e.dimension, e.gate, e.requires, (scope, e.id))
                                       for e in entries.values()), strict=True))
            for scope, entries in rubrics.items() if entries]


Pairs = tuple[str, ...]
"""A decision's current verdicts as (rater, verdict, rater, verdict, ...), in the order the store's
files list the raters: what the rule of studio.judging.decisions.choose depends on."""


def _counted(pairs: Pairs, judge: str | None) -> bool | None:
    """The verdict a score counts (True pass, False fail, None missing) by the rule of
    studio.judging.decisions.choose, which depends only on who gave which verdict: asked once per
    combination of raters and verdicts (a sheet has a few dozen), then looked up."""
    from studio.judging.decisions import choose

    ratings = {rater: _Rated(value) for rater, value in zip(pairs[::2], pairs[1::2], strict=True)}
    chosen = choose(ratings, judge).value
    return None if chosen is None else chosen == "pass"


class _Rated(NamedTuple):
    """A verdict as the rule of choose reads it: its value, nothing else."""

    verdict: str


_UNSEEN = object()


def _run_scores(submission: str, system: str, tables: list[_RubricTable], given: Mapping[tuple[str, str], Pairs],
                judge: str | None, counted: dict[Pairs | None, bool | None]) -> RunScores:
    """One run scored in one pass over its decisions (`given`: (scope, criterion) -> its verdicts;
    `counted`: the verdict counted per combination, None -> None included): the engine's rubric
    scores, profiles and process score, as score_system_project gives them for the run's score rows."""
    from studio.scoring.engine import RubricColumns, group_profiles, score_rubric, system_project_scores

    results = {}
    final_rubric = None
    count, find = counted.get, given.get
    for table in tables:
        verdicts = [count(find(key), _UNSEEN) for key in table.decisions]
        if _UNSEEN in verdicts:
            for position, key in enumerate(table.decisions):
                if verdicts[position] is _UNSEEN:
                    pairs = given[key]
                    verdicts[position] = counted[pairs] = _counted(pairs, judge)
        rubric = RubricColumns(table.ids, table.weights, table.targets, table.dimensions,
                               tuple(verdicts),  # type: ignore[arg-type]  # none is _UNSEEN any more
                               table.gates, table.requires)
        results[table.scope] = score_rubric(rubric)
        if table.scope == FINAL_SCOPE:
            final_rubric = rubric
    profiles = group_profiles(final_rubric, results[FINAL_SCOPE].effective) if final_rubric is not None else None
    overall = system_project_scores(results, profiles)
    scores = {table.scope: ScopeScore(table.scope, result.score, result.low, result.high, len(table.ids),
                                      result.missing, result.gate_triggered)
              for table, result in zip(tables, results.values(), strict=True)}
    final = scores.pop(FINAL_SCOPE, None)
    return RunScores(submission, system, list(scores.values()), final, overall.process, overall.process_range,
                     overall.targets, overall.dimensions, overall.missing)


def read_score_sheet(root: Path, project: Project, judge: str | None = None,
                     runs: list[str] | None = None, viewer: Viewer | None = None) -> ScoreSheet:
    """The score sheet of a project folder and its loaded model (the app's entry point: it runs on
    a worker thread). JudgingError when the store has no verdicts; ProjectRubricError when the
    project's rubrics cannot be listed.

    A run whose verdict files are unchanged since the last sheet of the same project, rubrics,
    judge and viewer keeps its scores (see `_RunCache`): after a verdict is stored, only that
    run is read and scored again."""
    from studio.judging.decisions import current_versions
    from studio.judging.tables import judged_submissions, system_names
    from studio.judging.verdict_store import VerdictStore
    from studio.judging.verdicts import is_judge
    from studio.scoring.project_rubrics import project_rubrics

    root = Path(root)
    project_id = project.info.id if project.info is not None else root.name
    rubrics, versions = project_rubrics(project), current_versions(project)
    store = VerdictStore(root)
    with collector_paused():
        listed = store.signed()  # each folder scanned once: the submissions, their files and signatures
        submissions = judged_submissions(store, runs, sorted(listed))
        systems = system_names(root, submissions)
        sheet, cache = _RUNS.for_sheet(root, rubrics, versions, judge, viewer)
        files = {submission: listed[submission][0] for submission in submissions}
        todo = [s for s in submissions if (s, systems[s], files[s]) not in cache]
        if todo:
            tables = _rubric_tables(rubrics)
            counted: dict[Pairs | None, bool | None] = {None: None}
            for submission in todo:
                given, raters, stale, unknown = _current(submission, listed[submission][1], versions, viewer)
                cache[(submission, systems[submission], files[submission])] = _CachedRun(
                    _run_scores(submission, systems[submission], tables, given, judge, counted),
                    frozenset(raters), stale, unknown)
        kept = [cache[(s, systems[s], files[s])] for s in submissions]
        _RUNS.keep(sheet, {key: cache[key] for key in ((s, systems[s], files[s]) for s in submissions)})
    left = StoreDecisions(stale=[item for run in kept for item in run.stale],
                          unknown=[item for run in kept for item in run.unknown])
    judges = sorted({rater for run in kept for rater in run.raters if is_judge(rater)})
    # titled by the project id, as `dbstudio score --trajectory` draws it
    return _sheet(project_id, project_id, rubrics, [run.scores for run in kept], judges, judge, left.left_out())


# -- runs scored before -------------------------------------------------------------------------
class _CachedRun(NamedTuple):
    scores: RunScores
    raters: frozenset[str]  # who gave the run's current verdicts
    stale: list[tuple[str, Verdict]]  # the run's verdicts left out, as StoreDecisions lists them
    unknown: list[tuple[str, Verdict]]


RunKey = tuple[str, str, object]  # (submission, system name, the signature of its verdict files)


class _RunCache:
    """Runs scored before, per sheet (project folder, rubrics, criterion versions, judge, viewer),
    by (submission, system, its files' signature). A file is rewritten atomically (a new inode), so
    its (name, inode, size, mtime_ns) tells a stored verdict from an unchanged file, as the store's
    own parse cache does. The sheets of the last few views are kept; each keeps only its runs of
    the last read."""

    SHEETS = 4

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sheets: dict[tuple, dict[RunKey, _CachedRun]] = {}

    def for_sheet(self, root: Path, rubrics: ProjectRubrics, versions: Mapping[tuple[str, str], str],
                  judge: str | None, viewer: Viewer | None) -> tuple[tuple, dict[RunKey, _CachedRun]]:
        """(the sheet's key, a copy of the runs scored for it before, to add to and `keep`)."""
        sheet = (str(root.absolute()), tuple((scope, tuple(entries.values())) for scope, entries in rubrics.items()),
                 tuple(sorted(versions.items())), judge, viewer)
        with self._lock:
            found = dict(self._sheets.pop(sheet, {}))
            self._sheets[sheet] = found
            while len(self._sheets) > self.SHEETS:
                del self._sheets[next(iter(self._sheets))]
        return sheet, found

    def keep(self, sheet: tuple, runs: dict[RunKey, _CachedRun]) -> None:
        """The sheet's runs of its last read (the runs it no longer reads are dropped)."""
        with self._lock:
            if sheet in self._sheets:
                self._sheets[sheet] = runs

    def clear(self) -> None:
        with self._lock:
            self._sheets.clear()


_RUNS = _RunCache()


def forget_scored() -> None:
    """Score every run afresh next time (a bench timing a cold sheet; nothing else needs it)."""
    _RUNS.clear()


def _current(submission: str, files: list[tuple[Path, FileSignature | None]], versions: Mapping[tuple[str, str], str],
             viewer: Viewer | None) -> tuple[dict[tuple[str, str], Pairs], set[str], list[tuple[str, Verdict]],
                                             list[tuple[str, Verdict]]]:
    """A submission's current verdicts by decision, as studio.judging.decisions.collect chooses them
    (only those given on the criterion as it is now; with a `viewer`, those blind review lets them
    see); who gave them; and the verdicts left out, stale and unknown, in the order collect lists them."""
    from studio.judging.verdict_store import given_in, read_file

    given: dict[tuple[str, str], Pairs] = {}
    stale: list[tuple[str, Verdict]] = []
    unknown: list[tuple[str, Verdict]] = []
    version_of = versions.get
    for path, signature in files:
        rater, decisions, values, given_versions = given_in(path, signature)
        left_out = list(map(version_of, decisions)) != list(given_versions)
        rows: Iterable[tuple[tuple[str, str], str]] = zip(decisions, values, strict=True)
        if left_out:  # rare (a criterion edited since): only the verdicts on the criteria as they are now
            rows = [(key, value) for key, value, version in zip(decisions, values, given_versions, strict=True)
                    if version_of(key) == version]
        if not given and not left_out:  # the run's first file (a file lists a decision once)
            given.update(zip(decisions, zip(repeat(rater), values)))
            continue
        for key, value in rows:
            before = given.get(key)
            if before is None:
                given[key] = (rater, value)
            elif rater not in before[::2]:
                given[key] = (*before, rater, value)
            else:  # one rater named in two files: the later file's verdict, where the first one was
                ratings = dict(zip(before[::2], before[1::2]))
                ratings[rater] = value
                given[key] = tuple(chain.from_iterable(ratings.items()))
        if left_out:  # rare (a criterion edited since): the file's verdicts themselves, to name them
            for verdict in read_file(path):
                now = version_of((verdict.scope, verdict.criterion))
                if now is None:
                    unknown.append((submission, verdict))
                elif now != verdict.criterion_version:
                    stale.append((submission, verdict))
    if viewer is not None and viewer.hides_any():
        for key, pairs in list(given.items()):
            seen = viewer.visible(dict(zip(pairs[::2], pairs[1::2])))
            if seen:
                given[key] = tuple(chain.from_iterable(seen.items()))
            else:
                del given[key]
    raters = {rater for pairs in given.values() for rater in pairs[::2]}
    return given, raters, stale, unknown
