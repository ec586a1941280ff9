"""Impact analysis: everything downstream of a material, a subtask output or a subtask.

A correcting material (one that `corrects` others) also reaches back in time: the outputs of
subtasks that read a corrected material before the correction was released still hold the
stale figure, so they and everything built on them are part of its impact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from studio.errors import StudioError
from studio.model import Project
from studio.model.base import split_artifact_ref
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE
from studio.review.graph import (
    DELIVERABLE,
    MATERIAL,
    OUTPUT,
    SUBTASK,
    DependencyGraph,
    Node,
    criteria_covering,
)
from studio.review.locations import criterion_location
from studio.store.loader import LoadedProject


class UnknownItemError(StudioError, ValueError):
    """The item is not a material, output or subtask of the project."""


@dataclass(frozen=True)
class HandoffCarrying:
    """A handoff of an affected artifact, and what its author says must survive it."""

    artifact: str
    to: str
    carries: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"from": self.artifact, "to": self.to, "carries": self.carries}


@dataclass(frozen=True)
class CoveringCriterion:
    """A criterion that covers part of what a change reaches, where it is written, what it
    asks, and how the change gets to the artifact it checks."""

    scope: str  # a subtask id, or 'final'
    id: str
    file: str
    line: int
    text: str = ""
    weight: int | None = None
    gate: bool = False
    affected: tuple[str, ...] = ()  # the affected outputs or deliverables it covers ('package' too)
    via: str = ""  # how the change reaches the first of them
    carries: str | None = None  # the `carries` of the handoff on that way, if a handoff brings it
    handoffs: tuple[HandoffCarrying, ...] = ()  # every handoff of an affected artifact into its producers

    @property
    def rubric(self) -> str:
        return "final rubric" if self.scope == FINAL_SCOPE else f"{self.scope} checkpoint rubric"

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "id": self.id,
            "file": self.file,
            "line": self.line,
            "rubric": self.rubric,
            "text": self.text,
            "weight": self.weight,
            "gate": self.gate,
            "affected": list(self.affected),
            "via": self.via,
            "carries": self.carries,
            "handoffs": [h.to_json() for h in self.handoffs],
        }


@dataclass(frozen=True)
class StaleArtifact:
    """An output made from a corrected material before its correction was released."""

    artifact: str
    subtask: str
    built_on: str  # the corrected material the subtask read
    corrected_by: str

    def to_json(self) -> dict[str, str]:
        return {"artifact": self.artifact, "subtask": self.subtask, "built_on": self.built_on,
                "corrected_by": self.corrected_by}


@dataclass
class ImpactReport:
    item: str
    kind: str
    subtasks: list[str] = field(default_factory=list)
    via: dict[str, str] = field(default_factory=dict)  # subtask -> what it receives that carries the change
    outputs: list[str] = field(default_factory=list)  # stale artifacts included
    materials: list[str] = field(default_factory=list)  # generated from affected outputs
    deliverables: list[str] = field(default_factory=list)
    criteria: list[CoveringCriterion] = field(default_factory=list)
    corrects: list[str] = field(default_factory=list)  # materials the item corrects
    released_before: str | None = None  # the subtask a correcting material is released before
    stale: list[StaleArtifact] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "kind": self.kind,
            "corrects": self.corrects,
            "released_before": self.released_before,
            "stale_artifacts": [s.to_json() for s in self.stale],
            "subtasks": [{"id": s, "via": self.via.get(s)} for s in self.subtasks],
            "outputs": self.outputs,
            "generated_materials": self.materials,
            "final_deliverables": self.deliverables,
            "criteria": [c.to_json() for c in self.criteria],
        }

    def render(self) -> str:
        lines = [f"Changing {self.kind} {self.item} affects:"]
        if self.corrects:
            when = f"released before {self.released_before}" if self.released_before else "released at start"
            lines.append(f"\n{self.item} corrects {', '.join(self.corrects)} ({when}).")
            if self.stale:
                lines.append("Artifacts built on them before the correction arrived (they hold the stale figure):")
                lines += [f"  {s.artifact}  ({s.subtask} read {s.built_on})" for s in self.stale]
            else:
                lines.append("No subtask read them before the correction arrived.")
        if self.subtasks:
            lines.append("\nSubtasks reached, in timeline order, and what brings them the change:")
            lines += [f"  {s:8} {self.via.get(s, '')}" for s in self.subtasks]
        sections = [
            ("Their outputs", self.outputs),
            ("Scripted materials generated from them", self.materials),
            ("Final deliverables built from them", self.deliverables),
        ]
        for title, items in sections:
            if items:
                lines.append(f"\n{title}:")
                lines += [f"  {item}" for item in items]
        if self.criteria:
            lines.append(f"\nCriteria that cover any of these ({len(self.criteria)}):")
            for c in self.criteria:
                weight = "gate" if c.gate else f"weight {c.weight:+d}" if c.weight is not None else "no weight"
                lines.append(f"  {c.file}:{c.line}: {c.id} ({c.rubric}, {weight}) {c.text}")
                lines.append(f"      on {', '.join(c.affected)}: {c.via}")
                if c.carries:
                    lines.append(f"      carries: {c.carries}")
        if len(lines) == 1:
            lines.append("  nothing downstream")
        return "\n".join(lines)


def _start_node(loaded: LoadedProject, item: str) -> Node:
    project = loaded.project
    if project.material(item) is not None:
        return (MATERIAL, item)
    if item in project.subtasks:
        return (SUBTASK, item)
    if item in project.outputs():
        return (OUTPUT, item)
    if project.info is not None and any(d.id == item for d in project.info.delivery.final_deliverables):
        return (DELIVERABLE, item)
    raise UnknownItemError(
        f"'{item}' is not a material id, a subtask id or a subtask output (SUBTASK:PATH) of this project"
    )


def stale_artifacts(project: Project, correction_id: str) -> list[StaleArtifact]:
    """Outputs of the subtasks that read a material `correction_id` corrects and ran before the
    correction was released, in timeline order. A subtask scheduled at or after the release
    point has the correction in hand, and one that never reads a corrected material directly is
    left to the downstream walk."""
    correction = project.material(correction_id)
    if correction is None or not correction.corrects:
        return []
    released = project.release_position(correction)
    if not released:  # at start (0) or before an unscheduled subtask (None): nothing ran before it
        return []
    found = []
    for sid in project.timeline()[: released - 1]:
        subtask = project.subtasks.get(sid)
        if subtask is None:
            continue
        read = next((m for m in subtask.inputs if m in correction.corrects), None)
        if read is not None:
            found += [StaleArtifact(f"{sid}:{o.path}", sid, read, correction_id) for o in subtask.outputs]
    return found


@dataclass
class _Reach:
    """What the walk found: each reached node's parent, and how each subtask got the change."""

    project: Project
    parents: dict[Node, Node]
    via: dict[str, str]
    outputs: set[str]
    deliverables: set[str]
    stale_readers: set[str]  # subtasks that read a corrected material before its correction

    def producer(self, artifact: str) -> str | None:
        """The subtask that makes an output, or the final output a deliverable is made from."""
        if artifact in self.deliverables and self.project.info is not None:
            for deliverable in self.project.info.delivery.final_deliverables:
                if deliverable.id == artifact:
                    return split_artifact_ref(deliverable.produced_by)[0]
            return None
        return split_artifact_ref(artifact)[0]

    def arrival(self, artifact: str) -> tuple[str, str | None]:
        """How the change reaches an artifact, and the `carries` of the handoff that brings it."""
        if artifact == PACKAGE:
            return f"the package, through {', '.join(sorted(self.deliverables))}", None
        sid = self.producer(artifact)
        if sid is None:
            return "", None
        where = f"made by {sid}" if artifact in self.outputs else f"made from {sid}'s output"
        parent = self.parents.get((SUBTASK, sid))
        if parent is not None and parent[0] == OUTPUT and sid not in self.stale_readers:
            return f"{where}, which works on {parent[1]}", self.carries(parent[1], sid)
        return f"{where}, which {self.via.get(sid, 'is changed')}", None

    @cached_property
    def _into(self) -> dict[str, list[HandoffCarrying]]:
        """Every handoff by the subtask it goes to, in file order."""
        into: dict[str, list[HandoffCarrying]] = {}
        for h in self.project.dependencies.handoffs if self.project.dependencies else []:
            into.setdefault(h.to, []).append(HandoffCarrying(h.artifact, h.to, h.carries))
        return into

    def carries(self, artifact: str, to: str) -> str | None:
        return next((h.carries for h in self._into.get(to, []) if h.artifact == artifact), None)

    def handoffs_into(self, sid: str | None) -> list[HandoffCarrying]:
        """The handoffs of affected artifacts into `sid`."""
        return [h for h in self._into.get(sid or "", []) if h.artifact in self.outputs]


