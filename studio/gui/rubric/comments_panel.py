"""The comment threads on the selected criterion, beside the rubric table: each message in order under
its thread, a text box to open a thread or reply, and resolve/reopen. Writes go through the project
context (ProjectContext.comment), which writes the thread's file through the core."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.project_context import ProjectContext
from studio.model import CommentThread

Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Thread", "Author", "When", "Message")
THREAD_ROLE = Qt.ItemDataRole.UserRole + 1


class CommentsModel(QAbstractTableModel):
    """One row per message of the threads on one subtask or criterion, oldest thread first."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[CommentThread, int]] = []

    def show(self, threads: list[CommentThread]) -> None:
        self.beginResetModel()
        try:
            self._rows = [(thread, number) for thread in threads for number in range(len(thread.messages))]
        finally:
            self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        thread, number = self._rows[index.row()]
        if role == THREAD_ROLE:
            return thread.id
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        message = thread.messages[number]
        if index.column() == 0:
            if number:
                return "  reply"
            return f"{thread.id} ({'resolved by ' + str(thread.resolved_by) if thread.resolved else 'open'})"
        if index.column() == 1:
            return message.author
        if index.column() == 2:
            return f"{message.at:%Y-%m-%d %H:%M}"
        return message.text

    def thread_at(self, row: int) -> CommentThread | None:
        return self._rows[row][0] if 0 <= row < len(self._rows) else None


class CommentsPanel(QWidget):
    """The threads on one subtask or criterion (`show_target`), with open, reply, resolve and reopen."""

    def __init__(self, context: ProjectContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("commentsPanel")
        self.context = context
        self.target: str | None = None
        self.model = CommentsModel(self)
        self.title = QLabel("Comments", self)
        self.title.setObjectName("commentsTitle")
        self.table = QTableView(self)
        self.table.setObjectName("commentThreads")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.text = QLineEdit(self)
        self.text.setObjectName("commentText")
        self.text.setPlaceholderText("A question or an answer")
        self.add_button = self._button("commentAdd", "New thread", lambda: self._act("add"))
        self.reply_button = self._button("commentReply", "Reply", lambda: self._act("reply"))
        self.resolve_button = self._button("commentResolve", "Resolve", self._toggle_resolved)
        self.message = QLabel(self)
        self.message.setObjectName("commentsMessage")
        self.message.setWordWrap(True)
        buttons = QHBoxLayout()
        for button in (self.add_button, self.reply_button, self.resolve_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        context.comments_changed.connect(self._refresh_if_shown)
        context.reloaded.connect(self.refresh)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        self.text.textChanged.connect(self._update_buttons)
        self.show_target(None)

    def _button(self, name: str, text: str, slot: Any) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.clicked.connect(slot)
        return button

    def show_target(self, target: str | None) -> None:
        """Show the threads on subtask or criterion `target` (None: nothing selected)."""
        self.target = target
        self.title.setText(f"Comments on {target}" if target else "Comments (select a criterion)")
        self.refresh()

    def refresh(self) -> None:
        comments = self.context.session.loaded.project.comments.values()
        threads = sorted((t for t in comments if t.target == self.target), key=lambda t: (t.opened_at, t.id))
        self.model.show(threads)
        self._update_buttons()

    def _refresh_if_shown(self, target: str) -> None:
        if target == self.target:
            self.refresh()

    def selected_thread(self) -> CommentThread | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.thread_at(rows[0].row()) if rows else None

    def _update_buttons(self, *_: object) -> None:
        thread = self.selected_thread()
        has_text = bool(self.text.text().strip())
        self.add_button.setEnabled(self.target is not None and has_text)
        self.reply_button.setEnabled(thread is not None and has_text)
        self.resolve_button.setEnabled(thread is not None)
        self.resolve_button.setText("Reopen" if thread is not None and thread.resolved else "Resolve")

    def _act(self, action: str) -> None:
        thread = self.selected_thread()
        key = self.target if action == "add" else (thread.id if thread else None)
        if key is None:
            return
        self._done(action, key, self.text.text())

    def _toggle_resolved(self) -> None:
        thread = self.selected_thread()
        if thread is not None:
            self._done("reopen" if thread.resolved else "resolve", thread.id)

    def _done(self, action: str, key: str, text: str = "") -> None:
        try:
            thread = self.context.comment(action, key, text)
        except StudioError as exc:
            self.message.setText(str(exc))
            return
        self.message.setText(f"{thread.id}: written to comments/{thread.id}.yaml (commit to record it)")
        if action in ("add", "reply"):
            self.text.clear()
        self._select(thread.id)

    def _select(self, thread_id: str) -> None:
        for row in range(self.model.rowCount()):
            index = self.model.index(row, 0)
            if index.data(THREAD_ROLE) == thread_id:
                self.table.selectRow(row)
                return
