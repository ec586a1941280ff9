"""The review queue: every decision (submission × scope × criterion) an expert can review, built
from the verdict store and the project's current rubrics, with what the expert reads beside it
(the criterion, the instruction of its subtask or the delivery contract, the judge's verdict,
rationale and cited evidence) and every rater's current verdict.

A submission's scopes in the queue are those with at least one current verdict (a judged
checkpoint or final package); each brings every criterion of its rubric, judged or not.
Recording an expert's verdict is a `Verdict` under the expert's name, written through
`VerdictStore.put` (their own file); the settled verdict of an adjudication is stored under the
rater `adjudicated`. Skipping a decision records nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from studio.collector import collector, collector_paused
from studio.judging.decisions import DecisionKey, choose, collect, current_versions
from studio.judging.errors import JudgingError
from studio.judging.scope import scope_context, scopes_of
from studio.judging.verdict_store import VerdictStore, rater_slug, scope_rank
from studio.judging.verdicts import ADJUDICATED, Verdict, VerdictRole, is_expert, is_judge
from studio.model.vocabulary import FINAL_SCOPE

if TYPE_CHECKING:
    from studio.judging.submission import Submission
    from studio.model import Project
    from studio.scoring.project_rubrics import ProjectRubrics
    from studio.store.loader import LoadedProject

GIVEN_ROLES = ("rater", "author")  # the parts an expert gives a verdict in; adjudicate records "adjudicator"
GIVEN_VALUES = ("pass", "fail", "na")  # what an expert or an adjudication records; "missing" is the judge's
RATER_NAME_RULE = "letters, digits, spaces and - _ . @"


@dataclass(frozen=True)
class QueueCriterion:
    """The criterion as it is scored (a reused final criterion reads as its checkpoint original)."""

    id: str
    text: str
    target: str
    dimension: str
    weight: int
    gate: bool
    version: str


@dataclass(slots=True)  # 100,000 of them in a review: no dict each
class Decision:
    submission: str
    scope: str
    criterion: QueueCriterion
    ratings: dict[str, Verdict] = field(default_factory=dict)  # rater -> current verdict

    @property
    def key(self) -> DecisionKey:
        return (self.submission, self.scope, self.criterion.id)

    def judge_rater(self, judge: str | None = None) -> str | None:
        """The judge whose verdict is shown: `judge` when it rated here, else the first judge by name."""
        if judge is not None:
            return judge if judge in self.ratings and is_judge(judge) else None
        return min((r for r in self.ratings if is_judge(r)), default=None)

    def judge_verdict(self, judge: str | None = None) -> Verdict | None:
        rater = self.judge_rater(judge)
        return self.ratings[rater] if rater is not None else None

    def experts(self) -> dict[str, Verdict]:
        return {r: v for r, v in sorted(self.ratings.items()) if is_expert(r)}

    @property
    def adjudicated(self) -> Verdict | None:
        return self.ratings.get(ADJUDICATED)

    def reviewed_by(self, rater: str) -> bool:
        return rater in self.ratings

    # the two below are asked of every decision by the adjudication list and the disagreement filter
    # (100,000 in a review): the experts' values as a set, nothing sorted
    def judge_and_expert_disagree(self, judge: str | None = None) -> bool:
        """An expert's verdict differs from the judge's (a judge's `missing` is no verdict to differ from)."""
        verdict = self.judge_verdict(judge)
        if verdict is None or verdict.verdict == "missing":
            return False
        return any(v.verdict != verdict.verdict for r, v in self.ratings.items() if is_expert(r))

    def raters_differ(self, judge: str | None = None) -> bool:
        """Experts differ among themselves, or an expert differs from the judge: a decision to adjudicate."""
        if len(self.ratings) < 2:
            return False
        values = {v.verdict for r, v in self.ratings.items() if is_expert(r)}
        if len(values) != 1:
            return len(values) > 1
        verdict = self.judge_verdict(judge)
        return verdict is not None and verdict.verdict != "missing" and verdict.verdict not in values

    def counted(self, judge: str | None = None) -> str:
        """The verdict a score counts here, or why there is none (studio.judging.decisions.choose)."""
        choice = choose(self.ratings, judge)
        return choice.value or choice.source


@dataclass(frozen=True)
class QueueFilter:
    """Every field narrows the queue; None (or False) leaves it open."""

    submission: str | None = None  # an id or its start
    scope: str | None = None
    criterion: str | None = None
    target: str | None = None
    dimension: str | None = None
    disagree: bool = False  # judge and an expert differ
    adjudication: bool = False  # raters differ
    not_reviewed_by: str | None = None
    judge: str | None = None
    keys: frozenset[DecisionKey] | None = None  # only these decisions (an expert's own: studio.judging.assignments)

    def by_ratings(self) -> QueueFilter | None:
        """The part of the filter that reads the verdicts (None when it reads none): the rest is
        fixed by the decision's run, scope and criterion and answered from the queue's indexes."""
        if not (self.disagree or self.adjudication or self.not_reviewed_by is not None):
            return None
        return QueueFilter(
            disagree=self.disagree,
            adjudication=self.adjudication,
            not_reviewed_by=self.not_reviewed_by,
            judge=self.judge,
        )

    def accepts(self, decision: Decision) -> bool:
        return (
            (self.submission is None or decision.submission.startswith(self.submission))
            and (self.scope is None or decision.scope == self.scope)
            and (self.criterion is None or decision.criterion.id == self.criterion)
            and (self.target is None or decision.criterion.target == self.target)
            and (self.dimension is None or decision.criterion.dimension == self.dimension)
            and (not self.disagree or decision.judge_and_expert_disagree(self.judge))
            and (not self.adjudication or decision.raters_differ(self.judge))
            and (self.not_reviewed_by is None or not decision.reviewed_by(self.not_reviewed_by))
            and (self.keys is None or decision.key in self.keys)
        )


@dataclass(frozen=True)
class Instruction:
    title: str
    text: str  # Markdown


class ReviewQueue:
    """The decisions of one project, read from its verdict store; `give` records a verdict."""

    def __init__(self, loaded: LoadedProject, store: VerdictStore | None = None):
        self.loaded = loaded
        self.root = Path(loaded.root)
        # the store sorts what it writes along the timeline: from the project loaded here, not read again
        self.store = store or VerdictStore(self.root, timeline=lambda: self.loaded.project.timeline())
        self.decisions: list[Decision] = []
        self.left_out: str | None = None
        self._instructions: dict[str, Instruction] = {}
        self._index: dict[DecisionKey, int] = {}
        # field -> value -> queue positions in order: a filter on run, scope, criterion, target or
        # dimension is a lookup, not a pass over every decision (a review holds 100,000)
        self._positions: dict[str, dict[str, list[int]]] = {}
        self._reviewed: dict[str, int] = {}  # rater -> decisions they rated, counted once, kept as they rate
        self._raters: set[str] | None = None  # every rater with a current verdict, gathered once, kept as they rate

    @classmethod
    def of_project(cls, project_dir: Path) -> ReviewQueue:
        """Load the project and read its store; JudgingError when the project's files do not load."""
        from studio.store.loader import load_project

        loaded = load_project(Path(project_dir))
        if loaded.problems or loaded.project.info is None:
            first = loaded.problems[0] if loaded.problems else None
            where = f": {loaded.root / first.file}: {first.message}" if first is not None else ""
            raise JudgingError(
                f"{project_dir}: the project's files do not load{where}; fix them first "
                f"(`dbstudio validate {project_dir}` lists each)"
            )
        queue = cls(loaded)
        queue.reload()
        return queue

    # -- reading ---------------------------------------------------------------------------------
    def reload(self, submissions: Iterable[str] | None = None) -> None:
        project = self.loaded.project
        versions = current_versions(project)
        found = collect(self.store, versions, submissions)
        self.left_out = found.left_out()
        criteria = {
            scope: [
                QueueCriterion(e.id, e.text, e.target, e.dimension, e.weight, e.gate, versions.get((scope, e.id), ""))
                for e in entries.values()
            ]
            for scope, entries in _rubrics(project).items()
        }
        scoped: dict[str, set[str]] = {}
        for submission, scope, _ in found.decisions:
            scoped.setdefault(submission, set()).add(scope)
        order = {sid: i for i, sid in enumerate(project.timeline())}
        with collector_paused():
            self.decisions, self._index, self._positions = _decisions_of(found.decisions, scoped, criteria, order)
        self._reviewed = {}
        self._raters = None
        collector.keep_long_lived()  # the queue lives as long as the review: not walked by every full collection

    def filtered(self, which: QueueFilter) -> list[Decision]:
        return [self.decisions[position] for position in self.positions(which)]

    def positions(self, which: QueueFilter) -> list[int]:
        """The queue positions of the decisions `which` accepts, in queue order."""
        chosen: list[int] | None = None
        for name, value in (
            ("scope", which.scope),
            ("criterion", which.criterion),
            ("target", which.target),
            ("dimension", which.dimension),
        ):
            if value is not None:
                chosen = _both(chosen, self._positions.get(name, {}).get(value, []))
        if which.keys is not None:
            index = self._index
            chosen = _both(chosen, sorted(index[key] for key in which.keys if key in index))
        if which.submission is not None:
            runs = [
                positions
                for submission, positions in self._positions.get("submission", {}).items()
                if submission.startswith(which.submission)
            ]
            chosen = _both(chosen, sorted(position for positions in runs for position in positions))
        rest = which.by_ratings()
        if rest is None:
            return list(range(len(self.decisions))) if chosen is None else list(chosen)
        decisions = self.decisions
        return [p for p in (range(len(decisions)) if chosen is None else chosen) if rest.accepts(decisions[p])]

    def values(self, name: str) -> list[str]:
        """The runs, scopes, criteria, targets or dimensions of the queue (`name`), in queue order."""
        return list(self._positions.get(name, {}))

    def reviewed_count(self, rater: str) -> int:
        """How many decisions the rater has rated (counted once per reading of the store)."""
        if rater not in self._reviewed:
            self._reviewed[rater] = sum(1 for d in self.decisions if rater in d.ratings)
        return self._reviewed[rater]

    def adjudication(self, judge: str | None = None) -> list[Decision]:
        """The decisions where raters differ (experts among themselves, or judge and expert)."""
        return self.filtered(QueueFilter(adjudication=True, judge=judge))

    def check_scope(self, scope: str) -> str:
        """A scope of the project's rubrics; JudgingError naming them when it is none."""
        known = scopes_of(self.loaded.project)
        if scope not in known:
            raise JudgingError(f"the project has no rubric '{scope}': give one of {', '.join(known) or 'none'}")
        return scope

    def find(self, submission: str, scope: str, criterion: str) -> Decision:
        self.check_scope(scope)
        index = self._index.get((submission, scope, criterion))
        if index is None:
            known = sorted({d.submission for d in self.decisions})
            listed = ", ".join(known[:10]) or "none yet"
            raise JudgingError(
                f"no decision {submission} {scope} {criterion} in the review queue (submissions with "
                f"verdicts: {listed}); the scope must be judged and the criterion in its current "
                f"rubric: `dbstudio verdicts queue {self.root}` lists them"
            )
        return self.decisions[index]

    def index_of(self, decision: Decision) -> int:
        return self._index[decision.key]

    def raters(self) -> list[str]:
        """Every rater with a current verdict: judges, then experts, then `adjudicated`."""
        if self._raters is None:
            self._raters = {r for d in self.decisions for r in d.ratings}
        return sorted(self._raters, key=lambda r: (0 if is_judge(r) else 2 if r == ADJUDICATED else 1, r))

    def experts(self) -> list[str]:
        return [r for r in self.raters() if is_expert(r)]

    def instruction(self, scope: str) -> Instruction:
        """The instruction of the scope's subtask, or the delivery contract for the final rubric."""
        if scope not in self._instructions:
            try:
                context = scope_context(self.loaded, scope)
                found = Instruction(context.title, context.text)
            except JudgingError as exc:
                found = Instruction("Delivery contract" if scope == FINAL_SCOPE else f"Subtask {scope}", f"*{exc}*")
            self._instructions[scope] = found
        return self._instructions[scope]

    def submission(self, decision: Decision) -> Submission:
        """The submitted files of a decision: a local run's checkpoint (exported once) or final package."""
        from studio.judging.submission import submission_of_run
        from studio.runs.record import RECORD_FILE
        from studio.store import layout

        run_dir = self.root / layout.RUNS_DIR / decision.submission
        if not (run_dir / RECORD_FILE).is_file():
            raise JudgingError(
                f"{decision.submission} is no run of this project ({run_dir} has no {RECORD_FILE}): "
                "its files were handed over as a folder and are not kept with the project"
            )
        return submission_of_run(run_dir, decision.scope)

    # -- writing ---------------------------------------------------------------------------------
    def give(
        self,
        decision: Decision,
        rater: str,
        value: str,
        note: str | None = None,
        evidence: Sequence[str] = (),
        time: datetime | None = None,
        role: str = "rater",
    ) -> Verdict:
        """Record an expert's verdict (pass, fail or na) on the decision, in the rater's own file, with
        the part they gave it in (`role`: rater, or author when they wrote the criterion)."""
        rater = check_expert(rater)
        if role not in GIVEN_ROLES:
            raise JudgingError(f"role {role!r}: an expert gives a verdict as {' or '.join(GIVEN_ROLES)} "
                               "(the adjudicator's role is recorded by adjudicate)")
        return self._record(decision, rater, value, note, evidence, time, role=cast("VerdictRole", role))

    def adjudicate(
        self, decision: Decision, value: str, by: str, note: str | None = None, time: datetime | None = None
    ) -> Verdict:
        """Record the settled verdict of a decision under the rater `adjudicated`, with who settled it
        (`by`, the adjudicator's name: who answers for a settled verdict is part of the record)."""
        by = (by or "").strip()
        if not by:
            raise JudgingError(
                "give the adjudicator's name (--by NAME, or the rater box in the app): it is "
                "recorded with the settled verdict"
            )
        by = check_expert(by)
        check_value(value)
        if not needs_adjudication(decision):
            raise JudgingError(
                f"{decision.submission} {decision.scope} {decision.criterion.id}: there is no "
                "difference to settle (the experts and the judge agree, or fewer than two have "
                "rated it); adjudicate a decision that `dbstudio verdicts queue --adjudication` "
                "lists"
            )
        return self._record(decision, ADJUDICATED, value, note, (), time, by=by, role="adjudicator")

    def _record(
        self,
        decision: Decision,
        rater: str,
        value: str,
        note: str | None,
        evidence: Sequence[str],
        time: datetime | None,
        by: str | None = None,
        role: VerdictRole | None = None,
    ) -> Verdict:
        check_value(value)
        note = (note or "").strip() or None
        verdict = Verdict(
            criterion=decision.criterion.id,
            scope=decision.scope,
            verdict=value,
            rater=rater,
            time=time or datetime.now(UTC),
            criterion_version=decision.criterion.version,
            note=note,
            evidence=list(evidence),
            by=by,
            role=role,
        )
        self.store.put(decision.submission, [verdict])
        if rater not in decision.ratings and rater in self._reviewed:
            self._reviewed[rater] += 1
        if self._raters is not None:
            self._raters.add(rater)
        decision.ratings[rater] = verdict
        return verdict


def _decisions_of(
    found: dict[DecisionKey, dict[str, Verdict]],
    scoped: dict[str, set[str]],
    criteria: dict[str, list[QueueCriterion]],
    order: dict[str, int],
) -> tuple[list[Decision], dict[DecisionKey, int], dict[str, dict[str, list[int]]]]:
    """Every criterion of each judged scope of each submission, with its current verdicts; with the
    queue's index (decision key -> position) and its positions by run, scope, criterion, target and
    dimension (value -> positions in order), made in the same pass: a review holds 100,000."""
    decisions: list[Decision] = []
    index: dict[DecisionKey, int] = {}
    positions: dict[str, dict[str, list[int]]] = {
        name: {} for name in ("submission", "scope", "criterion", "target", "dimension")
    }
    by_submission, by_scope = positions["submission"], positions["scope"]
    # scope -> the position lists of its criteria's id, target and dimension, one per criterion in order
    # (made when the scope first comes up, so every value is listed in queue order)
    lists_of: dict[str, list[tuple[list[int], list[int], list[int]]]] = {}
    add = decisions.append
    for submission in sorted(scoped):
        for scope in sorted(scoped[submission], key=lambda s: scope_rank(s, order)):
            scope_criteria = criteria.get(scope, [])
            lists = lists_of.get(scope)
            if lists is None:
                lists = lists_of[scope] = [
                    (positions["criterion"].setdefault(c.id, []), positions["target"].setdefault(c.target, []),
                     positions["dimension"].setdefault(c.dimension, []))
                    for c in scope_criteria
                ]
            first = len(decisions)
            for position, criterion, (ids, targets, dimensions) in zip(
                itertools.count(first), scope_criteria, lists
            ):
                key = (submission, scope, criterion.id)
                ratings = found.get(key)  # built for this reading: taken, not copied
                add(Decision(submission, scope, criterion, {} if ratings is None else ratings))
                index[key] = position
                ids.append(position)
                targets.append(position)
                dimensions.append(position)
            if scope_criteria:
                span = range(first, len(decisions))
                by_submission.setdefault(submission, []).extend(span)
                by_scope.setdefault(scope, []).extend(span)
    return decisions, index, positions


def _both(chosen: list[int] | None, positions: list[int]) -> list[int]:
    """The positions in both lists, in order (None: no narrowing yet)."""
    if chosen is None:
        return positions
    kept = set(positions)
    return [position for position in chosen if position in kept]


def check_value(value: str) -> str:
    if value not in GIVEN_VALUES:
        raise JudgingError(f"verdict {value!r}: give pass, fail or na (not applicable)")
    return value


def needs_adjudication(decision: Decision) -> bool:
    """Raters differ (studio.judging.queue.Decision.raters_differ), or two judges differ: a difference
    for an adjudicator to settle. A decision already settled stays open to settling again."""
    judged = {v.verdict for rater, v in decision.ratings.items() if is_judge(rater) and v.verdict != "missing"}
    return decision.raters_differ() or len(judged) > 1 or decision.adjudicated is not None


def check_expert(rater: str) -> str:
    """An expert's name as a rater: letters (any script), digits, spaces and - _ . @ only, so it names
    a person and a file of the verdict store (no path, no control character), and not a judge's or
    the adjudication's name. The CLI and the app both check names here."""
    name = (rater or "").strip()
    if not name:
        raise JudgingError("give the expert's name (--rater NAME, or the rater box in the app)")
    if not is_expert(name):
        raise JudgingError(
            f"rater {name!r} is reserved (judges are 'judge:MODEL', settled verdicts "
            f"'{ADJUDICATED}'): give the expert's own name"
        )
    wrong = sorted({char for char in name if not (char.isalnum() or char in " -_.@")})
    if wrong:
        shown = " ".join(repr(char) for char in wrong)
        raise JudgingError(
            f"rater {name!r}: a name may hold {RATER_NAME_RULE}, not {shown}; "
            "give the name without them (for example 'Marta Lindqvist' or 'm.lindqvist@bank')"
        )
    rater_slug(name)
    return name


def _rubrics(project: Project) -> ProjectRubrics:
    from studio.scoring.project_rubrics import ProjectRubricError, project_rubrics

    try:
        return project_rubrics(project)
    except ProjectRubricError as exc:
        raise JudgingError(str(exc)) from None


def recorded_or_refused(record: Callable[[], Verdict]) -> tuple[Verdict | None, str]:
    """Run a recording (give, adjudicate): (the verdict, "") or (None, why the queue refused it)."""
    try:
        return record(), ""
    except JudgingError as exc:
        return None, str(exc)
