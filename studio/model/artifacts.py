"""The project's artifacts as the dependency map links them: what each scope's rubric judges (a subtask's
outputs, SUBTASK:PATH; the final deliverables, by id) and what is downstream of an artifact through handoffs
and into the final package. Mutation testing plants failures there; defect lineage follows failures along."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studio.model.vocabulary import FINAL_SCOPE

if TYPE_CHECKING:
    from studio.model import Project

__all__ = ["Artifact", "artifact_index", "artifacts_of", "downstream_of"]


@dataclass(frozen=True)
class Artifact:
    """One file a scope's rubric judges: a checkpoint output (ref T06:outputs/model.xlsx) or a final
    deliverable (ref F1, path final/model.xlsx)."""

    scope: str
    path: str
    ref: str
    title: str


def artifacts_of(project: Project, scope: str) -> list[Artifact]:
    """What the scope's rubric judges: the subtask's outputs, or the final deliverables."""
    if scope == FINAL_SCOPE:
        deliverables = project.info.delivery.final_deliverables if project.info is not None else []
        return [Artifact(FINAL_SCOPE, d.path, d.id, d.title) for d in deliverables]
    subtask = project.subtasks.get(scope)
    if subtask is None:
        return []
    return [Artifact(scope, o.path, f"{scope}:{o.path}", o.title or o.path) for o in subtask.outputs]


def artifact_index(project: Project) -> dict[str, Artifact]:
    found = {}
    for scope in [*project.timeline(), FINAL_SCOPE]:
        for artifact in artifacts_of(project, scope):
            found[artifact.ref] = artifact
    return found


def downstream_of(project: Project, refs: Iterable[str]) -> list[str]:
    """Every artifact reachable from `refs` through handoffs (a handoff of Ti:PATH to Tj reaches every output
    of Tj), and the final deliverables produced by any of them or by `refs` themselves; `refs` not included
    unless reached again. In timeline order, final deliverables last."""
    handoffs = project.dependencies.handoffs if project.dependencies is not None else []
    receivers: dict[str, list[str]] = {}
    for handoff in handoffs:
        outputs = [a.ref for a in artifacts_of(project, handoff.to)]
        receivers.setdefault(handoff.artifact, []).extend(outputs)
    seen: dict[str, None] = {}
    frontier = list(refs)
    while frontier:
        ref = frontier.pop()
        for nxt in receivers.get(ref, []):
            if nxt not in seen:
                seen[nxt] = None
                frontier.append(nxt)
    reached = set(seen) | set(refs)
    deliverables = project.info.delivery.final_deliverables if project.info is not None else []
    finals = [d.id for d in deliverables if d.produced_by in reached]
    ordered = [ref for ref in artifact_index(project) if ref in seen and ref not in finals]
    return ordered + finals
