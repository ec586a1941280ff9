"""The explorer's tree view: files dropped on it are imported as materials (released before the
subtask they were dropped on)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QAbstractItemView, QTreeView, QWidget

from studio.gui.project.explorer_model import ID_ROLE, KIND_ROLE, ExplorerModel


def local_files(mime: QMimeData | None) -> list[Path]:
    """The local files (not folders) a drag carries."""
    if mime is None or not mime.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile() and Path(url.toLocalFile()).is_file()]


class ExplorerView(QTreeView):
    files_dropped = Signal(list, object)
    """(files, subtask id or None): files dropped on the explorer, and the subtask under them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setUniformRowHeights(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt naming)
        if local_files(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:  # noqa: N802 (Qt naming)
        if local_files(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt naming)
        files = local_files(event.mimeData())
        if not files:
            event.ignore()
            return
        event.acceptProposedAction()
        index = self.indexAt(event.position().toPoint())
        before = None
        if index.isValid() and index.data(KIND_ROLE) in ("subtask", "release"):
            value = str(index.data(ID_ROLE))
            before = value.split(":", 1)[1] if value.startswith("before:") else (
                None if value == "start" else value)
        self.files_dropped.emit(files, before)

    def current_object(self) -> tuple[str, str] | None:
        """(kind, id) of the current row, None when no row is current."""
        index = self.currentIndex()
        if not index.isValid():
            return None
        index = index.siblingAtColumn(0)
        return index.data(KIND_ROLE), index.data(ID_ROLE)

    def select(self, kind: str, object_id: str) -> bool:
        """Make the row (kind, id) current and scroll to it; False when the project has no such row."""
        model = self.model()
        index = model.find(kind, object_id) if isinstance(model, ExplorerModel) else None
        if index is None or not index.isValid():
            return False
        self.setCurrentIndex(index)
        self.scrollTo(index)
        return True
