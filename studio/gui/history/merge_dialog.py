"""Keep mine, field by field: after someone else saved a file the window has unsaved edits to, the
two versions side by side (the object diff of `dbstudio diff`), a choice per field, and the merged
version becomes what the window holds, one undoable edit, saveable."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from studio.editing.merge import FileConflict
from studio.gui.widgets.tables import HeadersTableModel
from studio.store.object_diff import FieldChange, shown

Index = QModelIndex | QPersistentModelIndex
TAKE = 3  # the column of the choice


class ConflictModel(HeadersTableModel):
    """One row per differing field of every conflicting file: the window's value, the disk's, and a
    check box "take the disk's" (unchecked: keep mine, the choice the user came for)."""

    HEADERS = ("Field", "In the window (mine)", "On disk (theirs)", "Take the disk's")

    def __init__(self, conflicts: list[FileConflict], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.conflicts = conflicts
        self._rows: list[tuple[int, FieldChange]] = [(n, change) for n, conflict in enumerate(conflicts)
                                                     for change in conflict.changes]
        self._take = [False] * len(self._rows)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self._rows)

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsUserCheckable if index.column() == TAKE else base

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        file_number, change = self._rows[index.row()]
        column = index.column()
        if column == TAKE:
            if role == Qt.ItemDataRole.CheckStateRole:
                return Qt.CheckState.Checked if self._take[index.row()] else Qt.CheckState.Unchecked
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if column == 0:
                return f"{self.conflicts[file_number].rel}: {change.field}"
            return shown(change.old if column == 1 else change.new)
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or index.column() != TAKE or role != Qt.ItemDataRole.CheckStateRole:
            return False
        self._take[index.row()] = Qt.CheckState(value) == Qt.CheckState.Checked
        self.dataChanged.emit(index, index, [role])
        return True

    def choices(self) -> list[list[bool]]:
        """For each conflict, per change in order: take the disk's value."""
        result: list[list[bool]] = [[] for _ in self.conflicts]
        for (file_number, _change), take in zip(self._rows, self._take, strict=True):
            result[file_number].append(take)
        return result


class KeepMineDialog(QDialog):
    """The conflicting fields and a choice per field; accepted, `model.choices()` says what to merge."""

    def __init__(self, conflicts: list[FileConflict], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("keepMineDialog")
        self.setWindowTitle("Keep mine: merge with the version on disk")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        files = ", ".join(conflict.rel for conflict in conflicts)
        intro = QLabel(f"<b>{files}</b> changed on disk while you edited it here. Each row is a field whose "
                       "two versions differ: your version is kept unless you tick <i>Take the disk's</i>. "
                       "The merged version is what the window then holds; save it to write it.", self)
        intro.setWordWrap(True)
        self.model = ConflictModel(conflicts, self)
        self.table = QTableView(self)
        self.table.setObjectName("conflictTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TAKE, QHeaderView.ResizeMode.ResizeToContents)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Use the merged version")
        ok.setDefault(False)
        ok.setAutoDefault(False)  # Enter in the table must not answer the dialog before the choices are made
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(900, 420)
        if self.model.rowCount():
            self.table.setCurrentIndex(self.model.index(0, TAKE))  # Space ticks the first choice
        self.table.setFocus()
