"""Small input widgets the forms share: a multi-line field that finishes on focus out, a checkable
list of ids, a list of text items with add/remove, and a table of rows with add/remove."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFocusEvent, QFontMetrics, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QStyledItemDelegate,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

ID_ROLE = Qt.ItemDataRole.UserRole
TEXT_ROLE = Qt.ItemDataRole.UserRole + 1  # an item's text without the id shown before it
TICKED_ROLE = Qt.ItemDataRole.UserRole + 2  # whether a checkable item was ticked when last shown
VISIBLE_ROWS = 12


class FieldText(QPlainTextEdit):
    """A few lines of plain text (an objective, a scope) that commit once, when the edit is done:
    on focus out, or Ctrl+Enter. Plain Enter makes a new line as in a word processor."""

    editingFinished = Signal()  # noqa: N815 (the name QLineEdit uses)

    def __init__(self, lines: int = 3, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        height = QFontMetrics(self.font()).lineSpacing() * lines + 2 * self.frameWidth() + 8
        self.setFixedHeight(height)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 (Qt naming)
        super().focusOutEvent(event)
        self.editingFinished.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt naming)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.editingFinished.emit()
            return
        super().keyPressEvent(event)

    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:  # noqa: N802 (the name QLineEdit uses)
        """Replace the text, keeping the cursor where it was (clamped to the new length)."""
        if text == self.toPlainText():
            return
        cursor = self.textCursor()
        position = cursor.position()
        self.setPlainText(text)
        cursor = self.textCursor()
        cursor.setPosition(min(position, len(text)))
        self.setTextCursor(cursor)


class CheckList(QListWidget):
    """Checkable items keyed by id; `toggled(id, checked)` when the user ticks one."""

    toggled = Signal(str, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setUniformItemSizes(True)
        self._filling = False
        self.itemChanged.connect(self._changed)

    def set_items(self, items: Sequence[tuple[str, str, bool, str]]) -> None:
        """(id, label, checked, tooltip) in display order; unchanged items are left alone."""
        self._filling = True
        try:
            current = [self.item(row).data(ID_ROLE) for row in range(self.count())]
            if current != [item[0] for item in items]:
                self.clear()
                for key, label, _checked, _tip in items:
                    entry = QListWidgetItem(label)
                    entry.setData(ID_ROLE, key)
                    entry.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                                   | Qt.ItemFlag.ItemIsUserCheckable)
                    entry.setCheckState(Qt.CheckState.Unchecked)  # shows the box from the start
                    self.addItem(entry)
            for row, (_key, label, checked, tip) in enumerate(items):
                entry = self.item(row)
                entry.setText(label)
                entry.setToolTip(tip)
                state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
                if entry.checkState() != state:
                    entry.setCheckState(state)
        finally:
            self._filling = False
        self._fit()

    def _fit(self) -> None:
        """Tall enough for every item, up to VISIBLE_ROWS; a longer list scrolls."""
        row = self.sizeHintForRow(0) if self.count() else self.fontMetrics().height() + 4
        rows = min(max(self.count(), 3), VISIBLE_ROWS)
        self.setFixedHeight(rows * row + 2 * self.frameWidth() + 4)

    def ids(self) -> list[str]:
        return [self.item(row).data(ID_ROLE) for row in range(self.count())]

    def checked(self) -> list[str]:
        return [self.item(row).data(ID_ROLE) for row in range(self.count())
                if self.item(row).checkState() == Qt.CheckState.Checked]

    def _changed(self, item: QListWidgetItem) -> None:
        if not self._filling:
            self.toggled.emit(item.data(ID_ROLE), item.checkState() == Qt.CheckState.Checked)


def _buttons(owner: QWidget, *labels: str) -> tuple[QHBoxLayout, list[QPushButton]]:
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    buttons = []
    for label in labels:
        button = QPushButton(label, owner)
        button.setAutoDefault(False)
        row.addWidget(button)
        buttons.append(button)
    row.addStretch(1)
    return row, buttons


class _LabelledTextDelegate(QStyledItemDelegate):
    """Edits an item's text without the id label shown before it ("AC2 — text" edits as "text")."""

    def setEditorData(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        if isinstance(editor, QLineEdit):
            editor.setText(str(index.data(TEXT_ROLE) or ""))
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel,  # noqa: N802
                     index: QModelIndex | QPersistentModelIndex) -> None:
        if isinstance(editor, QLineEdit):
            # Only the text: the list shows the new "id — text" when the edit comes back from the project.
            model.setData(index, editor.text(), TEXT_ROLE)
        else:
            super().setModelData(editor, model, index)


