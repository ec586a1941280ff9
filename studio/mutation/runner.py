"""Mutation testing of a project's rubrics: judge the reference package, then each mutant, and compare.

The reference submission of every scope is written under .dbstudio/mutation/reference/, each mutant's
one changed scope under .dbstudio/mutation/mutants/ID/. Programmatic checks run on every submission; with
judge settings the judge runs too, its verdicts kept in .dbstudio/mutation/verdicts/ (never the project's
verdict store: a mutant is no system's submission). A mutant's scope is asked again only where its files
changed: the judge's reuse key holds the evidence, so a criterion whose evidence a mutant leaves as the
reference had it reuses the reference's verdict, and a second run reuses everything still valid.
Cancelling stops after the mutant under way; what was judged is kept, and the next run goes on from there.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.errors import StudioError
from studio.model.vocabulary import FINAL_SCOPE
from studio.mutation.edits import apply_edit
from studio.mutation.mutants import Mutant, generate_mutants
from studio.mutation.reference import MutationError, ReferencePackage, load_reference
from studio.mutation.report import (
    FAILED,
    KILLED,
    NOT_RUN,
    SURVIVED,
    UNDECIDED,
    MutantResult,
    MutationReport,
    ScopeResult,
    rubric_fingerprints,
    write_report,
)
from studio.store import layout
from studio.store.atomic import write_atomic

if TYPE_CHECKING:
    from studio.judging.client import ChatClient
    from studio.judging.judge import JudgeSettings
    from studio.judging.verdicts import Verdict
    from studio.scoring.engine import RubricResult
    from studio.store.loader import LoadedProject

__all__ = ["MutationProgress", "mutate_project", "planned_mutants"]

REFERENCE_ID = "reference"


@dataclass(frozen=True)
class MutationProgress:
    done: int  # submissions finished: the reference's scopes, then one per mutant
    total: int
    label: str  # what is being judged now


class MutationStore:
    """The judge's verdicts on the reference and the mutants, one JSON file per submission. A mutant reads the
    reference's verdicts under its own: the judge reuses those whose evidence the mutant did not change."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._cache: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def _path(self, submission_id: str) -> Path:
        return self.root / f"{submission_id}.json"

    def _load(self, submission_id: str) -> dict[str, list[dict[str, Any]]]:
        if submission_id not in self._cache:
            path = self._path(submission_id)
            try:
                data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
            except (OSError, ValueError):
                data = {}  # a cache: a damaged file is judged again
            self._cache[submission_id] = data if isinstance(data, dict) else {}
        return self._cache[submission_id]

    def _own(self, submission_id: str, rater: str) -> list[Verdict]:
        from pydantic import ValidationError

        from studio.judging.verdicts import Verdict

        found = []
        for item in self._load(submission_id).get(rater, []):
            try:
                found.append(Verdict.model_validate(item))
            except ValidationError:
                continue
        return found

    def read(self, submission_id: str, rater: str) -> list[Verdict]:
        merged = {(v.scope, v.criterion): v for v in self._own(REFERENCE_ID, rater)}
        if submission_id != REFERENCE_ID:
            merged.update({(v.scope, v.criterion): v for v in self._own(submission_id, rater)})
        return list(merged.values())

    def put(self, submission_id: str, verdicts: Sequence[Verdict]) -> None:
        data = self._load(submission_id)
        for verdict in verdicts:
            kept = [item for item in data.get(verdict.rater, [])
                    if (item.get("scope"), item.get("criterion")) != (verdict.scope, verdict.criterion)]
            kept.append(verdict.model_dump(mode="json"))
            data[verdict.rater] = kept
        self.root.mkdir(parents=True, exist_ok=True)
        write_atomic(self._path(submission_id), json.dumps(data, ensure_ascii=False).encode("utf-8"))

    def forget(self, keep: set[str]) -> None:
        """Drop the files of mutants no longer generated."""
        if not self.root.is_dir():
            return
        for path in self.root.glob("*.json"):
            if path.stem != REFERENCE_ID and path.stem not in keep:
                path.unlink(missing_ok=True)


def _workdir(project_dir: Path) -> Path:
    return Path(project_dir) / layout.MUTATION_DIR


def _prepare(project_dir: Path) -> tuple[LoadedProject, ReferencePackage, Path]:
    from studio.judging.run_judging import loaded_for_judging

    try:
        loaded = loaded_for_judging(project_dir)
    except StudioError as exc:
        raise MutationError(str(exc)) from None
    package = load_reference(project_dir, loaded.project)
    work = _workdir(project_dir)
    for scope in _scopes(loaded):
        package.materialize(scope, work / "reference" / scope)
    return loaded, package, work


