"""Impact analysis: everything downstream of a material, a subtask output or a subtask."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.errors import StudioError
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
class CoveringCriterion:
    """A criterion that covers part of what a change reaches, and where it is written."""

    scope: str  # a subtask id, or 'final'
    id: str
    file: str
    line: int

    def to_json(self) -> dict[str, str | int]:
        return {"scope": self.scope, "id": self.id, "file": self.file, "line": self.line}


@dataclass
class ImpactReport:
    item: str
    kind: str
    subtasks: list[str] = field(default_factory=list)
    via: dict[str, str] = field(default_factory=dict)  # subtask -> what it receives that carries the change
    outputs: list[str] = field(default_factory=list)
    materials: list[str] = field(default_factory=list)  # generated from affected outputs
    deliverables: list[str] = field(default_factory=list)
    criteria: list[CoveringCriterion] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "kind": self.kind,
            "subtasks": [{"id": s, "via": self.via.get(s)} for s in self.subtasks],
            "outputs": self.outputs,
            "generated_materials": self.materials,
            "final_deliverables": self.deliverables,
            "criteria": [c.to_json() for c in self.criteria],
        }

    def render(self) -> str:
        lines = [f"Changing {self.kind} {self.item} affects:"]
        if self.subtasks:
            lines.append("\nSubtasks downstream, in timeline order, and what brings them the change:")
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
            lines += [f"  {c.file}:{c.line}: {c.id}" for c in self.criteria]
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


def impact_of(loaded: LoadedProject, item: str) -> ImpactReport:
    """Transitive downstream of `item` and the criteria that cover any part of it."""
    start = _start_node(loaded, item)
    graph = DependencyGraph.build(loaded.project)
    parents = graph.reached_from(start)
    nodes = list(parents)
    if start[0] in (OUTPUT, DELIVERABLE):
        nodes = [start] + nodes  # a changed output is itself covered by criteria
    position = {sid: i for i, sid in enumerate(loaded.project.timeline())}
    report = ImpactReport(item=item, kind=start[0])
    report.subtasks = sorted({k for kind, k in nodes if kind == SUBTASK}, key=lambda s: position.get(s, 10**6))
    for sid in report.subtasks:
        kind, key = parents[(SUBTASK, sid)]
        report.via[sid] = f"reads {key} directly" if kind == MATERIAL else f"works on {key}"
    report.outputs = sorted(
        {k for kind, k in nodes if kind == OUTPUT and k != item},
        key=lambda r: (position.get(r.split(":", 1)[0], 10**6), r),
    )
    report.materials = sorted({k for kind, k in nodes if kind == MATERIAL})
    report.deliverables = sorted({k for kind, k in nodes if kind == DELIVERABLE and k != item})
    for scope, cid in criteria_covering(loaded.project, nodes):
        file, line = criterion_location(loaded, scope, cid)
        report.criteria.append(CoveringCriterion(scope, cid, file, line))
    return report
