"""Which files the history of one subtask or criterion follows: the one rule for the Versions
panel and `dbstudio history --object`. A subtask's folder; a criterion's rubric first, then every
other rubric (a criterion may have moved between rubrics, or been reused)."""

from __future__ import annotations

from pathlib import PurePosixPath

from studio.editing.documents import ProjectDocuments
from studio.editing.fields import criterion_location, subtask_file
from studio.editing.rubric import rubric_files
from studio.errors import StudioError
from studio.store.history_errors import HistoryError
from studio.store.history_scope import Scope


def object_scope(documents: ProjectDocuments, object_id: str, kind: str | None = None) -> Scope:
    """The history scope of subtask or criterion `object_id` (`kind` "subtask" or "criterion"; None:
    a subtask of that id if there is one, else a criterion). HistoryError for any other kind."""
    if kind is None:
        kind = "subtask" if object_id in documents.subtask_ids() else "criterion"
    if kind == "subtask":
        return Scope(kind, object_id, (str(PurePosixPath(subtask_file(object_id)).parent),))
    if kind != "criterion":
        raise HistoryError(f"the history of a {kind} is the history of its file: pick a subtask or a criterion")
    every = tuple(rubric_files(documents))
    try:
        here = criterion_location(documents, object_id)[0]
    except StudioError:  # gone from the working copy: it may still be in the history
        return Scope(kind, object_id, every)
    return Scope(kind, object_id, (here, *(rel for rel in every if rel != here)))
