"""Decisions (submission × scope × criterion) gathered from the verdict store, and the rule that
picks the one verdict a score counts.

Only verdicts given on the criterion as it is now count: a verdict whose criterion version (hash
of text, weight and gate) differs from the project's is *stale* and left out, as is a verdict on
a criterion the project no longer has. Both are kept in the store and counted, never deleted.

The verdict a score counts, per decision:
1. the adjudicated verdict (rater `adjudicated`), if there is one;
2. else the experts' verdict when every expert who gave one agrees; experts who differ leave the
   decision *missing* until it is adjudicated (no expert outranks another);
3. else the judge's verdict (the chosen judge's, or every judge's when they agree);
4. else missing.
`missing` verdicts are skipped at every step. `na` (not applicable) is a verdict at its step and
gives the score no 0/1: the decision is missing there, with the reason in the `source` column.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from studio.collector import collector_paused
from studio.judging.errors import JudgingError
from studio.judging.verdicts import ADJUDICATED, Verdict, criterion_version, is_expert, is_judge

if TYPE_CHECKING:
    from studio.judging.verdict_store import VerdictStore
    from studio.judging.visibility import Viewer
    from studio.model import Project

DecisionKey = tuple[str, str, str]  # (submission, scope, criterion)
PASS_FAIL = ("pass", "fail")


@dataclass
class StoreDecisions:
    """rater -> current verdict, per decision; and what was left out."""

    decisions: dict[DecisionKey, dict[str, Verdict]] = field(default_factory=dict)
    stale: list[tuple[str, Verdict]] = field(default_factory=list)  # given on an earlier criterion version
    unknown: list[tuple[str, Verdict]] = field(default_factory=list)  # on a criterion the project does not have

    def raters(self) -> list[str]:
        return sorted({rater for ratings in self.decisions.values() for rater in ratings})

    def left_out(self) -> str | None:
        """A sentence on the verdicts left out, or None."""
        parts = []
        if self.stale:
            parts.append(f"{len(self.stale)} verdict(s) given on an earlier text, weight or gate of their criterion "
                         f"(e.g. {_named(self.stale[0])}): judge or review those again")
        if self.unknown:
            parts.append(f"{len(self.unknown)} verdict(s) on criteria the project no longer has "
                         f"(e.g. {_named(self.unknown[0])})")
        return "; ".join(parts) + "; they stay in the store" if parts else None


def _named(item: tuple[str, Verdict]) -> str:
    submission, verdict = item
    return f"{submission} {verdict.scope}/{verdict.criterion} by {verdict.rater}"


def current_versions(project: Project) -> dict[tuple[str, str], str]:
    """(scope, criterion id) -> the criterion's version now; a reused final criterion has the
    version of the checkpoint criterion it is scored as."""
    versions: dict[tuple[str, str], str] = {}
    for scope, criterion in project.all_criteria():
        scored = project.scored_as(scope, criterion)
        if scored is None:
            continue  # a reuse of nothing, which validation reports
        versions.setdefault((scope, criterion.key), criterion_version(scored))
    return versions


def select_submissions(store: VerdictStore, wanted: Sequence[str] | None, stored: list[str] | None = None) -> list[str]:
    """The stored submissions named by `wanted` (each an id or the start of exactly one), or all;
    `stored`: the store's submissions (`store.submissions()`), when the caller has listed them."""
    stored = store.submissions() if stored is None else stored
    if not wanted:
        return stored
    chosen: list[str] = []
    for name in wanted:
        matches = [name] if name in stored else [sid for sid in stored if sid.startswith(name)]
        if len(matches) != 1:
            listed = ", ".join(stored[:10]) + (" ..." if len(stored) > 10 else "") if stored else "none yet"
            why = "has no verdicts" if not matches else f"names {len(matches)} submissions: give more of the id"
            raise JudgingError(f"--run {name} {why} in {store.root} (submissions with verdicts: {listed})")
        if matches[0] not in chosen:
            chosen.append(matches[0])
    return chosen


