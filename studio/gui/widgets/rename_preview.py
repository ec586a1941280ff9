"""The rename preview (`renamePreviewDialog`): every change a rename would make — the YAML fields that
name the object, the instruction and brief lines that name it, a folder that moves — listed before
anything is applied. Rename applies them as one undo step; Cancel changes nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.gui.widgets.buttons import ok_cancel

if TYPE_CHECKING:
    from studio.editing.rename import PlannedChange

HEADERS = ("File", "Where", "Before", "After")


class RenamePreviewDialog(QDialog):
    def __init__(self, title: str, changes: Sequence[PlannedChange], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("renamePreviewDialog")
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        files = len({change.rel for change in changes})
        texts = sum(1 for change in changes if change.where.startswith("line "))
        summary = QLabel(f"{len(changes)} change{'s' if len(changes) != 1 else ''} in {files} "
                         f"file{'s' if files != 1 else ''}"
                         + (f", {texts} of them in the instructions or the brief" if texts else "")
                         + ". Rename makes them all as one step (Undo takes them all back).", self)
        summary.setObjectName("renamePreviewSummary")
        summary.setWordWrap(True)
        self.table = QTableWidget(len(changes), len(HEADERS), self)
        self.table.setObjectName("renamePreviewTable")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        for row, change in enumerate(changes):
            for column, text in enumerate((change.rel, change.where, change.before, change.after)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, column, item)
        header = self.table.horizontalHeader()
        self.table.resizeColumnsToContents()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column in (2, 3):  # before and after share the width left: both read, neither runs off
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self.buttons = ok_cancel(self, "&Rename", "renamePreviewApply")
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(980, 460)
        self.table.setFocus()  # its first field: Enter renames, Escape cancels


def preview_then_apply(parent: QWidget, documents: object, command: object, apply: Callable[[object], object]) -> \
        RenamePreviewDialog:
    """Show what `command` (a rename) would change; `apply(command)` on Rename."""
    from studio.editing.rename import rename_preview

    changes = rename_preview(documents, command)  # type: ignore[arg-type]
    dialog = RenamePreviewDialog(getattr(command, "label", "Rename"), changes, parent)
    dialog.accepted.connect(lambda: apply(command))
    dialog.open()
    return dialog
