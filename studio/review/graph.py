"""The dependency map as a graph: materials, subtasks, outputs, deliverables and criteria."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from studio.graphs import find_cycles
from studio.model import Project
from studio.model.base import split_artifact_ref
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE

# Node kinds; a node is (kind, key).
MATERIAL, SUBTASK, OUTPUT, DELIVERABLE = "material", "subtask", "output", "deliverable"
Node = tuple[str, str]


@dataclass
class DependencyGraph:
    """Directed edges from what changes to what must change with it."""

    project: Project
    edges: dict[Node, list[Node]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def build(cls, project: Project) -> DependencyGraph:
        graph = cls(project)
        add = graph.add
        for sid, subtask in project.subtasks.items():
            for material_id in subtask.inputs:
                add((MATERIAL, material_id), (SUBTASK, sid))
            for output in subtask.outputs:
                add((SUBTASK, sid), (OUTPUT, f"{sid}:{output.path}"))
        if project.dependencies is not None:
            for handoff in project.dependencies.handoffs:
                add((OUTPUT, handoff.artifact), (SUBTASK, handoff.to))
        if project.info is not None:
            for deliverable in project.info.delivery.final_deliverables:
                add((OUTPUT, deliverable.produced_by), (DELIVERABLE, deliverable.id))
        for material in project.materials.materials if project.materials else []:
            if material.generated is not None:
                for ref in material.generated.from_artifacts:
                    add((OUTPUT, ref), (MATERIAL, material.id))
        return graph

    def add(self, source: Node, target: Node) -> None:
        if target not in self.edges[source]:
            self.edges[source].append(target)

    def downstream(self, start: Node) -> list[Node]:
        """Every node reachable from `start`, breadth first, without `start` itself."""
        return list(self.reached_from(start))

    def reached_from(self, start: Node) -> dict[Node, Node]:
        """Every node reachable from `start` (breadth first, in order) mapped to the node it
        was first reached from: the shortest chain back to `start`."""
        return self.reached_from_any([start])

    def reached_from_any(self, starts: list[Node]) -> dict[Node, Node]:
        """Every node reachable from any of `starts`, not counting the starts themselves, mapped
        to the node it was first reached from; earlier starts win ties, so the chain shown is
        the shortest one and, among those, the one from the first start."""
        parents: dict[Node, Node] = {}
        seen = set(starts)
        frontier = list(starts)
        while frontier:
            following = []
            for node in frontier:
                for nxt in self.edges.get(node, []):
                    if nxt not in seen:
                        seen.add(nxt)
                        parents[nxt] = node
                        following.append(nxt)
            frontier = following
        return parents

    def artifact_cycles(self) -> list[list[str]]:
        """Cycles among subtasks through handoffs (each as a list of subtask ids, the first
        repeated at the end): one per group of subtasks caught in a loop."""
        successors: dict[str, set[str]] = defaultdict(set)
        if self.project.dependencies is not None:
            for handoff in self.project.dependencies.handoffs:
                producer, _ = split_artifact_ref(handoff.artifact)
                successors[producer].add(handoff.to)
        ordered = {node: sorted(successors[node]) for node in sorted(successors)}
        return find_cycles(ordered)


def criteria_covering(project: Project, nodes: list[Node]) -> list[tuple[str, str]]:
    """(scope, criterion id) of criteria that cover any output or deliverable in `nodes`;
    package criteria join as soon as any deliverable is affected."""
    outputs = {key for kind, key in nodes if kind == OUTPUT}
    deliverables = {key for kind, key in nodes if kind == DELIVERABLE}
    hits: list[tuple[str, str]] = []
    for scope, criterion in project.all_criteria():
        covers = set(criterion.covers)
        if scope == FINAL_SCOPE:
            if covers & deliverables or (deliverables and PACKAGE in covers):
                hits.append((scope, criterion.key))
        elif covers & outputs:
            hits.append((scope, criterion.key))
    return hits