def _scopes(loaded: LoadedProject) -> list[str]:
    from studio.judging.scope import scopes_of

    return scopes_of(loaded.project)


def planned_mutants(project_dir: Path, kinds: Sequence[str] | None = None) -> list[Mutant]:
    """The mutants `mutate_project` would judge, nothing judged (the reference submissions are written)."""
    loaded, package, work = _prepare(Path(project_dir))
    return generate_mutants(loaded.project, package, lambda scope: work / "reference" / scope, kinds)


class _Run:
    def __init__(self, project_dir: Path, judge: JudgeSettings | None, client: ChatClient | None,
                 progress: Callable[[MutationProgress], None] | None, cancel: Callable[[], bool] | None) -> None:
        self.project_dir = project_dir
        self.judge = judge
        self.client = client
        self.progress = progress
        self.cancel = cancel
        self.loaded, self.package, self.work = _prepare(project_dir)
        self.store = MutationStore(self.work / "verdicts")
        self.requests = self.tokens = self.reused = 0
        from studio.scoring.project_rubrics import project_rubrics

        try:
            self.rubrics = project_rubrics(self.loaded.project)
        except StudioError as exc:
            raise MutationError(str(exc)) from None

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel()

    def verdicts(self, scope: str, folder: Path, submission_id: str) -> dict[str, bool | None]:
        """criterion -> True (its statement holds), False, or None (not decided)."""
        if self.judge is not None:
            from studio.judging.judge import judge_submission
            from studio.judging.submission import Submission

            try:
                summary = judge_submission(self.loaded, Submission(submission_id, scope, folder), self.judge,
                                           self.store, client=self.client, cancel=self.cancel)
            except StudioError as exc:
                raise MutationError(f"judging {submission_id} on {scope}: {exc}") from None
            self.requests += summary.requests
            self.tokens += summary.costs.prompt_tokens + summary.costs.completion_tokens
            self.reused += summary.reused
            rater = summary.raters[0] if summary.raters else self.judge.rater
            return {v.criterion: _holds(v.verdict) for v in self.store.read(submission_id, rater) if v.scope == scope}
        return self._checks(scope, folder)

    def _checks(self, scope: str, folder: Path) -> dict[str, bool | None]:
        from studio.judging.checks import run_check
        from studio.judging.errors import JudgingError
        from studio.judging.scope import scope_criteria

        found: dict[str, bool | None] = {}
        for scoped in scope_criteria(self.loaded.project, scope):
            check = scoped.check
            if check is None or check.use.value != "criterion":
                found[scoped.id] = None
                continue
            try:
                found[scoped.id] = run_check(folder, check).passed
            except JudgingError:
                found[scoped.id] = None
        return found

    def score(self, scope: str, holds: dict[str, bool | None]) -> RubricResult:
        from studio.scoring.engine import ScoredCriterion, score_rubric

        entries = self.rubrics.get(scope, {})
        return score_rubric([ScoredCriterion(e.id, e.weight, e.target, e.dimension, holds.get(e.id), e.gate,
                                             e.requires) for e in entries.values()])

    def against(self, scope: str, result: RubricResult) -> dict[str, bool | None]:
        """criterion -> True when it counts against the submission, None when not decided."""
        entries = list(self.rubrics.get(scope, {}).values())
        found: dict[str, bool | None] = {}
        for entry, effective in zip(entries, result.effective or (None,) * len(entries), strict=False):
            if effective is None:
                found[entry.id] = None
            elif entry.gate or entry.weight < 0:
                found[entry.id] = effective
            else:
                found[entry.id] = not effective
        return found

    def go(self, kinds: Sequence[str] | None) -> MutationReport:
        scopes = _scopes(self.loaded)
        mutants = generate_mutants(self.loaded.project, self.package, lambda scope: self.work / "reference" / scope,
                                   kinds)
        self.store.forget({f"mutant-{m.id}" for m in mutants})
        shutil.rmtree(self.work / "mutants", ignore_errors=True)
        total = len(scopes) + len(mutants)
        done = 0
        reference: dict[str, ScopeResult] = {}
        ref_against: dict[str, dict[str, bool | None]] = {}
        ref_results: dict[str, RubricResult] = {}
        for scope in scopes:
            self._report(done, total, f"reference, {scope}")
            holds = self.verdicts(scope, self.work / "reference" / scope, REFERENCE_ID)
            result = self.score(scope, holds)
            ref_results[scope] = result
            ref_against[scope] = self.against(scope, result)
            reference[scope] = ScopeResult(
                scope, result.score, result.low, result.high, result.gate_triggered,
                [cid for cid, bad in ref_against[scope].items() if bad],
                [cid for cid, bad in ref_against[scope].items() if bad is None])
            done += 1
        results: list[MutantResult] = []
        cancelled = False
        for mutant in mutants:
            if cancelled or self.cancelled():
                cancelled = True
                results.append(MutantResult(mutant.to_json(), NOT_RUN))
                continue
            self._report(done, total, f"{mutant.id}: {mutant.broke}")
            results.append(self.one(mutant, ref_against, ref_results))
            done += 1
        self._report(done, total, "done")
        prints, criteria = rubric_fingerprints(self.loaded.project)
        checkpoints = [reference[s] for s in scopes if s != FINAL_SCOPE]
        process = (sum(r.score for r in checkpoints if r.score is not None) / len(checkpoints)
                   if checkpoints and all(r.score is not None for r in checkpoints) else None)
        final = reference[FINAL_SCOPE].score if FINAL_SCOPE in reference else None
        report = MutationReport(
            self.loaded.project.info.id if self.loaded.project.info is not None else self.project_dir.name,
            datetime.now(UTC).isoformat(timespec="seconds"), self.judge.describe() if self.judge else None,
            reference, results, prints, self.package.key(), process, final, cancelled,
            self.requests, self.tokens, self.reused, criteria)
        write_report(self.project_dir, report)
        return report

    def one(self, mutant: Mutant, ref_against: dict[str, dict[str, bool | None]],
            ref_results: dict[str, RubricResult]) -> MutantResult:
        scope = mutant.scope
        folder = self.work / "mutants" / mutant.id / scope
        shutil.copytree(self.work / "reference" / scope, folder)
        try:
            mutant.where = apply_edit(mutant.edit, folder)
        except MutationError as exc:
            return MutantResult(mutant.to_json(), FAILED, error=str(exc))
        holds = self.verdicts(scope, folder, f"mutant-{mutant.id}")
        result = self.score(scope, holds)
        against = self.against(scope, result)
        before = ref_against.get(scope, {})
        killers = [cid for cid, bad in against.items() if bad and before.get(cid) is False]
        undecided = any(bad is None for bad in against.values())
        status = KILLED if killers else UNDECIDED if undecided else SURVIVED
        reference = ref_results[scope]
        drop = None
        if result.score is not None and reference.score is not None:
            drop = reference.score - result.score
        return MutantResult(mutant.to_json(), status, killers, result.score, result.low, result.high, drop)

    def _report(self, done: int, total: int, label: str) -> None:
        if self.progress is not None:
            self.progress(MutationProgress(done, total, label))


