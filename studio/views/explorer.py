"""The project explorer's tree, without Qt: the rows under each row (the timeline, materials by
release point, the evaluator references kept apart, final deliverables, handoffs and rubrics), each
with its kind, id, label, detail and tooltip. studio/gui/project/explorer_model.py shows them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studio.model.vocabulary import FINAL_SCOPE

if TYPE_CHECKING:  # the models (pydantic) load with the project, not with the window
    from studio.model import Project

REFERENCES_HINT = "Evaluator references: used by the judge, never shown to the agent"
GROUPS = {"materials": "Materials", "references": "Evaluator references (never shown to the agent)",
          "deliverables": "Final deliverables", "handoffs": "Handoffs"}

Key = tuple[str, str, int]  # (kind, id, occurrence): an id listed twice (invalid) still gets two rows


@dataclass
class Row:
    """What one explorer row shows; `key` identifies it among its siblings across edits."""

    kind: str
    object_id: str
    label: str
    detail: str = ""
    tooltip: str = ""


def keyed(rows: list[Row]) -> list[tuple[Key, Row]]:
    """Each row with its key among its siblings: a second row of the same (kind, id) is occurrence 1."""
    seen: dict[tuple[str, str], int] = {}
    found = []
    for row in rows:
        n = seen.get((row.kind, row.object_id), 0)
        seen[(row.kind, row.object_id)] = n + 1
        found.append(((row.kind, row.object_id, n), row))
    return found


def counted(n: int, word: str, plural: str | None = None) -> str:
    """`1 file`, `3 files`, `2 criteria`."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def top_rows(project: Project) -> list[Row]:
    info = project.info
    title = info.title if info else "(project.yaml missing or invalid)"
    n_materials = len(project.materials.materials) if project.materials else 0
    n_refs = len(project.references.references) if project.references else 0
    n_deliverables = len(info.delivery.final_deliverables) if info else 0
    n_handoffs = len(project.dependencies.handoffs) if project.dependencies else 0
    final = project.final_rubric
    return [
        Row("project", info.id if info else "", title, counted(len(project.subtasks), "subtask"), "The project"),
        Row("group", "materials", GROUPS["materials"], counted(n_materials, "file"),
            "Files the agent receives, grouped by when they are released"),
        Row("group", "handoffs", GROUPS["handoffs"], str(n_handoffs), "Outputs one subtask hands to a later one"),
        Row("group", "deliverables", GROUPS["deliverables"], str(n_deliverables), "What the final package holds"),
        Row("rubric", FINAL_SCOPE, "Final rubric", counted(len(final.criteria) if final else 0, "criterion", "criteria"),
            "The rubric judged on the final deliverables"),
        Row("group", "references", GROUPS["references"], str(n_refs), REFERENCES_HINT),
    ]


StageEntry = tuple[str, str, list[str]]  # (id, title, subtask ids)
StagesSource = Callable[[], list[StageEntry]]


def stage_entries(project: Project, fallback: StagesSource | None = None) -> list[StageEntry]:
    """The stages as the model has them; while stages.yaml does not validate (a stage just added
    has no subtask yet) as its text says, so the timeline does not vanish from the explorer."""
    if project.stages is not None:
        return [(s.id, s.title, list(s.subtasks)) for s in project.stages.stages]
    return fallback() if fallback is not None else []


def child_rows(project: Project, kind: str, object_id: str, stages: StagesSource | None = None) -> list[Row]:
    """The rows under the row (kind, object_id); an empty list for a leaf."""
    if kind == "project":
        return [Row("stage", sid, f"{sid}  {title}", counted(len(subtasks), "subtask"))
                for sid, title, subtasks in stage_entries(project, stages)]
    if kind == "stage":
        found = next((s for s in stage_entries(project, stages) if s[0] == object_id), None)
        rows = []
        for sid in found[2] if found else []:
            subtask = project.subtasks.get(sid)
            rows.append(Row("subtask", sid, f"{sid}  {subtask.title if subtask else '(missing)'}",
                            f"{subtask.time_limit_minutes} min" if subtask else "",
                            "" if subtask else f"{sid} is listed in stages.yaml but has no subtask.yaml"))
        return rows
    if kind == "subtask":
        rubric = project.checkpoint_rubrics.get(object_id)
        return [Row("rubric", object_id, "Checkpoint rubric",
                    counted(len(rubric.criteria), "criterion", "criteria") if rubric else "missing")]
    if kind == "group" and object_id == "materials":
        return _release_groups(project, [sid for _, _, subtasks in stage_entries(project, stages) for sid in subtasks])
    if kind == "release":
        return [Row("material", m.id, f"{m.id}  {m.title}", m.kind.value, m.file or "generated by a script")
                for m in (project.materials.materials if project.materials else [])
                if release_key(m) == object_id]
    if kind == "group" and object_id == "references":
        return [Row("reference", r.id, f"{r.id}  {r.title}", ", ".join(r.for_scopes),
                    f"{r.file}\n{REFERENCES_HINT}")
                for r in (project.references.references if project.references else [])]
    if kind == "group" and object_id == "deliverables":
        return [Row("deliverable", d.id, f"{d.id}  {d.title}", d.path, f"produced by {d.produced_by}")
                for d in (project.info.delivery.final_deliverables if project.info else [])]
    if kind == "group" and object_id == "handoffs":
        return [Row("handoff", f"{h.artifact}>{h.to}", f"{h.artifact} → {h.to}", h.carries or "")
                for h in (project.dependencies.handoffs if project.dependencies else [])]
    return []


def release_key(material: Any) -> str:
    """The release group a material's row sits in: `start`, or `before:T05`."""
    release = material.release
    return f"before:{release.subtask}" if release.at == "before" and release.subtask else "start"


def _release_groups(project: Project, timeline: list[str]) -> list[Row]:
    materials = project.materials.materials if project.materials else []
    keys = {release_key(m) for m in materials}
    order = {f"before:{sid}": i + 1 for i, sid in enumerate(timeline)} | {"start": 0}
    rows = []
    for key in sorted(keys, key=lambda k: (order.get(k, len(order) + 1), k)):
        count = sum(1 for m in materials if release_key(m) == key)
        label = "At the start" if key == "start" else f"Before {key.split(':', 1)[1]}"
        rows.append(Row("release", key, label, counted(count, "file"), "Released to the agent " + label.lower()))
    return rows


def expands(row: Row) -> bool:
    """Whether the row has (or may have) rows under it."""
    return row.kind in ("project", "stage", "subtask", "release", "group")
