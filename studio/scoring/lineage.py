"""Defect lineage across checkpoints: what became of each failure of a checkpoint criterion in a run.

A **defect** is a checkpoint criterion whose outcome counts against the submission (a requirement not
credited, a failure condition or a gate that holds), after `requires`; one not credited only because a
criterion it requires failed names that one as its `cause`. A missing verdict is no defect: the criterion
is listed as unknown. Its **artifacts** are the outputs it covers (every output of its subtask when it
names none). Along the timeline:

- the **same requirement** later is the final criterion that reuses it (`reuse_of`): holding there it was
  **repaired** (the paper's P05 recovery), failing there it **persisted**;
- the **same artifact** later is a later checkpoint's criterion on the same workspace file (a revision of
  it) and a final criterion on the deliverable that file becomes; when there is no same-requirement
  criterion, a failure there makes the defect persisted, all of them holding repaired;
- **downstream** is every artifact the dependency map reaches from its artifacts (handoffs, transitively,
  and the final deliverables those outputs become): the other criteria on them that fail are the defect's
  **propagated** failures.

Each defect gets one class: propagated (downstream failures) > persisted > repaired > unobserved (no
later criterion observes its artifacts), and keeps the facets; the matrix has one column per later scope.
Scopes without verdicts are named as not judged, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from studio.model.artifacts import artifacts_of, downstream_of
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE

if TYPE_CHECKING:
    from studio.model import Criterion, Project

__all__ = ["CLASSES", "Cell", "Defect", "Lineage", "Outcome", "classify"]

CLASSES = ("propagated", "persisted", "repaired", "unobserved")


class Outcome(NamedTuple):
    """A criterion's outcome on one scope of a submission: True counts against it, False does not, None
    not decided; `cause`: the required criterion that made a holding criterion count against it."""

    against: bool | None
    cause: str | None = None


@dataclass
class Cell:
    """What one later scope shows of a defect."""

    scope: str
    judged: bool
    holds_again: list[str] = field(default_factory=list)  # same requirement / artifact criteria that hold
    fails_again: list[str] = field(default_factory=list)  # ... that fail
    downstream: list[str] = field(default_factory=list)  # other criteria on downstream artifacts that fail

    def text(self) -> str:
        if not self.judged:
            return "not judged"
        parts = []
        if self.fails_again:
            parts.append("fails again")
        elif self.holds_again:
            parts.append("holds again")
        if self.downstream:
            parts.append(f"{len(self.downstream)} downstream")
        return "; ".join(parts)

    def code(self) -> str:
        """The cell in a narrow text matrix: ? not judged, x fails again, = holds again, >N downstream."""
        if not self.judged:
            return "?"
        mark = "x" if self.fails_again else "=" if self.holds_again else ""
        return (mark + (f">{len(self.downstream)}" if self.downstream else "")) or "."


@dataclass
class Defect:
    scope: str
    criterion: str
    artifacts: list[str]
    kind: str  # CLASSES
    fate: str  # persisted, repaired or unobserved (by the same requirement, else the same artifact)
    cause: str | None = None
    propagated: list[str] = field(default_factory=list)  # "SCOPE/CRITERION" failing downstream
    cells: list[Cell] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.scope}/{self.criterion}"

    def to_json(self) -> dict[str, object]:
        return {"scope": self.scope, "criterion": self.criterion, "class": self.kind, "fate": self.fate,
                "cause": self.cause, "artifacts": self.artifacts, "propagated": self.propagated,
                "cells": {c.scope: {"judged": c.judged, "holds_again": c.holds_again, "fails_again": c.fails_again,
                                    "downstream": c.downstream} for c in self.cells}}


@dataclass
class Lineage:
    submission: str
    scopes: list[str]  # every scope of the project, timeline order, final last
    judged: list[str]
    defects: list[Defect]
    unknown: list[str]  # "SCOPE/CRITERION" not decided

    def counts(self) -> dict[str, int]:
        found = dict.fromkeys(CLASSES, 0)
        for defect in self.defects:
            found[defect.kind] += 1
        return found

    @property
    def not_judged(self) -> list[str]:
        return [scope for scope in self.scopes if scope not in self.judged]

    def to_json(self) -> dict[str, object]:
        return {"submission": self.submission, "counts": self.counts(), "judged": self.judged,
                "not_judged": self.not_judged, "unknown": self.unknown,
                "defects": [defect.to_json() for defect in self.defects]}


def _covers(project: Project, scope: str, criterion: Criterion) -> list[str]:
    """The artifact refs a criterion covers: SUBTASK:PATH outputs, or deliverable ids for the final rubric."""
    own = [a.ref for a in artifacts_of(project, scope)]
    if scope == FINAL_SCOPE:
        if PACKAGE in criterion.covers or not criterion.covers:
            return own
        return [item for item in criterion.covers if item in own]
    named = [item for item in criterion.covers if ":" in item]
    return named or own


def _path(ref: str) -> str:
    return ref.split(":", 1)[1] if ":" in ref else ref


def classify(project: Project, outcomes: Mapping[str, Mapping[str, Outcome]], submission: str = "") -> Lineage:
    """The lineage of every defect of a submission, from its outcomes per scope (only the judged scopes)."""
    timeline = [sid for sid in project.timeline() if sid in project.checkpoint_rubrics]
    scopes = timeline + ([FINAL_SCOPE] if project.final_rubric is not None else [])
    covers: dict[str, dict[str, list[str]]] = {}
    for scope in scopes:
        rubric = project.rubric(scope)
        covers[scope] = {c.key: _covers(project, scope, c) for c in (rubric.criteria if rubric else [])}
    reuse = {c.reuse_of: c.key for c in (project.final_rubric.criteria if project.final_rubric else []) if c.reuse_of}
    deliverables = project.info.delivery.final_deliverables if project.info is not None else []
    becomes: dict[str, list[str]] = {}  # workspace path -> deliverable ids
    for deliverable in deliverables:
        becomes.setdefault(_path(deliverable.produced_by), []).append(deliverable.id)
    defects: list[Defect] = []
    unknown: list[str] = []
    for position, scope in enumerate(timeline):
        for cid, outcome in outcomes.get(scope, {}).items():
            if outcome.against is None:
                unknown.append(f"{scope}/{cid}")
                continue
            if not outcome.against:
                continue
            arts = covers[scope].get(cid, [])
            paths = {_path(ref) for ref in arts}
            same_finals = {d for p in paths for d in becomes.get(p, [])}
            reached = set(downstream_of(project, arts))
            same_requirement = reuse.get(cid)
            cells = []
            fate_by_requirement: str | None = None
            artifact_holds: list[bool] = []
            propagated: list[str] = []
            for later in scopes:
                if later != FINAL_SCOPE and timeline.index(later) <= position:
                    continue
                judged = later in outcomes
                cell = Cell(later, judged)
                cells.append(cell)
                if not judged:
                    continue
                for other, other_arts in covers[later].items():
                    result = outcomes[later].get(other)
                    if result is None or result.against is None:
                        continue
                    if later == FINAL_SCOPE and other == same_requirement:
                        (cell.fails_again if result.against else cell.holds_again).append(other)
                        fate_by_requirement = "persisted" if result.against else "repaired"
                        continue
                    same = [ref for ref in other_arts if (later == FINAL_SCOPE and ref in same_finals) or
                            (later != FINAL_SCOPE and _path(ref) in paths)]
                    if same:
                        (cell.fails_again if result.against else cell.holds_again).append(other)
                        artifact_holds.append(not result.against)
                        continue
                    if result.against and any(ref in reached for ref in other_arts):
                        cell.downstream.append(other)
                        propagated.append(f"{later}/{other}")
            if fate_by_requirement is not None:
                fate = fate_by_requirement
            elif artifact_holds:
                fate = "repaired" if all(artifact_holds) else "persisted"
            else:
                fate = "unobserved"
            kind = "propagated" if propagated else fate
            defects.append(Defect(scope, cid, arts, kind, fate, outcome.cause, propagated, cells))
    return Lineage(submission, scopes, [s for s in scopes if s in outcomes], defects, unknown)
