"""Results tables (scores, agreement, calibration) fit their columns once per new set of rows, to
the first rows, instead of asking the model about a thousand rows on every layout."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import QApplication

from studio.gui.base.live_results import RESIZE_ROWS, results_table


class Counted(QAbstractTableModel):
    def __init__(self, rows: int, text: str) -> None:
        super().__init__()
        self.rows, self.text, self.calls = rows, text, 0

    def rowCount(self, parent: Any = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else self.rows

    def columnCount(self, parent: Any = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else 3

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        self.calls += 1
        return f"{self.text} {index.row()}" if role == Qt.ItemDataRole.DisplayRole else None

    def replace(self, text: str) -> None:
        self.beginResetModel()
        self.text = text
        self.endResetModel()


def test_a_table_of_5000_rows_is_fitted_to_its_first_rows_and_again_after_a_reset(qtbot) -> None:
    model = Counted(5000, "short")
    table = results_table("countedTable", model, None)
    qtbot.addWidget(table)
    table.resize(800, 600)
    table.show()
    qtbot.waitExposed(table)
    QApplication.processEvents()
    # ResizeToContents asked about 1,000 rows of each column, for every role, on each layout:
    # over 24,000 calls here; fitted to RESIZE_ROWS rows and the visible ones, a few thousand.
    assert RESIZE_ROWS < 100 and model.calls < 6000
    narrow = table.columnWidth(0)
    assert narrow >= table.fontMetrics().horizontalAdvance("short 4999") * 0.5
    model.replace("a much longer text in every cell")
    QApplication.processEvents()
    assert table.columnWidth(0) > narrow + table.fontMetrics().horizontalAdvance("much longer")
