"""Editors of the rubric table's cells: a weight spin box that skips 0 unless the criterion is a
gate, drop-downs that offer only the targets, dimensions and statuses a rubric accepts, and
pickers for `covers`, `requires`, `propagates` and `tests` that offer only ids valid in that place."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from studio.gui.rubric.model import COLUMNS, KEY_ROLE, LIST_FIELDS, SCOPE_ROLE, RubricModel
from studio.model.criterion_choices import cover_choices, propagates_choices, requires_choices, value_choices
from studio.model.weights import MAX_WEIGHT

Index = QModelIndex | QPersistentModelIndex


class WeightSpinBox(QSpinBox):
    """Steps through -10..10; 0 only for a gate (then 0 is all it takes): stepping jumps over 0.

    Typing is not clamped to that range: a spin box limited to it drops the key that leaves it
    (15 became 1 without a word), so what is typed reaches the model whole, and the model refuses
    it with the one weight rule's words (studio.model.weights)."""

    TYPED = 10 ** 6  # how far typing may go: far past the rule, so the rule, not the box, answers

    def __init__(self, gate: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gate = gate
        self.setRange(-self.TYPED, self.TYPED)
        self.setAccelerated(False)

    def stepBy(self, steps: int) -> None:  # noqa: N802 (Qt naming)
        if self.gate:
            self.setValue(0)
            return
        value = self.value() + steps
        if value == 0:
            value += 1 if steps > 0 else -1
        self.setValue(max(-MAX_WEIGHT, min(MAX_WEIGHT, value)))

    def validate(self, text: str, position: int) -> tuple[QValidator.State, str, int]:
        if not self.gate and text.strip() == "0":
            return QValidator.State.Intermediate, text, position  # 0 is no weight: keep typing
        return super().validate(text, position)


class IdPicker(QListWidget):
    """A checkable list of the valid ids; ids the criterion names that are not valid here are shown
    marked so that unticking them removes them."""

    def __init__(self, choices: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choices = choices
        self.setObjectName("rubricIdPicker")

    def set_chosen(self, chosen: list[str]) -> None:
        self.clear()
        for value in self.choices + [c for c in chosen if c not in self.choices]:
            item = QListWidgetItem(value if value in self.choices else f"{value} (not valid here)", self)
            item.setData(Qt.ItemDataRole.UserRole, value)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable)
            item.setCheckState(Qt.CheckState.Checked if value in chosen else Qt.CheckState.Unchecked)
        if self.count():
            self.setCurrentRow(0)

    def chosen(self) -> list[str]:
        return [self.item(n).data(Qt.ItemDataRole.UserRole) for n in range(self.count())
                if self.item(n).checkState() == Qt.CheckState.Checked]


class RubricDelegate(QStyledItemDelegate):
    """One delegate for the whole table, choosing the editor by column."""

    def __init__(self, model: RubricModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rubric = model

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:  # noqa: N802
        column = COLUMNS[index.column()]
        scope = index.data(SCOPE_ROLE)
        project = self.rubric.project
        if column == "weight":
            gate = index.model().index(index.row(), COLUMNS.index("gate")).data(Qt.ItemDataRole.CheckStateRole)
            editor: QWidget = WeightSpinBox(Qt.CheckState(gate) == Qt.CheckState.Checked, parent)
        elif column in ("target", "dimension", "status"):
            combo = QComboBox(parent)
            combo.addItems(value_choices(column, scope))
            editor = combo
        elif column in LIST_FIELDS:
            if column == "covers":
                choices = cover_choices(project, scope)
            elif column == "requires":
                choices = requires_choices(project, scope, index.data(KEY_ROLE))
            elif column == "tests":
                choices = [item.id for item in project.info.delivery.acceptance] if project.info else []
            else:
                choices = propagates_choices(project, scope)
            editor = IdPicker(choices, parent)
        else:
            line = QLineEdit(parent)
            if column == "reviewer":
                known = sorted({c.review.reviewer for _, c in project.all_criteria() if c.review.reviewer})
                line.setCompleter(QCompleter(known, line))
            editor = line
        editor.setObjectName(f"rubricEditor_{column}")
        return editor

    def setEditorData(self, editor: QWidget, index: Index) -> None:  # noqa: N802
        value: Any = index.data(Qt.ItemDataRole.EditRole)
        if isinstance(editor, WeightSpinBox):
            editor.setValue(int(value or 0))
        elif isinstance(editor, QComboBox):
            editor.setCurrentIndex(max(0, editor.findText(str(value or ""))))
        elif isinstance(editor, IdPicker):
            editor.set_chosen(list(value or []))
        elif isinstance(editor, QLineEdit):
            editor.setText("" if value is None else str(value))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:  # noqa: N802
        if isinstance(editor, WeightSpinBox):
            editor.interpretText()
            model.setData(index, editor.value())
        elif isinstance(editor, QComboBox):
            model.setData(index, editor.currentText())
        elif isinstance(editor, IdPicker):
            model.setData(index, editor.chosen())
        elif isinstance(editor, QLineEdit):
            model.setData(index, editor.text())

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: Index) -> None:  # noqa: N802
        rect = QRect(option.rect)
        if isinstance(editor, IdPicker):
            # A list of choices needs room: drop it below the cell, as wide as its longest id.
            rect.setHeight(min(220, 24 + 22 * max(1, len(editor.choices))))
            rect.setWidth(max(rect.width(), editor.sizeHintForColumn(0) + 40))
        editor.setGeometry(rect)
