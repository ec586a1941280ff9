"""The runs panel's tables: the project's runs (`RunsModel`) and the subtasks of one run
(`SubtasksModel`). Both are updated in place from fresh `RunView`s: a progress tick changes the
cells that changed (`dataChanged`) and a new run is inserted as a row; a reset happens only when
another project or another run is shown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from studio.runs.overview import RunView, SubtaskView, harness_label
from studio.views.formats import duration_text, local_time, tokens_text

Index = QModelIndex | QPersistentModelIndex
VIEW_ROLE = Qt.ItemDataRole.UserRole + 1
"""The row's RunView / SubtaskView."""

STATUS_TEXT = {
    "pending": "Pending", "running": "Running", "completed": "Completed", "failed": "Failed",
    "cancelled": "Cancelled", "interrupted": "Interrupted", "timed_out": "Timed out",
}
STATUS_COLOUR = {
    "running": QColor("#1c5fb8"), "completed": QColor("#1e7a34"), "failed": QColor("#b3261e"),
    "timed_out": QColor("#a15c00"), "interrupted": QColor("#a15c00"), "cancelled": QColor("#6b6b6b"),
    "pending": QColor("#6b6b6b"),
}


Column = tuple[str, Callable[[Any], Any]]


class _ViewTable(QAbstractTableModel):
    """A table of frozen views, one per row, each column a function of the view."""

    columns: Sequence[Column] = ()
    status_column = 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Any] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(self.columns):
            return self.columns[section][0]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        view = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.columns[index.column()][1](view)
        if role == VIEW_ROLE:
            return view
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == self.status_column:
            return STATUS_COLOUR.get(view.status)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(view)
        return None

    def tooltip(self, view: Any) -> str | None:
        return None

    def view(self, row: int) -> Any:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def _replace_row(self, row: int, view: Any) -> None:
        """Put the new view in, and say which cells show something else now."""
        old = self.rows[row]
        self.rows[row] = view
        changed = [column for column, (_name, cell) in enumerate(self.columns) if cell(old) != cell(view)]
        if self.tooltip(old) != self.tooltip(view):
            changed = list(range(len(self.columns)))
        if changed:
            self.dataChanged.emit(self.index(row, min(changed)), self.index(row, max(changed)))


class RunsModel(_ViewTable):
    """The project's runs, newest first."""

    columns: Sequence[Column] = (
        ("Run", lambda run: run.run_id),
        ("Status", lambda run: STATUS_TEXT.get(run.status, run.status)),
        ("Harness", lambda run: harness_label(run.harness)),
        ("Image", lambda run: run.image),
        ("Started", lambda run: local_time(run.created)),
        ("Progress", lambda run: f"{run.done}/{run.total}"),
    )

    def tooltip(self, view: Any) -> str | None:
        return view.message or None

    def set_runs(self, runs: Sequence[RunView]) -> None:
        """Another runs folder (a project was opened): the one reset."""
        self.beginResetModel()
        self.rows = sorted(runs, key=lambda run: run.run_id, reverse=True)
        self.endResetModel()

    def row_of(self, run_id: str) -> int:
        return next((row for row, run in enumerate(self.rows) if run.run_id == run_id), -1)

    def update(self, run: RunView) -> int:
        """A run read again: its changed cells are updated, or it is inserted in its place; returns its row."""
        row = self.row_of(run.run_id)
        if row >= 0:
            self._replace_row(row, run)
            return row
        row = next((row for row, other in enumerate(self.rows) if other.run_id < run.run_id), len(self.rows))
        self.beginInsertRows(QModelIndex(), row, row)
        self.rows.insert(row, run)
        self.endInsertRows()
        return row

    def remove(self, run_id: str) -> None:
        row = self.row_of(run_id)
        if row >= 0:
            self.beginRemoveRows(QModelIndex(), row, row)
            del self.rows[row]
            self.endRemoveRows()


class SubtasksModel(_ViewTable):
    """The subtasks of one run in timeline order, with what each attempt left."""

    columns: Sequence[Column] = (
        ("Subtask", lambda sub: sub.id),
        ("Status", lambda sub: STATUS_TEXT.get(sub.status, sub.status)),
        ("Exit code", lambda sub: "" if sub.exit_code is None else str(sub.exit_code)),
        ("Timed out", lambda sub: "yes" if sub.timed_out else ("no" if sub.ended is not None else "")),
        ("Duration", lambda sub: duration_text(sub.duration_s)),
        ("Tokens", lambda sub: tokens_text(sub.tokens)),
    )

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.run_id: str | None = None

    def tooltip(self, view: Any) -> str | None:
        sub: SubtaskView = view
        if sub.attempts > 1:
            return f"{sub.attempts} attempts; the last one is shown"
        return None

    def set_run(self, run: RunView | None) -> None:
        """Show `run`: the same run again updates its rows in place; another run resets the table."""
        ids = [sub.id for sub in run.subtasks] if run is not None else []
        if run is not None and run.run_id == self.run_id and ids == [sub.id for sub in self.rows]:
            for row, sub in enumerate(run.subtasks):
                self._replace_row(row, sub)
            return
        self.beginResetModel()
        self.run_id = run.run_id if run is not None else None
        self.rows = list(run.subtasks) if run is not None else []
        self.endResetModel()
