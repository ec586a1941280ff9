"""The rubric editor: one table over every criterion of the project. PLACEHOLDER until it lands."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QTableView, QVBoxLayout, QWidget

from studio.gui.project_context import ProjectContext


class RubricEditor(QWidget):
    def __init__(self, context: ProjectContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rubricEditor")
        self.context = context
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("rubricFilter")
        self.table = QTableView(self)
        self.table.setObjectName("rubricTable")
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.table)

    def show_scope(self, scope: str | None) -> None:
        """Filter to one rubric: a subtask id, 'final', or None for all."""

    def select_criterion(self, criterion_id: str) -> None:
        """Select and scroll to a criterion (a findings click, the explorer)."""
