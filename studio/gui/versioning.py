"""The versioning panel: history, diffs, restore, commit. PLACEHOLDER until it lands."""

from __future__ import annotations

from PySide6.QtWidgets import QListView, QVBoxLayout, QWidget

from studio.gui.project_context import ProjectContext
from studio.gui.tasks import TaskRunner


class VersioningPanel(QWidget):
    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("versioningPanel")
        self.context = context
        self.runner = runner
        self.history_view = QListView(self)
        self.history_view.setObjectName("historyView")
        QVBoxLayout(self).addWidget(self.history_view)

    def show_file(self, rel: str | None) -> None:
        """Show the history of one project file (None: of the whole project)."""

    def show_object(self, kind: str, object_id: str) -> None:
        """Show the history of one criterion or subtask (field-by-field diffs between revisions)."""
