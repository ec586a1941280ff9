"""Who changed each field of the subtask or criterion the Versions panel follows, last (as `dbstudio
blame` says it): field, author, date, revision and value."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from studio.collab.authors import FieldAuthor
from studio.gui.widgets.tables import HeadersTableModel
from studio.store.object_diff import shown

Index = QModelIndex | QPersistentModelIndex


class FieldAuthorsModel(HeadersTableModel):
    """One row per field of the object as last saved, with the revision that last changed it."""

    HEADERS = ("Field", "Author", "Date", "Revision", "Value")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[FieldAuthor] = []

    def set_rows(self, rows: list[FieldAuthor]) -> None:
        self.beginResetModel()
        try:
            self.rows = rows
        finally:
            self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            value = " ".join(shown(row.value).split())
            return (row.field, row.author, f"{row.date:%Y-%m-%d %H:%M}", row.commit[:8], value)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{row.commit[:8]} {row.message}"
        return None


def field_authors_view(model: FieldAuthorsModel, parent: QWidget) -> QTableView:
    view = QTableView(parent)
    view.setObjectName("fieldAuthorsView")
    view.setModel(model)
    view.verticalHeader().setVisible(False)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
    view.setColumnWidth(0, 150)
    return view