def impact_of(loaded: LoadedProject, item: str) -> ImpactReport:
    """Transitive downstream of `item` (and, for a correction, of the stale artifacts it leaves
    behind) and the criteria that cover any part of it."""
    project = loaded.project
    start = _start_node(loaded, item)
    graph = DependencyGraph.build(project)
    report = ImpactReport(item=item, kind=start[0])
    if start[0] == MATERIAL:
        material = project.material(item)
        report.corrects = list(material.corrects) if material else []
        if material is not None and material.release.at == "before":
            report.released_before = material.release.subtask
        report.stale = stale_artifacts(project, item)
    stale_nodes = [(OUTPUT, s.artifact) for s in report.stale]
    parents = graph.reached_from_any([start, *stale_nodes])
    nodes = list(parents)
    if start[0] in (OUTPUT, DELIVERABLE):
        nodes = [start] + nodes  # a changed output is itself covered by criteria
    nodes = stale_nodes + nodes
    position = {sid: i for i, sid in enumerate(project.timeline())}
    stale_readers = {s.subtask: s.built_on for s in report.stale}
    reached = {k for kind, k in nodes if kind == SUBTASK} | set(stale_readers)
    report.subtasks = sorted(reached, key=lambda s: position.get(s, 10**6))
    for sid in report.subtasks:
        if sid in stale_readers:
            report.via[sid] = f"read {stale_readers[sid]} before {item} corrected it"
            continue
        kind, key = parents[(SUBTASK, sid)]
        report.via[sid] = f"reads {key} directly" if kind == MATERIAL else f"works on {key}"
    report.outputs = sorted(
        {k for kind, k in nodes if kind == OUTPUT and k != item},
        key=lambda r: (position.get(r.split(":", 1)[0], 10**6), r),
    )
    report.materials = sorted({k for kind, k in nodes if kind == MATERIAL})
    report.deliverables = sorted({k for kind, k in nodes if kind == DELIVERABLE and k != item})
    affected_outputs = {k for kind, k in nodes if kind == OUTPUT}
    affected_deliverables = {k for kind, k in nodes if kind == DELIVERABLE}
    reach = _Reach(project, parents, report.via, affected_outputs, affected_deliverables, set(stale_readers))
    criteria = {(scope, c.key): c for scope, c in reversed(project.all_criteria())}  # the first of an id
    for scope, cid in criteria_covering(project, nodes):
        file, line = criterion_location(loaded, scope, cid)
        written = criteria[(scope, cid)]
        scored = project.scored_as(scope, written)
        if scored is None:
            continue  # a reuse of nothing, which validation reports
        hit = affected_deliverables if scope == FINAL_SCOPE else affected_outputs
        affected = [c for c in written.covers if c in hit]
        if scope == FINAL_SCOPE and not affected and PACKAGE in written.covers:
            affected = [PACKAGE]
        via, carries = reach.arrival(affected[0]) if affected else ("", None)
        handoffs: list[HandoffCarrying] = []
        for artifact in (a for a in affected if a != PACKAGE):
            handoffs += [h for h in reach.handoffs_into(reach.producer(artifact)) if h not in handoffs]
        report.criteria.append(CoveringCriterion(
            scope, cid, file, line, text=scored.text or "", weight=scored.weight, gate=scored.gate,
            affected=tuple(affected), via=via, carries=carries, handoffs=tuple(handoffs)))
    return report
