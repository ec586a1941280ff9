"""Form editors of the project's objects (not YAML): one module per form over a shared base.
`open_editor` is the entry point the main window calls."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from studio.gui.base.project_context import ProjectContext
from studio.gui.project.editors.base import ObjectForm
from studio.gui.project.editors.deliverable import DeliverableEditor
from studio.gui.project.editors.material import MaterialEditor
from studio.gui.project.editors.project import ProjectEditor
from studio.gui.project.editors.reference import ReferenceEditor
from studio.gui.project.editors.stage import StageEditor
from studio.gui.project.editors.subtask import SubtaskEditor

KINDS = ("project", "stage", "subtask", "material", "reference", "deliverable")

FORMS: dict[str, type[ObjectForm]] = {
    "project": ProjectEditor,
    "stage": StageEditor,
    "subtask": SubtaskEditor,
    "material": MaterialEditor,
    "reference": ReferenceEditor,
    "deliverable": DeliverableEditor,
}


def open_editor(context: ProjectContext, kind: str, object_id: str, parent: QWidget | None = None) -> QWidget:
    """A form editing the object `object_id` of `kind` (one of KINDS; for "project" the id is the
    project's id). Its edits go through `context.push`; it follows `context.changed`."""
    form = FORMS.get(kind)
    if form is None:
        raise ValueError(f"no editor for '{kind}': use one of {', '.join(KINDS)}")
    return form(context, object_id, parent)
