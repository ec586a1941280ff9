"""The column mapping (`columnMappingDialog`) for a rubric workbook of the expert's own layout: the sheet
that holds the criteria, which of its columns holds each criterion field (guessed from the headers, or as
remembered for this layout), a value for fields no column holds, and the expert's words for ours in the
choice fields (docs/cli.md, "A workbook of the expert's own layout"). OK reads the workbook through it and
shows the usual import diff; the mapping is remembered once a workbook reads without a bad cell."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from studio.sheets.mapping import FIELD_NAMES, ColumnMapping, guess_mapping

NO_COLUMN = "(no column)"
WORD_FIELDS = ("rubric", "target", "dimension", "review.status")


class ColumnMappingDialog(QDialog):
    def __init__(self, workbook: Path, sheets: dict[str, list[str]], remembered: ColumnMapping | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("columnMappingDialog")
        self.setWindowTitle(f"Map the columns of {workbook.name}")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.sheets = sheets
        note = QLabel("This workbook is not a sheet of Export Rubrics. Say which column holds what; rows become "
                      "new draft criteria (an id column changes the criteria it names), and nothing is removed.", self)
        note.setWordWrap(True)
        self.sheet_box = QComboBox(self)
        self.sheet_box.setObjectName("columnMappingSheet")
        self.sheet_box.addItems(list(sheets))
        self.columns: dict[str, QComboBox] = {}
        self.values: dict[str, QLineEdit] = {}
        self.words: dict[str, QLineEdit] = {}
        form = QFormLayout()
        form.addRow("&Sheet:", self.sheet_box)
        legend = QHBoxLayout()
        for text, stretch in (("Its column", 2), ("or a value for every row", 2), ("its words for ours", 3)):
            label = QLabel(f"<i>{text}</i>", self)
            legend.addWidget(label, stretch)
        form.addRow("", legend)
        for name, words in FIELD_NAMES.items():
            row = QHBoxLayout()
            column = QComboBox(self)
            column.setObjectName(f"columnFor_{name}")
            value = QLineEdit(self)
            value.setObjectName(f"valueFor_{name}")
            value.setPlaceholderText("value for every row")
            row.addWidget(column, 2)
            row.addWidget(value, 2)
            if name in WORD_FIELDS:
                word = QLineEdit(self)
                word.setObjectName(f"wordsFor_{name}")
                word.setPlaceholderText("Accuracy=correctness; ...")
                row.addWidget(word, 3)
                self.words[name] = word
            self.columns[name], self.values[name] = column, value
            column.currentTextChanged.connect(lambda text, edit=value: edit.setEnabled(text == NO_COLUMN))
            form.addRow(f"{words}:", row)
        self.message = QLabel(self)
        self.message.setObjectName("columnMappingMessage")
        self.message.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        if ok is not None and cancel is not None:
            ok.setText("&Read the workbook")
            ok.setDefault(True)
            cancel.setAutoDefault(False)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.resize(820, self.sizeHint().height())
        self.sheet_box.currentTextChanged.connect(lambda _: self._fill(None))
        if remembered is not None and remembered.sheet in sheets:
            self.sheet_box.setCurrentText(remembered.sheet)
        self._fill(remembered)
        self.sheet_box.setFocus()

    def _fill(self, mapping: ColumnMapping | None) -> None:
        sheet = self.sheet_box.currentText()
        headers = self.sheets.get(sheet, [])
        chosen = mapping if mapping is not None and mapping.sheet == sheet else guess_mapping(sheet, headers)
        for name, box in self.columns.items():
            box.blockSignals(True)
            box.clear()
            box.addItems([NO_COLUMN, *headers])
            box.setCurrentText(chosen.columns.get(name, NO_COLUMN))
            box.blockSignals(False)
            self.values[name].setEnabled(box.currentText() == NO_COLUMN)
            self.values[name].setText(chosen.values.get(name, ""))
        for name, edit in self.words.items():
            edit.setText("; ".join(f"{a}={b}" for a, b in chosen.words.get(name, {}).items()))

    def mapping(self) -> ColumnMapping:
        columns = {name: box.currentText() for name, box in self.columns.items() if box.currentText() != NO_COLUMN}
        values = {name: edit.text().strip() for name, edit in self.values.items()
                  if name not in columns and edit.text().strip()}
        words: dict[str, dict[str, str]] = {}
        for name, edit in self.words.items():
            for pair in edit.text().split(";"):
                theirs, sep, ours = pair.partition("=")
                if sep and theirs.strip() and ours.strip():
                    words.setdefault(name, {})[theirs.strip()] = ours.strip()
        return ColumnMapping(self.sheet_box.currentText(), columns, values, words)

    def _accept(self) -> None:
        from studio.errors import StudioError

        try:
            self.mapping().check()
        except StudioError as error:
            self.message.setText(str(error))
            return
        self.accept()
