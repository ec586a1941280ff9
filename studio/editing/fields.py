"""Where each object of a project lives (file and place in it), and setting one of its fields.
Also the Markdown texts: a subtask's instruction and the project brief."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from ruamel.yaml.comments import CommentedMap

from studio.editing.commands import Command, Compound, RemoveKey, SetValue
from studio.editing.documents import EditPathError, Path_, ProjectDocuments
from studio.editing.files import PutFile
from studio.editing.rubric import CRITERIA, rubric_files
from studio.errors import StudioError
from studio.store import layout

KINDS = ("project", "stage", "subtask", "material", "reference", "deliverable", "criterion", "handoff")

STAGES = ("stages",)
MATERIALS = ("materials",)
REFERENCES = ("references",)
HANDOFFS = ("handoffs",)
DELIVERABLES = ("delivery", "final_deliverables")
ACCEPTANCE = ("delivery", "acceptance")
DEFAULT_INSTRUCTION = "instruction.md"
DEFAULT_BRIEF = "brief.md"


class UnknownObjectError(StudioError):
    """An edit names an object the project does not have (or a kind of object there is not)."""


def subtask_file(subtask_id: str) -> str:
    return layout.subtask_file(Path(), subtask_id).as_posix()


def listed(documents: ProjectDocuments, rel: str, path: Path_) -> list[Any]:
    """The list at `path` of file `rel`; empty when the file, or the list, is not there."""
    if not documents.exists(rel):
        return []
    node: Any = documents.document(rel).data
    for step in path:
        if not isinstance(node, dict) or step not in node:
            return []
        node = node[step]
    return list(node) if isinstance(node, list) else []


def ids_in(documents: ProjectDocuments, rel: str, path: Path_) -> list[str]:
    """The ids of the mappings in a list (stages, materials, ...), in file order."""
    return [str(item.get("id")) for item in listed(documents, rel, path) if isinstance(item, dict)]


def position(documents: ProjectDocuments, rel: str, path: Path_, object_id: str, what: str) -> int:
    for index, item in enumerate(listed(documents, rel, path)):
        if isinstance(item, dict) and item.get("id") == object_id:
            return index
    raise UnknownObjectError(f"{rel}: there is no {what} with the id '{object_id}'")


def criterion_location(documents: ProjectDocuments, criterion_id: str) -> tuple[str, int]:
    """The rubric file and row of a criterion; a reused criterion (`reuse_of`) only when no rubric
    has a criterion of that id itself."""
    reused: tuple[str, int] | None = None
    for rel in rubric_files(documents):
        for index, item in enumerate(listed(documents, rel, CRITERIA)):
            if not isinstance(item, dict):
                continue
            if item.get("id") == criterion_id:
                return rel, index
            if reused is None and item.get("reuse_of") == criterion_id:
                reused = rel, index
    if reused is None:
        raise UnknownObjectError(f"no rubric has a criterion with the id '{criterion_id}'")
    return reused


def object_location(documents: ProjectDocuments, kind: str, object_id: str) -> tuple[str, Path_]:
    """The file and the YAML path of an object. A handoff's id is its place in the map, as text."""
    if kind == "project":
        return layout.PROJECT_FILE, ()
    if kind == "stage":
        return layout.STAGES_FILE, (*STAGES, position(documents, layout.STAGES_FILE, STAGES, object_id, "stage"))
    if kind == "subtask":
        rel = subtask_file(object_id)
        if not documents.exists(rel):
            raise UnknownObjectError(f"there is no subtask '{object_id}' ({rel} does not exist)")
        return rel, ()
    if kind == "material":
        return layout.MATERIALS_FILE, (*MATERIALS, position(documents, layout.MATERIALS_FILE, MATERIALS, object_id,
                                                            "material"))
    if kind == "reference":
        return layout.REFERENCES_FILE, (*REFERENCES, position(documents, layout.REFERENCES_FILE, REFERENCES,
                                                              object_id, "evaluator reference"))
    if kind == "deliverable":
        return layout.PROJECT_FILE, (*DELIVERABLES, position(documents, layout.PROJECT_FILE, DELIVERABLES,
                                                             object_id, "final deliverable"))
    if kind == "criterion":
        rel, index = criterion_location(documents, object_id)
        return rel, (*CRITERIA, index)
    if kind == "handoff":
        count = len(listed(documents, layout.DEPENDENCIES_FILE, HANDOFFS))
        if not object_id.isdigit() or int(object_id) >= count:
            raise UnknownObjectError(f"{layout.DEPENDENCIES_FILE}: there is no handoff {object_id} "
                                     f"(the map has {count})")
        return layout.DEPENDENCIES_FILE, (*HANDOFFS, int(object_id))
    raise UnknownObjectError(f"'{kind}' is not a kind of object: use one of {', '.join(KINDS)}")


