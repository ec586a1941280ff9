"""The material preview (`materialPreview`): a material's file shown as it is - PDF pages with search,
every sheet of a workbook (values or formulas), a Word document as formatted text, a presentation slide
by slide, a CSV table, rendered Markdown, an image, text.

Files are opened on the background helper (`TaskRunner`) and read lazily: table models fetch the
cells a view shows; a big CSV is indexed a chunk at a time, its rows appearing as the scan goes.
A damaged file shows its `PreviewError` message (`previewMessage`) instead of the content."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontDatabase, QImage, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QSpinBox,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.tasks import TaskRunner
from studio.gui.widgets.office_preview import OfficeView
from studio.previews import PreviewError, file_in_tree, preview_kind
from studio.previews.office import SlidesPreview, WordPreview, read_slides, read_word
from studio.previews.pdf import PdfPreview, RenderedPage, SearchHit
from studio.previews.table import SCAN_CHUNK, CsvPreview, column_name
from studio.previews.text import read_image, read_text
from studio.previews.workbook import WorkbookPreview, cell_ref

PDF_ZOOM = 1.5
"""Pages are drawn at 108 dpi: readable in a dock without zooming."""
SCAN_DELAY_MS = 50
OPENING_NOTICE_MS = 150
BLOCK = 200
"""Rows a table model reads at once when a view asks for one of them."""

Index = QModelIndex | QPersistentModelIndex


FIT_ROWS = 50
FIT_MAX_WIDTH = 320


def fit_columns(view: QTableView, rows: int = FIT_ROWS) -> None:
    """Widen each column to its header and first rows' text (at most FIT_MAX_WIDTH px), without
    asking the lazy model for more than those rows (Qt's resizeColumnsToContents may)."""
    model = view.model()
    metrics = view.fontMetrics()
    header = view.horizontalHeader()
    for column in range(model.columnCount()):
        texts = [str(model.headerData(column, Qt.Orientation.Horizontal) or "")]
        texts += [str(model.index(row, column).data() or "") for row in range(min(rows, model.rowCount()))]
        widest = max(metrics.horizontalAdvance(text) for text in texts) + 16
        header.resizeSection(column, min(max(widest, header.minimumSectionSize()), FIT_MAX_WIDTH))


class _BlockCache:
    """Rows read a block at a time and kept (a view scrolls back and forth over the same rows)."""

    def __init__(self, read: Callable[[int, int], list[list[Any]]]) -> None:
        self.read = read
        self.blocks: dict[int, list[list[Any]]] = {}

    def row(self, number: int) -> list[Any]:
        block = number // BLOCK
        if block not in self.blocks:
            self.blocks[block] = self.read(block * BLOCK, BLOCK)
        rows = self.blocks[block]
        offset = number - block * BLOCK
        return rows[offset] if offset < len(rows) else []

    def clear(self) -> None:
        self.blocks.clear()


class SheetModel(QAbstractTableModel):
    """One sheet of a workbook: its size is known at once; its cells are read a block of rows at a
    time on the background helper when a view first asks for them (openpyxl reads a read-only
    sheet from its start, so a block far down a big sheet takes a while), and shown when they
    arrive (dataChanged). Until then the cells are empty."""

    def __init__(
        self, book: WorkbookPreview, sheet: str, run: Callable[..., None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.book = book
        self.sheet = sheet
        self.run = run
        self.rows, self.columns = book.size(sheet)
        self.formulas = False
        self.error: str | None = None
        self._blocks: dict[int, list[list[Any]]] = {}
        self._pending: set[int] = set()

    def _read(self, first: int, count: int, formulas: bool) -> list[list[Any]]:
        last = min(first + count, self.rows)
        try:
            return self.book.read(self.sheet, first + 1, last, 1, self.columns, formulas=formulas)
        except PreviewError as error:  # shown in the cells' place: the rest of the sheet stays readable
            self.error = str(error)
            return []

    def _request(self, block: int) -> None:
        if block in self._pending:
            return
        self._pending.add(block)
        first, formulas = block * BLOCK, self.formulas
        self.run(
            f"Reading {self.sheet} rows {first + 1}-{min(first + BLOCK, self.rows)}",
            lambda: self._read(first, BLOCK, formulas),
            lambda rows: self._arrived(block, formulas, rows),
        )

    def _arrived(self, block: int, formulas: bool, rows: list[list[Any]]) -> None:
        if formulas != self.formulas:  # read before the switch: the view asks again
            return
        self._pending.discard(block)
        self._blocks[block] = rows
        first = block * BLOCK
        last = min(first + BLOCK, self.rows) - 1
        if last >= first and self.columns:
            self.dataChanged.emit(self.index(first, 0), self.index(last, self.columns - 1))

    def is_loaded(self, row: int) -> bool:
        return row // BLOCK in self._blocks

    def set_formulas(self, formulas: bool) -> None:
        if formulas == self.formulas:
            return
        self.formulas = formulas
        self._blocks.clear()
        self._pending.clear()
        if self.rows and self.columns:
            self.dataChanged.emit(self.index(0, 0), self.index(self.rows - 1, self.columns - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else self.rows

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else self.columns

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        wanted = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole)
        if not index.isValid() or role not in wanted:
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell_ref(self.sheet, index.row() + 1, index.column() + 1)
        block, offset = divmod(index.row(), BLOCK)
        rows = self._blocks.get(block)
        if rows is None:
            self._request(block)
            return None
        row = rows[offset] if offset < len(rows) else []
        value = row[index.column()] if index.column() < len(row) else None
        if role == Qt.ItemDataRole.TextAlignmentRole:  # numbers to the right, as a spreadsheet shows them
            number = isinstance(value, int | float) and not isinstance(value, bool)
            return int(
                (Qt.AlignmentFlag.AlignRight if number else Qt.AlignmentFlag.AlignLeft) | Qt.AlignmentFlag.AlignVCenter
            )
        return None if value is None else str(value)

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return column_name(section + 1) if orientation == Qt.Orientation.Horizontal else str(section + 1)


class CsvModel(QAbstractTableModel):
    """A CSV's rows below its header, as far as the row index has got; `grow()` adds rows the
    background scan found since (rowsInserted, never a reset)."""

    def __init__(self, table: CsvPreview, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.header = list(table.header)
        self.rows = max(table.row_count - 1, 0)
        self._cache = _BlockCache(lambda first, count: table.rows(first + 1, count))

    def grow(self) -> None:
        known = max(self.table.row_count - 1, 0)
        if known <= self.rows:
            return
        # the last block may have been read while it was short
        self._cache.blocks.pop(self.rows // BLOCK, None)
        self.beginInsertRows(QModelIndex(), self.rows, known - 1)
        self.rows = known
        self.endInsertRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else self.rows

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.header)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        row = self._cache.row(index.row())
        return row[index.column()] if index.column() < len(row) else None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.header[section] if section < len(self.header) else None
        return str(section + 1)


def page_image(page: RenderedPage, hits: list[SearchHit], zoom: float) -> QImage:
    """A rendered page as a QImage (its own copy of the pixels), the search hits marked in yellow."""
    image = QImage(page.samples, page.width, page.height, page.stride, QImage.Format.Format_RGB888).copy()
    mine = [hit for hit in hits if hit.page == page.number]
    if mine:
        painter = QPainter(image)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(255, 220, 0, 110))
        for hit in mine:
            x0, y0, x1, y1 = hit.rect
            painter.drawRect(QRectF(x0 * zoom, y0 * zoom, (x1 - x0) * zoom, (y1 - y0) * zoom))
        painter.end()
    return image


class PageCanvas(QWidget):
    """One page, painted straight from its image: only the part in view is drawn (and converted to
    the screen's format), so a page shows as soon as pymupdf has rendered it."""

    painted = Signal()
    """After each paint (the first one after a page arrives is when it is on screen)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image = QImage()

    def show_image(self, image: QImage) -> None:
        self.image = image
        self.setFixedSize(image.size())
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt naming)
        painter = QPainter(self)
        painter.drawImage(event.rect(), self.image, event.rect())
        painter.end()
        self.painted.emit()


class PdfView(QWidget):
    """Page navigation (`previewPage`), text search (`previewSearch`), the page (`previewPageImage`)."""

    page_shown = Signal(int)
    """(0-based page) once it is on screen."""
    searched = Signal(int)
    """(number of hits) once a search is done."""

    def __init__(
        self, pdf: PdfPreview, first: RenderedPage, run: Callable[..., None], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.run = run
        bar = QHBoxLayout()
        self.spin = QSpinBox(self)
        self.spin.setObjectName("previewPage")
        self.spin.valueChanged.connect(self._page_chosen)
        self.search = QLineEdit(self)
        self.search.setObjectName("previewSearch")
        self.search.setPlaceholderText("Find in the PDF")
        self.search.returnPressed.connect(self.find_text)
        self.result = QLabel(self)
        self.result.setObjectName("previewSearchResult")
        bar.addWidget(QLabel("Page", self))
        bar.addWidget(self.spin)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.result)
        self.image = PageCanvas(self)
        self.image.setObjectName("previewPageImage")
        scroll = QScrollArea(self)
        scroll.setWidget(self.image)
        scroll.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(scroll, 1)
        self.set_document(pdf, first)

    def set_document(self, pdf: PdfPreview, first: RenderedPage) -> None:
        """Show another PDF in this view (the preview keeps one PDF view: building its widgets
        again for every file took longer than pymupdf drawing the page)."""
        self.pdf = pdf
        self.hits: list[SearchHit] = []
        self.page = first
        self.spin.blockSignals(True)
        self.spin.setRange(1, pdf.page_count)
        self.spin.setValue(first.number + 1)
        self.spin.blockSignals(False)
        self.spin.setSuffix(f" of {pdf.page_count}")
        self.search.clear()
        self.result.clear()
        self._draw(first)

    def _page_chosen(self, value: int) -> None:
        self.show_page(value - 1)

    def _draw(self, page: RenderedPage) -> None:
        self.page = page
        self.image.show_image(page_image(page, self.hits, PDF_ZOOM))
        self.page_shown.emit(page.number)

    def show_page(self, number: int) -> None:
        pdf = self.pdf
        self.run(f"Drawing page {number + 1}", lambda: pdf.render(number, PDF_ZOOM), self._drawn)

    def _drawn(self, page: RenderedPage) -> None:
        if page.number == self.spin.value() - 1:  # still the page asked for
            self._draw(page)

    def find_text(self) -> None:
        text, pdf = self.search.text(), self.pdf
        self.run(f"Searching for {text!r}", lambda: pdf.search(text), self._found)

    def _found(self, hits: list[SearchHit]) -> None:
        self.hits = hits
        pages = sorted({hit.page + 1 for hit in hits})
        if not hits:
            self.result.setText("not found")
        else:
            listed = ", ".join(map(str, pages[:10])) + (" …" if len(pages) > 10 else "")
            self.result.setText(f"{len(hits)} found on page{'s' if len(pages) > 1 else ''} {listed}")
        if hits and hits[0].page != self.page.number:
            self.spin.setValue(hits[0].page + 1)  # draws that page, hits marked
        else:
            self._draw(self.page)
        self.searched.emit(len(hits))


class WorkbookView(QWidget):
    """A tab per sheet (`previewSheets`), values or formulas (`previewFormulas`), the current cell's
    `Sheet!A1` and content (`previewCellRef`). A sheet's table is built when its tab is first
    shown, after its size is read on the background helper (a sheet without a recorded size is
    counted row by row: 50 of them up front would keep the workbook off screen for seconds)."""

    sheet_ready = Signal(str)
    """(sheet name) once its table is in its tab."""

    def __init__(self, book: WorkbookPreview, run: Callable[..., None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.book = book
        self.run = run
        self.models: list[SheetModel] = []
        self._tables: dict[str, QTableView] = {}
        self._asked: set[str] = set()
        self._waiting: dict[str, tuple[QWidget, QVBoxLayout, QLabel]] = {}  # a sheet's page until it is built
        self.formulas = QCheckBox("Show formulas", self)
        self.formulas.setObjectName("previewFormulas")
        self.formulas.toggled.connect(self._toggle)
        self.cell = QLabel(self)
        self.cell.setObjectName("previewCellRef")
        self.cell.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("previewSheets")
        self.tabs.setDocumentMode(True)
        self.tabs.setTabPosition(QTabWidget.TabPosition.South)
        for sheet in book.sheet_names:
            page = QWidget(self.tabs)
            page_layout = QVBoxLayout(page)
            page_layout.setContentsMargins(0, 0, 0, 0)
            waiting = QLabel(f"Reading sheet {sheet}…", page)
            waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
            page_layout.addWidget(waiting)
            self._waiting[sheet] = (page, page_layout, waiting)
            self.tabs.addTab(page, sheet.replace("&", "&&"))  # a sheet's "&" is text, not a shortcut
        self.tabs.currentChanged.connect(self._tab_shown)
        bar = QHBoxLayout()
        bar.addWidget(self.cell, 1)
        bar.addWidget(self.formulas)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.tabs, 1)
        self._tab_shown(self.tabs.currentIndex())

    def view(self, sheet: str) -> QTableView | None:
        """The sheet's table, None until its tab has been shown and its size read."""
        return self._tables.get(sheet)

    def current_view(self) -> QTableView | None:
        index = self.tabs.currentIndex()
        return self._tables.get(self.book.sheet_names[index]) if index >= 0 else None

    def _tab_shown(self, index: int) -> None:
        if index < 0:
            return
        sheet = self.book.sheet_names[index]
        if sheet in self._asked:
            return
        self._asked.add(sheet)
        book = self.book
        if book.known_size(sheet) is not None:
            self._build(sheet)
            return
        self.run(f"Reading the size of sheet {sheet}", lambda: book.size(sheet), lambda _size: self._build(sheet))

    def _build(self, sheet: str) -> None:
        page, page_layout, waiting = self._waiting.pop(sheet)
        view = QTableView(page)
        view.setObjectName(f"previewSheet_{sheet}")
        view.setWordWrap(False)
        model = SheetModel(self.book, sheet, self.run, view)  # its size is known now: no reading here
        model.set_formulas(self.formulas.isChecked())
        view.setModel(model)
        view.selectionModel().currentChanged.connect(self._current)
        model.dataChanged.connect(self._cells_arrived)
        model.dataChanged.connect(partial(self._first_rows_arrived, view))
        self.models.append(model)
        self._tables[sheet] = view
        page_layout.replaceWidget(waiting, view)
        waiting.deleteLater()
        view.show()  # made after its page was shown: hidden until told
        self.sheet_ready.emit(sheet)

    def _toggle(self, on: bool) -> None:
        for model in self.models:
            model.set_formulas(on)
        view = self.current_view()
        if view is not None:
            self._current(view.currentIndex())

    @staticmethod
    def _first_rows_arrived(view: QTableView, top: QModelIndex, *_rest: Any) -> None:
        if top.row() == 0:
            fit_columns(view)

    def _cells_arrived(self) -> None:
        view = self.current_view()
        if view is not None and view.currentIndex().isValid():
            self._current(view.currentIndex())  # the current cell's content may have just arrived

    def _current(self, index: QModelIndex) -> None:
        if not index.isValid():
            self.cell.clear()
            return
        model = index.model()
        assert isinstance(model, SheetModel)
        text = index.data() or ""
        self.cell.setText(f"{cell_ref(model.sheet, index.row() + 1, index.column() + 1)}   {text}".rstrip())


class MaterialPreview(QWidget):
    """Shows one file. `show_file(path)` picks the view by the file's suffix; `shown(kind)` is sent
    once the content (or the error message, kind "error") is on screen."""

    shown = Signal(str)
    csv_indexed = Signal(int)
    """(rows, header excluded) once a CSV's whole row index is built."""
    scan_chunk = SCAN_CHUNK
    """Bytes of a CSV indexed per background job: rows appear on screen after each."""

    def __init__(self, runner: TaskRunner | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("materialPreview")
        self._runner = runner
        self._generation = 0
        self._key: tuple[str, float, int] | None = None
        self.path: Path | None = None
        self.kind = ""
        self.content: QWidget | None = None
        self._pdf_view: PdfView | None = None  # kept between PDFs, hidden when another kind shows
        self._reader: Any = None
        self.message = QLabel(self)
        self.message.setObjectName("previewMessage")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.addWidget(self.message)
        self.message.setText("No file to preview")

    @property
    def runner(self) -> TaskRunner:
        """The background helper given (the window's), else one of our own (a preview outside a window)."""
        if self._runner is None:
            self._runner = TaskRunner(self)
        return self._runner

    # -- choosing the view ------------------------------------------------------------------
    def show_file(self, path: Path | str | None, within: Path | None = None) -> None:
        """Preview `path` (None: nothing). The same unchanged file is not opened again. With `within` (a
        tree an agent controls, such as a submission), `path` is opened only if it is a regular file of
        that folder reached through no link out of it (studio.previews.file_in_tree); else the refusal shows."""
        key = None
        source: Path | None = None
        refused: PreviewError | None = None
        if path is not None:
            path = source = Path(path)
            if within is not None:
                try:
                    source = file_in_tree(within, path.relative_to(within).as_posix())
                except PreviewError as error:
                    refused, source = error, None
            try:
                stat = source.stat() if source is not None else None
                key = (str(path), stat.st_mtime, stat.st_size) if stat is not None else None
            except OSError:
                key = (str(path), 0.0, -1)
        if key is not None and key == self._key:
            return
        self._key = key
        self._generation += 1
        self._drop_content()
        self.path = path
        if path is None:
            self.kind = ""
            self._say("No file to preview")
            return
        if refused is not None or source is None:
            self.kind = "error"
            self._fail(refused or PreviewError(path, "cannot be previewed"))
            return
        path = source
        self.kind = preview_kind(path)
        # "Opening…" only for a file that takes a while: a quick one shows without a flash of text
        self.message.hide()
        generation, name = self._generation, path.name
        QTimer.singleShot(
            OPENING_NOTICE_MS,
            self,
            lambda: (
                self._say(f"Opening {name}…")
                if generation == self._generation and self.content is None and self.message.isHidden()
                else None
            ),
        )
        opener = getattr(self, f"_open_{self.kind}")
        opener(path)

    def _run(self, label: str, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """Background work whose result is dropped if another file was shown meanwhile."""
        generation = self._generation

        def on_done(result: Any) -> None:
            if generation == self._generation:
                done(result)

        def on_error(error: StudioError) -> None:
            if generation == self._generation:
                self._fail(error)

        if self._runner is None:  # a form opens its file before it is put in the window: look for its runner then
            QTimer.singleShot(0, self, lambda: self.runner.run(label, work, on_done, on_error))
        else:
            self.runner.run(label, work, on_done, on_error)

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()

    def _fail(self, error: StudioError) -> None:
        self._drop_content()
        self._say(str(error))
        self.shown.emit("error")

    def _drop_content(self) -> None:
        if self._pdf_view is not None and self.content is self._pdf_view:
            self._pdf_view.hide()
            self.content = None
        elif self.content is not None:
            # detached first: if this preview is deleted before the deferred delete runs, Qt must
            # not delete the content twice (seen as a crash with a parentless preview)
            self.content.hide()
            self.content.setParent(None)
            self.content.deleteLater()
            self.content = None
        reader = self._reader
        self._reader = None
        if reader is not None and hasattr(reader, "close"):
            # closed after the jobs already queued for it (the runner runs one job at a time)
            self.runner.run("Closing a preview", reader.close, lambda _result: None)

    def _show(self, widget: QWidget, reader: Any = None) -> None:
        self._drop_content()
        self._reader = reader
        self.content = widget
        self.message.hide()
        if self.layout_.indexOf(widget) < 0:
            self.layout_.addWidget(widget, 1)
        widget.show()
        self.shown.emit(self.kind)

    # -- one opener per kind ----------------------------------------------------------------
    def _open_pdf(self, path: Path) -> None:
        def work() -> tuple[PdfPreview, RenderedPage]:
            pdf = PdfPreview(path)
            return pdf, pdf.render(0, PDF_ZOOM)

        def done(result: tuple[PdfPreview, RenderedPage]) -> None:
            pdf, first = result
            if self._pdf_view is None:
                self._pdf_view = PdfView(pdf, first, self._run, self)
            else:
                self._drop_content()  # the previous PDF's reader is closed before this one shows
                self._pdf_view.set_document(pdf, first)
            self._show(self._pdf_view, pdf)

        self._run(f"Opening {path.name}", work, done)

    def _open_xlsx(self, path: Path) -> None:
        def work() -> WorkbookPreview:
            book = WorkbookPreview(path)
            if book.sheet_names:  # the first sheet shows at once; the others' sizes are read as their tabs are shown
                book.size(book.sheet_names[0])
            return book

        self._run(f"Opening {path.name}", work, lambda book: self._show(WorkbookView(book, self._run, self), book))

    def _open_docx(self, path: Path) -> None:
        def done(preview: WordPreview) -> None:
            view = OfficeView(self)
            view.show_word(preview)
            self._show(view)

        self._run(f"Opening {path.name}", lambda: read_word(path), done)

    def _open_pptx(self, path: Path) -> None:
        def done(preview: SlidesPreview) -> None:
            view = OfficeView(self)
            view.show_slides(preview)
            self._show(view)

        self._run(f"Opening {path.name}", lambda: read_slides(path), done)

    def _open_csv(self, path: Path) -> None:
        def done(table: CsvPreview) -> None:
            view = QTableView(self)
            view.setObjectName("previewTable")
            view.setModel(CsvModel(table, view))
            view.setWordWrap(False)
            fit_columns(view)
            self._show(view, table)
            generation = self._generation
            # the scan starts once the first screen is painted: it would slow that paint down
            QTimer.singleShot(
                SCAN_DELAY_MS, self, lambda: self._scan(table, view) if generation == self._generation else None
            )

        self._run(f"Opening {path.name}", lambda: CsvPreview(path), done)

    def _scan(self, table: CsvPreview, view: QTableView) -> None:
        """Index the rest of a CSV a chunk per job, adding the rows found after each."""

        def step(finished: bool) -> None:
            model = view.model()
            assert isinstance(model, CsvModel)
            model.grow()
            if finished:
                self.csv_indexed.emit(model.rows)
            else:
                self._run(f"Reading {table.path.name}", lambda: table.scan_more(chunk), step)

        chunk = self.scan_chunk
        step(table.done)

    def _open_markdown(self, path: Path) -> None:
        def done(result: Any) -> None:
            browser = QTextBrowser(self)
            browser.setObjectName("previewMarkdown")
            browser.setOpenExternalLinks(True)
            browser.setSearchPaths([str(path.parent)])
            browser.setMarkdown(
                result.text + ("\n\n*(only the start of the file is shown)*" if result.truncated else "")
            )
            self._show(browser)

        self._run(f"Opening {path.name}", lambda: read_text(path), done)

    def _open_text(self, path: Path) -> None:
        def done(result: Any) -> None:
            editor = QPlainTextEdit(self)
            editor.setObjectName("previewText")
            editor.setReadOnly(True)
            editor.setFont(
                QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
            )  # logs, code, fixed-width tables
            editor.setPlainText(result.text)
            self._show(editor)

        self._run(f"Opening {path.name}", lambda: read_text(path), done)

    def _open_image(self, path: Path) -> None:
        def work() -> QImage:
            image = QImage()  # QImage (unlike QPixmap) may be made off the UI thread
            if not image.loadFromData(read_image(path)):
                raise PreviewError(path, "is not an image that can be shown (damaged, or a format Qt cannot read)")
            return image

        def done(image: QImage) -> None:
            label = QLabel(self)
            label.setObjectName("previewImage")
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            pixmap = QPixmap.fromImage(image)
            if pixmap.width() > 1200:
                pixmap = pixmap.scaledToWidth(1200, Qt.TransformationMode.SmoothTransformation)
            label.setPixmap(pixmap)
            scroll = QScrollArea(self)
            scroll.setWidget(label)
            scroll.setWidgetResizable(True)
            self._show(scroll)

        self._run(f"Opening {path.name}", work, done)
