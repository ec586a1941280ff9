"""A read-only table model whose columns are named by its `HEADERS`: the column count and the
horizontal header every table of the app's panels and dialogs shares."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class HeadersTableModel(QAbstractTableModel):
    """A flat table with the columns `HEADERS` (set by the subclass, which gives rows and data)."""

    HEADERS: tuple[str, ...] = ()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(self.HEADERS):
            return self.HEADERS[section]
        return None
