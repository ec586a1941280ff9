"""Form editors of the project's objects (not YAML). PLACEHOLDER until the editors land:
`open_editor` is the entry point the main window calls."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from studio.gui.project_context import ProjectContext

KINDS = ("project", "stage", "subtask", "material", "reference", "deliverable")


def open_editor(context: ProjectContext, kind: str, object_id: str, parent: QWidget | None = None) -> QWidget:
    """A form editing the object `object_id` of `kind` (one of KINDS; for "project" the id is the
    project's id). Its edits go through `context.push`; it follows `context.changed`."""
    label = QLabel(f"{kind} {object_id}", parent)
    label.setObjectName(f"{kind}Editor")
    return label
