"""In the window: a handoff opened from the explorer is edited in its dialog (prefilled, changed in place,
one undo step); Add Handoff proposes a later subtask, never T01 -> T01; a material's file is replaced from
its form (Replace…), keeping its id and release."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QLineEdit, QWidget

from studio.gui.widgets.dialogs import HandoffDialog
from tests.gui.shell_support import open_window, sample_copy

FIRST = "T01:outputs/net_debt_baseline.xlsx>T02"


def _ok(dialog) -> None:
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()


def test_add_handoff_proposes_a_later_subtask(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    window.findChild(QAction, "actionAddHandoff").trigger()
    dialog = window.findChild(HandoffDialog, "handoffDialog")
    assert dialog.windowTitle() == "Add handoff"
    assert (dialog.source_box.currentText(), dialog.to_box.currentText()) == (
        "T01:outputs/earnings_quality_note.md", "T02")
    dialog.source_box.setCurrentText("T06:outputs/financing_model.xlsx")
    assert dialog.to_box.currentText() == "T07"  # follows the output until the user picks
    dialog.to_box.setCurrentText("T06")
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()  # never to itself
    dialog.reject()


def test_a_handoff_is_edited_in_place_from_the_explorer(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    documents = window.context.session.documents
    before = documents.read_bytes("dependencies.yaml")
    assert window.select_in_explorer("handoff", FIRST)
    assert window.findChild(QAction, "actionEditHandoff").isEnabled()
    window.explorer.setFocus()
    QTest.keyClick(window.explorer, Qt.Key.Key_Return)  # opening a handoff opens its dialog
    dialog = window.findChild(HandoffDialog, "handoffDialog")
    assert dialog is not None and dialog.isVisible() and dialog.windowTitle() == "Edit handoff"
    assert (dialog.source_box.currentText(), dialog.to_box.currentText()) == ("T01:outputs/net_debt_baseline.xlsx",
                                                                               "T02")
    assert "46.5m" in dialog.carries_edit.text()
    dialog.carries_edit.setText("The lease balance only.")
    _ok(dialog)
    handoffs = window.context.session.loaded.project.dependencies.handoffs
    assert (handoffs[0].artifact, handoffs[0].to, handoffs[0].carries) == (
        "T01:outputs/net_debt_baseline.xlsx", "T02", "The lease balance only.")
    assert window.current_object() == ("handoff", FIRST)
    window.findChild(QAction, "actionUndo").trigger()
    assert documents.read_bytes("dependencies.yaml") == before


def test_replace_a_materials_file_from_its_form(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    window.open_object("material", "M13")
    editor = window.findChild(QWidget, "materialEditor")
    new = tmp_path / "curve-v2.csv"
    new.write_text("date,rate\n2026-06-30,2.05\n", encoding="utf-8")
    editor.findChild(QWidget, "materialReplace").click()
    picker = editor.findChild(QFileDialog, "replaceMaterialFileDialog")
    assert picker is not None and picker.isVisible()
    name = picker.findChild(QLineEdit, "fileNameEdit")
    name.setText(str(new))
    QTest.keyClick(name, Qt.Key.Key_Return)
    documents = window.context.session.documents
    qtbot.waitUntil(lambda: documents.read_bytes("materials/euribor-3m-forward-curve.csv") == new.read_bytes(),
                    timeout=5000)
    material = window.context.session.loaded.project.material("M13")
    assert material.release.subtask == "T06" and material.file == "euribor-3m-forward-curve.csv"
    window.findChild(QAction, "actionUndo").trigger()
    assert documents.read_bytes("materials/euribor-3m-forward-curve.csv") != new.read_bytes()
