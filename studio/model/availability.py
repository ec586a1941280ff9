"""What the timeline makes available to a subtask: the materials released at or before it and the
outputs of the subtasks before it (docs/project-format.md: `at: start` is position 0, `before:
Tnn` is Tnn's position)."""

from __future__ import annotations

from studio.model.bundle import Project
from studio.model.schedule import Material


def released_by(project: Project, subtask_id: str) -> list[Material]:
    """Materials the agent has when `subtask_id` runs, in release order (then file order)."""
    here = project.position(subtask_id)
    limit = here if here is not None else 0  # an unscheduled subtask sees only what is there at start
    found = []
    for order, material in enumerate(project.materials.materials if project.materials else []):
        released = project.release_position(material)
        if released is not None and released <= limit:
            found.append((released, order, material))
    return [material for _, _, material in sorted(found, key=lambda item: (item[0], item[1]))]


def outputs_before(project: Project, position: int | None) -> list[str]:
    """`SUBTASK:PATH` of every output of the subtasks strictly before `position`, in timeline order."""
    refs = []
    for sid in project.timeline():
        number = project.position(sid)
        if position is not None and number is not None and number < position and sid in project.subtasks:
            refs += [f"{sid}:{output.path}" for output in project.subtasks[sid].outputs]
    return refs


def release_label(project: Project, material: Material) -> str:
    if material.release.at == "start":
        return "at start"
    return f"before {material.release.subtask}"
