"""The evidence side of the review: a submission's file list and the file preview, scrolled to a
cited place (a PDF page, a workbook cell, a Word paragraph or table, a slide, a line of a text, Markdown
or CSV file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.tasks import TaskRunner
from studio.gui.widgets.office_preview import OfficeView
from studio.gui.widgets.preview import MaterialPreview, WorkbookView
from studio.judging.evidence import locate, submission_files
from studio.untrusted import shown

PATH_ROLE = Qt.ItemDataRole.UserRole


class EvidencePane(QWidget):
    """`reviewFiles` (the submission's files) over `reviewEvidence` (the preview of the chosen one)."""

    revealed = Signal(str, object)  # (path, place) once the preview shows that place

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder: Path | None = None
        self.heading = QLabel("Evidence", self)
        self.heading.setObjectName("reviewEvidenceHeading")
        self.heading.setWordWrap(True)
        self.files = QListWidget(self)
        self.files.setObjectName("reviewFiles")
        self.files.currentItemChanged.connect(self._file_chosen)
        self.preview = MaterialPreview(runner, self)
        self.preview.setObjectName("reviewEvidence")
        self.preview.shown.connect(self._preview_shown)
        self._pending: tuple[str, dict[str, Any]] | None = None
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.files)
        split.addWidget(self.preview)
        split.setStretchFactor(1, 4)
        split.setSizes([110, 500])
        remember_splitter(split, "review/files-preview")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(split, 1)

    def show_submission(self, title: str, folder: Path | None, message: str = "") -> None:
        """List a submission's files (None: no files, with `message` saying why)."""
        self.heading.setText(title)
        self.folder = folder
        self.files.blockSignals(True)
        self.files.clear()
        for rel in submission_files(folder) if folder is not None else []:
            item = QListWidgetItem(shown(rel), self.files)
            item.setData(PATH_ROLE, rel)
        self.files.blockSignals(False)
        self._pending = None
        self.preview.show_file(None)
        if folder is None:
            self.preview.message.setText(message or "No files for this decision")

    def show_ref(self, ref: str) -> bool:
        """Open the file a citation names and scroll to its place; False when the submission has no such file."""
        path, place = locate(ref)
        return self.show_path(path, place)

    def show_path(self, rel: str, place: dict[str, Any] | None = None) -> bool:
        items = self.files.findItems(rel, Qt.MatchFlag.MatchExactly)
        if self.folder is None or not items:
            return False
        self._pending = (rel, dict(place or {}))
        if self.files.currentItem() is items[0] and self.preview.path == self.folder / rel and self.preview.content:
            self._reveal()
        else:
            self.files.setCurrentItem(items[0])
        return True

    def _file_chosen(self, current: QListWidgetItem | None, _previous: Any = None) -> None:
        if current is None or self.folder is None:
            return
        rel = current.data(PATH_ROLE)
        if self._pending is None or self._pending[0] != rel:
            self._pending = (rel, {})
        # a submission is the agent's: nothing but its own regular files is shown (no link out, no FIFO)
        self.preview.show_file(self.folder / rel, within=self.folder)

    def _preview_shown(self, _kind: str) -> None:
        self._reveal()

    def _reveal(self) -> None:
        if self._pending is None or self.folder is None or self.preview.path != self.folder / self._pending[0]:
            return
        rel, place = self._pending
        content = self.preview.content
        if place and content is not None:
            reveal(content, place)
        self.revealed.emit(rel, place)


_OFFICE_PLACES = {"paragraph": "p", "table": "table", "slide": "slide"}
"""locate()'s places in a Word document or a presentation, and the fragments the evidence cites them by."""


def reveal(content: QWidget, place: dict[str, Any]) -> None:
    """Scroll a preview's content to a place of studio.judging.evidence.locate."""
    if isinstance(content, WorkbookView) and "sheet" in place:
        _reveal_cell(content, str(place["sheet"]), str(place.get("cell") or "A1"))
        return
    if isinstance(content, OfficeView):
        for key, fragment in _OFFICE_PLACES.items():
            if isinstance(place.get(key), int):
                content.scroll_to(f"{fragment}={place[key]}")
                return
        return
    page = place.get("page")
    spin = getattr(content, "spin", None)
    if isinstance(page, int) and spin is not None:
        spin.setValue(page)
        return
    line = place.get("line")
    if not isinstance(line, int):
        return
    if isinstance(content, QPlainTextEdit):
        block = content.document().findBlockByLineNumber(max(0, line - 1))
        cursor = QTextCursor(block)
        cursor.select(QTextCursor.SelectionType.LineUnderCursor)
        content.setTextCursor(cursor)
        content.centerCursor()
    elif isinstance(content, QTextBrowser):
        # rendered Markdown has no source lines: go to the same share of the document
        document = content.document()
        lines = max(1, content.property("sourceLines") or document.blockCount())
        bar = content.verticalScrollBar()
        bar.setValue(int(bar.maximum() * min(1.0, (line - 1) / lines)))
    elif isinstance(content, QTableView) and content.model() is not None:
        row = max(0, line - 2)  # line 1 is the header
        index = content.model().index(min(row, content.model().rowCount() - 1), 0)
        content.setCurrentIndex(index)
        content.scrollTo(index, QTableView.ScrollHint.PositionAtCenter)


def _reveal_cell(book: WorkbookView, sheet: str, cell: str) -> None:
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

    if sheet not in book.book.sheet_names:
        return
    try:
        letters, row = coordinate_from_string(cell)
        column = column_index_from_string(letters)
    except ValueError:
        return
    book.tabs.setCurrentIndex(book.book.sheet_names.index(sheet))

    def select() -> None:
        view = book.view(sheet)
        if view is None:
            return
        model = view.model()
        index = model.index(min(row, model.rowCount()) - 1, min(column, model.columnCount()) - 1)
        view.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        view.scrollTo(index, QTableView.ScrollHint.PositionAtCenter)

    if book.view(sheet) is not None:
        select()
    else:

        def ready(name: str) -> None:
            if name == sheet:
                book.sheet_ready.disconnect(ready)
                QTimer.singleShot(0, book, select)

        book.sheet_ready.connect(ready)