def _holds(verdict: str) -> bool | None:
    return True if verdict == "pass" else False if verdict == "fail" else None


def mutate_project(project_dir: Path, judge: JudgeSettings | None = None, kinds: Sequence[str] | None = None,
                   progress: Callable[[MutationProgress], None] | None = None,
                   cancel: Callable[[], bool] | None = None, *, client: ChatClient | None = None) -> MutationReport:
    """Judge the reference package and every mutant of the kinds asked (all by default) and write the report
    (.dbstudio/mutation/report.json). Without `judge`, only the criteria with a programmatic check are decided."""
    project_dir = Path(project_dir)
    own_client = judge is not None and client is None
    if own_client:
        from studio.judging.judge import open_client

        assert judge is not None
        client = open_client(judge)
    try:
        with _one_run(project_dir):
            return _Run(project_dir, judge, client, progress, cancel).go(kinds)
    finally:
        if own_client and client is not None:
            client.close()


@contextmanager
def _one_run(project_dir: Path) -> Iterator[None]:
    """One mutation run of a project at a time (the app and a terminal share .dbstudio/mutation/)."""
    from filelock import FileLock, Timeout

    work = _workdir(project_dir)
    work.mkdir(parents=True, exist_ok=True)
    lock = FileLock(work / ".lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise MutationError(f"{project_dir}: another mutation run of this project is under way (in the app or a "
                            "terminal): let it finish, or stop it, and run again") from None
    try:
        yield
    finally:
        lock.release()