def collect(store: VerdictStore, versions: Mapping[tuple[str, str], str],
            submissions: Iterable[str] | None = None, viewer: Viewer | None = None) -> StoreDecisions:
    """Every current verdict of the chosen submissions (all by default), by decision; with a
    `viewer`, only the verdicts blind review lets them see (studio.judging.visibility)."""

    found = StoreDecisions()
    with collector_paused():
        _collect_into(found, store, versions, submissions)
    if viewer is not None and viewer.hides_any():
        seen = {key: viewer.visible(ratings) for key, ratings in found.decisions.items()}
        found.decisions = {key: ratings for key, ratings in seen.items() if ratings}
    return found


def _collect_into(found: StoreDecisions, store: VerdictStore, versions: Mapping[tuple[str, str], str],
                  submissions: Iterable[str] | None) -> None:
    decisions, version_of = found.decisions, versions.get
    for submission, verdicts in store.by_submission(submissions):
        for verdict in verdicts:  # 200,000 at 100,000 decisions: each attribute read once
            scope, criterion = verdict.scope, verdict.criterion
            version = version_of((scope, criterion))
            if version == verdict.criterion_version:
                key = (submission, scope, criterion)
                ratings = decisions.get(key)
                if ratings is None:
                    decisions[key] = {verdict.rater: verdict}
                else:
                    ratings[verdict.rater] = verdict
            elif version is None:
                found.unknown.append((submission, verdict))
            else:
                found.stale.append((submission, verdict))


@dataclass(frozen=True)
class Choice:
    value: str | None  # "pass", "fail", or None: missing for the score
    source: str  # whose verdict it is, or why there is none


_UNRESOLVED = Choice(None, "missing: the judge left it unresolved")
_NO_VERDICT = Choice(None, "missing: no verdict")


class Rated(Protocol):
    """What the rule reads of a verdict: its value (a Verdict, or a score's lighter record of one)."""

    @property
    def verdict(self) -> str: ...


def choose(ratings: Mapping[str, Rated], judge: str | None = None) -> Choice:
    """The verdict a score counts (the module's rule); `judge`: the one judge rater to consider."""
    if len(ratings) == 1:  # most decisions: one rater's verdict (the rule below, without its sets)
        ((rater, only),) = ratings.items()
        if rater == ADJUDICATED or not is_judge(rater) or judge is None or rater == judge:
            if only.verdict == "missing":
                return _NO_VERDICT if rater == ADJUDICATED or not is_judge(rater) else _UNRESOLVED
            if only.verdict == "na":
                return Choice(None, f"missing: not applicable ({rater})")
            return Choice(only.verdict, rater)
    adjudicated = ratings.get(ADJUDICATED)
    if adjudicated is not None and adjudicated.verdict != "missing":
        return _agreed({ADJUDICATED: adjudicated}, "adjudicated")
    experts = {r: v for r, v in ratings.items() if is_expert(r) and v.verdict != "missing"}
    if experts:
        return _agreed(experts, "experts")
    judges = {r: v for r, v in ratings.items()
              if is_judge(r) and (judge is None or r == judge) and v.verdict != "missing"}
    if judges:
        return _agreed(judges, "judges")
    if any(is_judge(r) and (judge is None or r == judge) for r in ratings):
        return _UNRESOLVED
    return _NO_VERDICT


def human_reference(ratings: Mapping[str, Verdict]) -> str | None:
    """pass/fail as the people settled it (adjudicated, else every expert agreeing), or None."""
    people = {r: v for r, v in ratings.items() if not is_judge(r)}
    choice = choose(people)
    return choice.value if choice.value in PASS_FAIL else None


def _agreed(given: Mapping[str, Rated], who: str) -> Choice:
    values = {v.verdict for v in given.values()}
    names = ", ".join(sorted(given))
    if len(values) > 1:
        detail = "; ".join(f"{r} {v.verdict}" for r, v in sorted(given.items()))
        fix = "adjudicate it" if who == "experts" else "choose one judge (--judge judge:MODEL)"
        return Choice(None, f"missing: {who} differ ({detail}): {fix}")
    value = values.pop()
    if value == "na":
        return Choice(None, f"missing: not applicable ({names})")
    return Choice(value, names)
