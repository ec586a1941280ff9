"""What the documents hold now (unsaved edits included): the ids in use for each kind of object,
the timeline, and the stage of a subtask. Edits check new ids and places against these."""

from __future__ import annotations

from studio.editing.documents import ProjectDocuments
from studio.editing.fields import (
    DELIVERABLES,
    MATERIALS,
    REFERENCES,
    STAGES,
    UnknownObjectError,
    ids_in,
    listed,
    subtask_file,
)
from studio.editing.rubric import CRITERIA, rubric_files
from studio.store import layout


def _owned(ids: list[str], holder: str) -> dict[str, str]:
    return {ident: holder for ident in ids}


def taken_ids(documents: ProjectDocuments, kind: str) -> dict[str, str]:
    """Each id a new `kind` object may not take, with what holds it. Materials and evaluator
    references share one set of ids (validation refuses the same id in both)."""
    if kind == "stage":
        return _owned(ids_in(documents, layout.STAGES_FILE, STAGES), f"a stage in {layout.STAGES_FILE}")
    if kind == "subtask":
        held = {sid: f"a subtask in {layout.STAGES_FILE}" for sid in timeline(documents)}
        held.update({sid: f"the subtask in {subtask_file(sid)}" for sid in documents.subtask_ids()})
        return held
    if kind in ("material", "reference"):
        held = _owned(ids_in(documents, layout.REFERENCES_FILE, REFERENCES),
                      f"an evaluator reference in {layout.REFERENCES_FILE}")
        held.update(_owned(ids_in(documents, layout.MATERIALS_FILE, MATERIALS),
                           f"a material in {layout.MATERIALS_FILE}"))
        return held
    if kind == "deliverable":
        return _owned(ids_in(documents, layout.PROJECT_FILE, DELIVERABLES),
                      f"a final deliverable in {layout.PROJECT_FILE}")
    if kind == "criterion":
        held = {}
        for rel in rubric_files(documents):
            for item in listed(documents, rel, CRITERIA):
                if isinstance(item, dict):
                    for key in ("id", "reuse_of"):
                        if item.get(key) is not None:
                            held.setdefault(str(item[key]), f"a criterion in {rel}")
        return held
    raise UnknownObjectError(f"'{kind}' objects have no ids to pick")


def timeline(documents: ProjectDocuments) -> list[str]:
    """Subtask ids in the order they run (the stages in order, each with its subtasks in order)."""
    order: list[str] = []
    for stage in listed(documents, layout.STAGES_FILE, STAGES):
        if isinstance(stage, dict):
            order += [str(sid) for sid in stage.get("subtasks") or []]
    return order


def stage_of(documents: ProjectDocuments, subtask_id: str) -> tuple[int, int]:
    """The stage index and place in it of a scheduled subtask."""
    for s_index, stage in enumerate(listed(documents, layout.STAGES_FILE, STAGES)):
        if isinstance(stage, dict):
            for t_index, sid in enumerate(stage.get("subtasks") or []):
                if sid == subtask_id:
                    return s_index, t_index
    raise UnknownObjectError(f"{layout.STAGES_FILE}: subtask '{subtask_id}' is in no stage")


def require_subtask(documents: ProjectDocuments, subtask_id: str) -> None:
    """Refuse a subtask id that is not on the timeline."""
    if subtask_id not in timeline(documents):
        raise UnknownObjectError(f"'{subtask_id}' is not a scheduled subtask (not in any stage of "
                                 f"{layout.STAGES_FILE})")
