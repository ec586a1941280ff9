"""Instructions, inputs and handoffs agree: what an instruction works on is what the map records.

`inputs` and the handoffs of `dependencies.yaml` are what impact analysis follows; an
instruction that works on a file neither lists makes `impact` under-report. A file is named by
a material's id, file name or title (as availability finds them) or by an output's path or
file name (as alignment finds them).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from studio.model.base import split_artifact_ref
from studio.review.context import ReviewContext
from studio.review.locations import subtask_yaml
from studio.store import layout
from studio.validation.findings import Severity

RULES = {
    "inputs.material-not-listed": "An instruction names a released material its subtask does not list in `inputs`.",
    "inputs.output-without-handoff": "An instruction names an earlier subtask's output, but no handoff brings it to "
                                     "the subtask.",
    "inputs.input-unmentioned": "A subtask input its instruction never names (warning).",
    "inputs.handoff-unmentioned": "A handoff whose file the receiving instruction never names (warning).",
}


# A file name standing apart, as alignment reads it: nothing of a word, path or name glued before it.
_FILE_NAME = re.compile(r"(?<![\w/.-])[\w.-]+")


def _named_files(text: str) -> set[str]:
    """Every file name the text could name, found in one pass (a trailing full stop dropped)."""
    return {name for token in _FILE_NAME.findall(text) for name in (token, token.rstrip("."))}


def _offset(text: str, path: str) -> int:
    """Where the instruction names `path` (its path, else its file name)."""
    found = text.find(path)
    if found >= 0:
        return found
    match = re.search(rf"(?<![\w/.-]){re.escape(PurePosixPath(path).name)}(?![\w-])", text)
    return match.start() if match else 0


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    handoffs = project.dependencies.handoffs if project.dependencies else []
    received: dict[str, set[str]] = {}  # subtask -> paths handed to it
    for handoff in handoffs:
        received.setdefault(handoff.to, set()).add(split_artifact_ref(handoff.artifact)[1])
    producers: dict[str, list[tuple[int, str]]] = {}  # path -> (position, subtask) of each producer
    for sid, subtask in project.subtasks.items():
        for output in subtask.outputs:
            producers.setdefault(output.path, []).append((ctx.positions.get(sid, 0), sid))
    file_names = {path: PurePosixPath(path).name for path in producers}
    materials = {m.id: m for m in project.materials.materials} if project.materials else {}
    mentioned: dict[str, set[str]] = {}  # subtask -> paths its instruction names
    for sid in project.timeline():
        if sid not in project.subtasks:
            continue
        subtask = project.subtasks[sid]
        here = ctx.positions[sid]
        file, text = ctx.instruction(sid)
        named: set[str] = set()
        for hit in ctx.material_names.find(text):
            first = hit.material_id not in named
            named.add(hit.material_id)
            material = materials.get(hit.material_id)
            when = project.release_position(material) if material else None
            if not first or hit.material_id in subtask.inputs or when is None or when > here:
                continue  # named before, listed, or not released yet (availability reports that)
            ctx.report_text("inputs.material-not-listed", Severity.ERROR,
                            f"the {sid} instruction works on {hit.material_id} ('{hit.matched}'), which "
                            f"{subtask_yaml(sid)} does not list in inputs: add it, so that impact follows it",
                            file, text, hit.start, sid)
        for index, material_id in enumerate(subtask.inputs):
            if material_id in materials and material_id not in named:
                ctx.report_node("inputs.input-unmentioned", Severity.WARNING,
                                f"{sid} lists {material_id} as an input, but its instruction never names it: say "
                                "what the agent should use it for, or remove it from inputs",
                                subtask_yaml(sid), ("inputs", index), sid)
        names = _named_files(text)
        paths = {path for path, name in file_names.items() if name in names or path in text}
        mentioned[sid] = paths
        for path in sorted(paths - received.get(sid, set())):
            earlier = sorted(p for p in producers[path] if p[0] < here)
            if not earlier:
                continue  # its own output, or a later one (alignment's business)
            producer = earlier[-1][1]
            ctx.report_text("inputs.output-without-handoff", Severity.ERROR,
                            f"the {sid} instruction works on {path}, but no handoff brings it to {sid}: add "
                            f"'from: {producer}:{path}' with 'to: {sid}' to {layout.DEPENDENCIES_FILE}",
                            file, text, _offset(text, path), sid)
    for index, handoff in enumerate(handoffs):
        path = split_artifact_ref(handoff.artifact)[1]
        if handoff.to in mentioned and path not in mentioned[handoff.to]:
            ctx.report_node("inputs.handoff-unmentioned", Severity.WARNING,
                            f"{handoff.artifact} is handed to {handoff.to}, but the {handoff.to} instruction never "
                            "names it: tell the agent to build on it, or remove the handoff",
                            layout.DEPENDENCIES_FILE, ("handoffs", index, "to"), handoff.to)
