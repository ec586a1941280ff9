"""A chart in the app: the PNG that studio.judging.charts or studio.agreement.plot drew, shown
scaled to the space it has, and saved as it is by "Export PNG…".

Why an image and not matplotlib's Qt canvas (backend_qtagg): the chart is drawn on the
TaskRunner's worker thread, so a bootstrap or a large store never freezes the window; the bytes
shown are exactly those exported and those `dbstudio score --trajectory` writes; and the window's
start-up imports no matplotlib (tests/gui/test_startup_imports.py).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import QFileDialog, QLabel, QSizePolicy, QWidget

from studio.errors import StudioError
from studio.store.atomic import ExportError, write_export

PNG_FILTER = "PNG image (*.png)"


# The export's one writer lives in the store; the views that export import it from here.
ChartExportError = ExportError
save_to = write_export


class ChartView(QLabel):
    def __init__(self, name: str, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.setMinimumSize(240, 160)
        self.setStyleSheet("background: white;")
        self.setWordWrap(True)
        self.png: bytes | None = None
        self._pixmap = QPixmap()
        self.show_text(placeholder)

    def show_text(self, text: str) -> None:
        """A message where the chart goes (nothing to draw, or why not)."""
        self.png = None
        self._pixmap = QPixmap()
        self.clear()
        self.setText(text)

    def set_png(self, data: bytes) -> None:
        self.png = data
        self._pixmap = QPixmap()
        self._pixmap.loadFromData(data, "PNG")
        self.setText("")
        self._rescale()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return QSize(900, 560)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self._rescale()

    def _rescale(self) -> None:
        if self._pixmap.isNull():
            return
        # Never larger than drawn: an enlarged raster only blurs.
        size = self._pixmap.size().scaled(self.contentsRect().size(), Qt.AspectRatioMode.KeepAspectRatio)
        if size.width() > self._pixmap.width():
            size = self._pixmap.size()
        self.setPixmap(self._pixmap.scaled(size, Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation))


def export_png(parent: QWidget, chart: ChartView, suggested: str, status: QLabel) -> None:
    """Ask where to save the chart's PNG (the very bytes shown), write it, and say in `status` where it
    went or why it could not be written."""
    if chart.png is None:
        return
    try:
        written = save_bytes(parent, chart.png, suggested, PNG_FILTER)
    except StudioError as error:
        status.setText(str(error))
        return
    if written is not None:
        status.setText(f"Chart written to {written}")


def save_bytes(parent: QWidget, data: bytes, suggested: str, filters: str) -> Path | None:
    """Ask where to save `data` and write it there (atomically); None when the user cancels."""
    name, _ = QFileDialog.getSaveFileName(parent, "Export", suggested, filters)
    return save_to(Path(name), data) if name else None
