"""Which object, and which of its fields, a finding is about (a click on a finding in the app
opens that editor there), and the file an object lives in (whose history the app shows for it)."""

from __future__ import annotations

from ruamel.yaml.comments import CommentedMap

from studio.editing.documents import ProjectDocuments
from studio.editing.fields import object_location
from studio.errors import StudioError
from studio.model import Project
from studio.store import layout
from studio.validation.findings import Finding
from studio.validation.paths import material_path


def object_of_finding(project: Project, finding: Finding) -> tuple[str, str]:
    """(kind, id) of the object at fault: criterion, subtask, stage, material, reference,
    deliverable, or the project itself when the finding names nothing more precise."""
    object_id = finding.object_id
    parts = finding.file.split("/")
    in_rubric = finding.file == layout.FINAL_RUBRIC_FILE or (
        len(parts) == 3 and parts[0] == layout.SUBTASKS_DIR and parts[2] == layout.CHECKPOINT_RUBRIC_FILE)
    if object_id:
        final_ids = {c.key for c in project.final_rubric.criteria} if project.final_rubric else set()
        if in_rubric or object_id in project.index.checkpoint_criteria or object_id in final_ids:
            return "criterion", object_id
        if object_id in project.subtasks:
            return "subtask", object_id
        if project.stages and any(s.id == object_id for s in project.stages.stages):
            return "stage", object_id
        if project.material(object_id) is not None:
            return "material", object_id
        if project.references and any(r.id == object_id for r in project.references.references):
            return "reference", object_id
        if project.info and any(d.id == object_id for d in project.info.delivery.final_deliverables):
            return "deliverable", object_id
    if len(parts) >= 2 and parts[0] == layout.SUBTASKS_DIR:
        return ("rubric" if in_rubric else "subtask"), parts[1]
    if finding.file == layout.FINAL_RUBRIC_FILE:
        return "rubric", "final"
    return "project", project.info.id if project.info else ""


def field_at(documents: ProjectDocuments, kind: str, object_id: str, file: str, line: int) -> str | None:
    """The field of the object whose entry holds `line` of `file` (the key written last at or
    before it), or None when the finding is not inside the object's own entry."""
    try:
        rel, path = object_location(documents, kind, object_id)
        node = documents.node(rel, path)
    except StudioError:
        return None
    if rel != file or not isinstance(node, CommentedMap):
        return None
    found = None
    for key in node:
        if node.lc.key(key)[0] + 1 <= line:  # ruamel counts lines from 0
            found = str(key)
    return found


def history_file(project: Project, kind: str, object_id: str) -> str | None:
    """The project file that holds an object of an explorer row's `kind` (None: no one file)."""
    from studio.editing.rubric import rubric_file

    if kind == "rubric":
        return rubric_file(object_id)
    if kind == "material":
        material = project.material(object_id)
        return material_path(material.file) if material is not None and material.file else layout.MATERIALS_FILE
    return {"stage": layout.STAGES_FILE, "reference": layout.REFERENCES_FILE, "deliverable": layout.PROJECT_FILE,
            "handoff": layout.DEPENDENCIES_FILE, "release": layout.MATERIALS_FILE}.get(kind)