class TextItems(QWidget):
    """A list of one-paragraph texts (acceptance requirements) edited in place, with Add / Remove;
    each may be shown after an id label that editing leaves alone, and with a tick box.
    Signals carry the row: `edited(row, text)`, `toggled(row, ticked)`, `added(row)`, `removed(row)`."""

    edited = Signal(int, str)
    toggled = Signal(int, bool)
    added = Signal(int)
    removed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget(self)
        self.list.setWordWrap(True)
        self.list.setSpacing(2)
        self.list.setAlternatingRowColors(True)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setMinimumHeight(140)
        self.list.setItemDelegate(_LabelledTextDelegate(self.list))
        row, (self.add_button, self.remove_button) = _buttons(self, "Add", "Remove")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        layout.addLayout(row)
        self._filling = False
        self.list.itemChanged.connect(self._changed)
        self.add_button.clicked.connect(lambda: self.added.emit(self.list.count()))
        self.remove_button.clicked.connect(self._remove)

    def set_texts(self, texts: Sequence[str], labels: Sequence[str] | None = None,
                  ticked: Sequence[bool] | None = None) -> None:
        """Show `texts`, each after its label (an id) when `labels` are given, with a tick box
        when `ticked` is given."""
        self._filling = True
        try:
            while self.list.count() > len(texts):
                self.list.takeItem(self.list.count() - 1)
            for row, text in enumerate(texts):
                label = labels[row] if labels is not None and row < len(labels) else ""
                shown = f"{label} — {text}" if label else text
                item = self.list.item(row)
                if item is None:
                    item = QListWidgetItem(shown)
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                    self.list.addItem(item)
                elif item.text() != shown:
                    item.setText(shown)
                item.setData(TEXT_ROLE, text)
                item.setData(ID_ROLE, label)
                if ticked is not None:
                    on = row < len(ticked) and ticked[row]
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
                    item.setData(TICKED_ROLE, on)
        finally:
            self._filling = False
        self.remove_button.setEnabled(self.list.count() > 0)

    def text(self, row: int) -> str:
        """Row `row`'s text, without its label."""
        item = self.list.item(row)
        return str(item.data(TEXT_ROLE) or "") if item is not None else ""

    def _changed(self, item: QListWidgetItem) -> None:
        if self._filling:
            return
        ticked = item.data(TICKED_ROLE)
        if ticked is not None and (item.checkState() == Qt.CheckState.Checked) != ticked:
            self.toggled.emit(self.list.row(item), not ticked)
            return
        self.edited.emit(self.list.row(item), str(item.data(TEXT_ROLE) or ""))

    def _remove(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.removed.emit(row)


class RowTable(QWidget):
    """Rows of short text cells (outputs, deliverables) edited in place, with Add / Remove.
    Signals: `edited(row, column, text)`, `added()`, `removed(row)`."""

    edited = Signal(int, int, str)
    added = Signal()
    removed = Signal(int)

    def __init__(self, headers: Sequence[str], read_only: Sequence[int] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.read_only = set(read_only)
        self.table = QTableWidget(0, len(headers), self)
        self.table.setHorizontalHeaderLabels(list(headers))
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        row, (self.add_button, self.remove_button) = _buttons(self, "Add", "Remove")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(row)
        self._filling = False
        self.table.itemChanged.connect(self._changed)
        self.add_button.clicked.connect(self.added.emit)
        self.remove_button.clicked.connect(self._remove)

    def set_rows(self, rows: Sequence[Sequence[str]]) -> None:
        self._filling = True
        try:
            self.table.setRowCount(len(rows))
            for r, values in enumerate(rows):
                for c, value in enumerate(values):
                    item = self.table.item(r, c)
                    if item is None:
                        item = QTableWidgetItem(value)
                        if c in self.read_only:
                            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                        self.table.setItem(r, c, item)
                    elif item.text() != value:
                        item.setText(value)
        finally:
            self._filling = False
        self.remove_button.setEnabled(self.table.rowCount() > 0)
        self._fit()

    def _fit(self) -> None:
        """Tall enough for every row, up to VISIBLE_ROWS; a longer table scrolls."""
        header = self.table.horizontalHeader().sizeHint().height()
        row = self.table.verticalHeader().defaultSectionSize()
        rows = min(max(self.table.rowCount(), 2), VISIBLE_ROWS)
        # Fixed, like CheckList: a short table does not swell into an empty box when the form has room.
        self.table.setFixedHeight(header + rows * row + 2 * self.table.frameWidth() + 2)

    def fit_columns(self, widths: Sequence[int]) -> None:
        for column, width in enumerate(widths):
            self.table.setColumnWidth(column, width)

    def _changed(self, item: QTableWidgetItem) -> None:
        if not self._filling:
            self.edited.emit(item.row(), item.column(), item.text())

    def _remove(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.removed.emit(row)
