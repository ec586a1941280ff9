"""The dependency map: acyclic, forward in time, and starting from outputs that exist."""

from __future__ import annotations

from studio.model.base import split_artifact_ref
from studio.review.context import ReviewContext
from studio.review.locations import subtask_yaml
from studio.store import layout
from studio.validation.findings import Severity

RULES = {
    "dependencies.cycle": "Handoffs form a cycle between subtasks.",
    "dependencies.backwards": "A handoff goes to a subtask that runs before (or is) its producer.",
    "dependencies.unproduced": "A handoff starts from an output no subtask produces.",
    "dependencies.unused-output": "An output is neither handed on, nor a final deliverable, nor read by a script "
                                  "(information).",
}


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    deps = project.dependencies
    outputs = project.outputs()
    file = layout.DEPENDENCIES_FILE
    for index, handoff in enumerate(deps.handoffs if deps else []):
        producer, path = split_artifact_ref(handoff.artifact)
        if handoff.artifact not in outputs:
            ctx.report_node(
                "dependencies.unproduced",
                Severity.ERROR,
                f"handoff from {handoff.artifact}: {producer} produces no output '{path}'",
                file,
                ("handoffs", index, "from"),
            )
        start, end = ctx.positions.get(producer), ctx.positions.get(handoff.to)
        if start is not None and end is not None and end <= start:
            ctx.report_node(
                "dependencies.backwards",
                Severity.ERROR,
                f"handoff {handoff.artifact} -> {handoff.to} points backwards in time",
                file,
                ("handoffs", index, "to"),
            )
    for cycle in ctx.graph.artifact_cycles():
        ctx.report("dependencies.cycle", Severity.ERROR, "handoffs form a cycle: " + " -> ".join(cycle), file)
    used = {h.artifact for h in deps.handoffs} if deps else set()
    if project.info is not None:
        used |= {d.produced_by for d in project.info.delivery.final_deliverables}
    for material in project.materials.materials if project.materials else []:
        if material.generated is not None:
            used |= set(material.generated.from_artifacts)
    for ref, producer in sorted(outputs.items()):
        if ref not in used:
            sub = project.subtasks[producer]
            index = [f"{producer}:{o.path}" for o in sub.outputs].index(ref)  # one subtask's outputs: short
            ctx.report_node(
                "dependencies.unused-output",
                Severity.INFO,
                f"{ref} is not handed to a later subtask, not a final deliverable and not read by a script",
                subtask_yaml(producer),
                ("outputs", index, "path"),
                producer,
            )
