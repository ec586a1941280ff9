"""Rubrics to and from Excel in the window: export to a file the expert picks, and import an
edited sheet shown as a reviewable diff, applied as one undoable step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QStringListModel, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QListView,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import Task, TaskRunner
from studio.gui.widgets.tables import HeadersTableModel
from studio.sheets import SheetDiff, SheetError, diff_to_command, export_rubrics, read_rubric_sheet
from studio.sheets.mapping import ColumnMapping

Index = QModelIndex | QPersistentModelIndex
ADDED_BRUSH = QBrush(QColor("#e3f4e1"))
REMOVED_BRUSH = QBrush(QColor("#fbe3e3"))
XLSX_FILTER = "Excel workbook (*.xlsx)"


class ImportDiffModel(HeadersTableModel):
    """One row per changed field, added criterion and removed criterion of a SheetDiff."""

    HEADERS = ("Change", "Rubric", "Criterion", "Field", "Old", "New", "Cell")

    def __init__(self, diff: SheetDiff | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, ...]] = []
        if diff is not None:
            self.set_diff(diff)

    def set_diff(self, diff: SheetDiff) -> None:
        self.beginResetModel()
        try:
            self._rows = diff.rows()
        finally:
            self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return row[index.column()]
        if role == Qt.ItemDataRole.BackgroundRole:
            return {"added": ADDED_BRUSH, "removed": REMOVED_BRUSH}.get(row[0])
        return None

class RubricImportDialog(QDialog):
    """Reads an edited rubric sheet, shows what it changes (or every bad cell), and on Accept
    pushes the changes onto the project's undo stack as one step. Given the app's TaskRunner,
    the sheet is read in the background (a 5,000-criterion sheet takes seconds)."""

    sheet_read = Signal()
    """The sheet was read: the diff or the errors are shown."""

    def __init__(self, context: ProjectContext, xlsx_path: Path, parent: QWidget | None = None,
                 runner: TaskRunner | None = None, mapping: ColumnMapping | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rubricImportDialog")
        self.context = context
        self.xlsx_path = Path(xlsx_path)
        self.mapping = mapping  # a workbook of the expert's own layout is read through its column mapping
        self.diff: SheetDiff | None = None
        self.errors: list[str] = []
        self.setWindowTitle(f"Import rubrics from {self.xlsx_path.name}")
        self.summary = QLabel(self)
        self.summary.setObjectName("importSummary")
        self.summary.setWordWrap(True)
        self.model = ImportDiffModel(parent=self)
        self.view = QTableView(self)
        self.view.setObjectName("importDiffView")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(True)
        self.view.verticalHeader().setVisible(False)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.error_model = QStringListModel(self)
        self.error_view = QListView(self)
        self.error_view.setObjectName("importErrorView")
        self.error_view.setModel(self.error_model)
        self.error_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.error_view.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.apply_button: QPushButton = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.apply_button.setObjectName("importApplyButton")
        self.apply_button.setText("Apply as one step")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 3)
        layout.addWidget(self.error_view, 1)
        layout.addWidget(self.buttons)
        self.resize(1000, 560)
        self.apply_button.setEnabled(False)
        self._task: Task | None = None
        documents, path = self.context.session.documents, self.xlsx_path
        if runner is None:
            try:
                self._show(read_rubric_sheet(documents, path, mapping))
            except StudioError as exc:
                self._show_error(exc)
        else:
            self.summary.setText(f"Reading {path.name}...")
            self.error_view.setVisible(False)
            self._task = runner.run(f"Read {path.name}", lambda: read_rubric_sheet(documents, path, mapping),
                                    self._show, self._show_error)

    def done(self, result: int) -> None:
        if self._task is not None:
            self._task.cancel()  # closed before the sheet was read: the result has nowhere to go
        super().done(result)

    def _show_error(self, error: StudioError) -> None:
        self.errors = [e.render() for e in error.errors] if isinstance(error, SheetError) else [str(error)]
        self._show(None)

    def _show(self, diff: SheetDiff | None) -> None:
        self.diff = diff
        if diff is not None and self.mapping is not None:  # read without a bad cell: remembered for this layout
            from studio.sheets.mapping import default_store

            try:
                default_store().remember(self.xlsx_path, self.mapping)
            except (OSError, StudioError):
                pass  # remembering is a convenience: the import goes on
        self.error_model.setStringList(self.errors)
        self.error_view.setVisible(bool(self.errors))
        self.view.setVisible(not self.errors)
        if self.errors:
            count = len(self.errors)
            self.summary.setText(f"{count} problem{'s' if count != 1 else ''} in {self.xlsx_path.name}: fix "
                                 f"{'them' if count != 1 else 'it'} in the sheet and import again. Nothing was changed.")
        elif self.diff:
            self.model.set_diff(self.diff)
            self.view.resizeColumnsToContents()
            header = self.view.horizontalHeader()
            for column in (0, 1, 2, 3, 6):  # short values: their width plus air
                self.view.setColumnWidth(column, self.view.columnWidth(column) + 12)
            for column in (4, 5):  # old and new text share what is left, wrapped: not one endless line
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
            self.view.resizeRowsToContents()
            self.summary.setText(f"{self.diff.summary()}. Review the changes, then apply them as one step "
                                 "(Undo takes them all back).")
        else:
            self.summary.setText(f"{self.xlsx_path.name} matches the project: there is nothing to import.")
        self.apply_button.setEnabled(bool(self.diff) and not self.errors)
        self.sheet_read.emit()

    def accept(self) -> None:
        if self.diff is None or not self.diff:
            super().reject()
            return
        try:
            command = diff_to_command(self.context.session.documents, self.diff, f"Import {self.xlsx_path.name}")
            self.context.push(command)
        except StudioError as exc:
            QMessageBox.warning(self, "Import rubrics", str(exc))
            return
        super().accept()


def export_rubrics_dialog(context: ProjectContext, parent: QWidget | None = None) -> Path | None:
    """Ask for a file name and write every criterion of the open project (unsaved edits
    included) to it; the file written, or None when the expert cancels or it fails."""
    suggested = context.session.root.parent / f"{context.session.root.name}-rubrics.xlsx"
    chosen, _ = QFileDialog.getSaveFileName(parent, "Export rubrics to Excel", str(suggested), XLSX_FILTER)
    if not chosen:
        return None
    path = Path(chosen)
    if path.suffix.lower() != ".xlsx":
        path = path.with_name(path.name + ".xlsx")
    try:
        export_rubrics(context.session.documents, path)
    except StudioError as exc:
        QMessageBox.warning(parent, "Export rubrics", str(exc))
        return None
    return path


def import_rubrics_dialog(context: ProjectContext, parent: QWidget | None = None,
                          runner: TaskRunner | None = None) -> bool:
    """Ask for an edited sheet and show its diff for review; whether it was applied."""
    chosen, _ = QFileDialog.getOpenFileName(parent, "Import rubrics from Excel", str(context.session.root.parent),
                                            XLSX_FILTER)
    if not chosen:
        return False
    mapping = ask_mapping(Path(chosen), parent)
    if not isinstance(mapping, ColumnMapping | None):
        return False
    return RubricImportDialog(context, Path(chosen), parent, runner, mapping).exec() == QDialog.DialogCode.Accepted


def ask_mapping(workbook: Path, parent: QWidget | None = None) -> ColumnMapping | None | bool:
    """None for a sheet of Export Rubrics; else the column mapping the expert confirms (pre-filled from the one
    remembered for this layout, or guessed), or False when they cancel or the workbook cannot be read."""
    from studio.gui.rubric.column_mapping import ColumnMappingDialog
    from studio.sheets.columns import RUBRIC_SHEET
    from studio.sheets.mapping import default_store, sheet_headers

    try:
        sheets = sheet_headers(workbook)
    except StudioError as exc:
        QMessageBox.warning(parent, "Import rubrics", str(exc))
        return False
    if RUBRIC_SHEET in sheets:
        return None
    dialog = ColumnMappingDialog(workbook, sheets, default_store().find(workbook), parent)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return False
    return dialog.mapping()