def _describe(kind: str, object_id: str) -> str:
    return "the project" if kind == "project" else f"{kind} {object_id}"


def set_field(documents: ProjectDocuments, kind: str, object_id: str, field: str, value: Any) -> Command:
    """Set a field of an object; `field` may be dotted (`release.subtask`, `delivery.scope`).
    None removes the key (nothing to do when it is absent). Missing mappings on the way are made."""
    rel, base = object_location(documents, kind, object_id)
    steps = tuple(field.split("."))
    if not all(steps):
        raise EditPathError(f"'{field}' is not a field name")
    if steps == ("id",) and kind != "handoff":
        raise EditPathError(f"the id of {_describe(kind, object_id)} is changed by a rename (studio.editing.rename), "
                            "so that everything naming it follows")
    ids = () if kind in ("project", "handoff") else (object_id,)
    label = f"Set {field} of {_describe(kind, object_id)}" if value is not None \
        else f"Remove {field} of {_describe(kind, object_id)}"
    node: Any = documents.node(rel, base)
    for depth, step in enumerate(steps[:-1]):
        if not isinstance(node, CommentedMap):
            raise EditPathError(f"{rel}: {'.'.join(steps[:depth])} of {_describe(kind, object_id)} is not a mapping")
        if step not in node:
            if value is None:
                return Compound(label, [])
            nested: Any = value
            for inner in reversed(steps[depth + 1:]):
                nested = {inner: nested}
            return SetValue(rel, (*base, *steps[: depth + 1]), nested, ids, label)
        node = node[step]
    if not isinstance(node, CommentedMap):
        raise EditPathError(f"{rel}: {'.'.join(steps[:-1]) or 'it'} of {_describe(kind, object_id)} is not a mapping")
    if value is None:
        return RemoveKey(rel, (*base, *steps), ids, label) if steps[-1] in node else Compound(label, [])
    return SetValue(rel, (*base, *steps), value, ids, label)


def instruction_file(documents: ProjectDocuments, subtask_id: str) -> str:
    """The instruction Markdown file of a subtask, relative to the project folder."""
    rel, _ = object_location(documents, "subtask", subtask_id)
    data = documents.document(rel).data
    name = data.get("instruction") if isinstance(data, dict) else None
    return (PurePosixPath(rel).parent / str(name or DEFAULT_INSTRUCTION)).as_posix()


def brief_file(documents: ProjectDocuments) -> str:
    data = documents.document(layout.PROJECT_FILE).data
    name = data.get("brief") if isinstance(data, dict) else None
    return str(name or DEFAULT_BRIEF)


def set_instruction(documents: ProjectDocuments, subtask_id: str, text: str) -> PutFile:
    return PutFile(instruction_file(documents, subtask_id), text.encode("utf-8"), (subtask_id,),
                   f"Edit the instruction of {subtask_id}")


def set_brief(documents: ProjectDocuments, text: str) -> PutFile:
    return PutFile(brief_file(documents), text.encode("utf-8"), label="Edit the project brief")
