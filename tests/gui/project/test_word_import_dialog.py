"""From Word… in a subtask's instruction: the .docx shown as Markdown first, Replace makes it the
instruction in one undo step."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPlainTextEdit, QTextBrowser, QWidget

from studio.gui.widgets.markdown import MarkdownEditor, WordImportDialog
from tests.editing.test_word_import import word_file
from tests.gui.shell_support import open_window, sample_copy


def test_an_instruction_from_word_is_previewed_then_replaced(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    window.open_object("subtask", "T02")
    editor = window.findChild(QWidget, "subtaskEditor").findChild(MarkdownEditor, "markdownEditor")
    assert editor.findChild(QWidget, "markdownFromWord") is not None
    documents = window.context.session.documents
    before = documents.read_bytes("subtasks/T02/instruction.md")
    dialog = editor.import_word(word_file(tmp_path / "instruction.docx"))
    assert isinstance(dialog, WordImportDialog)
    source = dialog.findChild(QPlainTextEdit, "wordImportSource").toPlainText()
    assert source.startswith("# Fleet and permit diligence") and "| Condition 7 | 30 June 2026 |" in source
    assert "Fleet and permit diligence" in dialog.findChild(QTextBrowser, "wordImportPreview").toPlainText()
    assert documents.read_bytes("subtasks/T02/instruction.md") == before  # nothing yet
    dialog.accept()
    assert documents.read_bytes("subtasks/T02/instruction.md").decode().startswith("# Fleet and permit diligence")
    qtbot.waitUntil(lambda: editor.source.toPlainText().startswith("# Fleet"), timeout=5000)
    window.findChild(QAction, "actionUndo").trigger()
    assert documents.read_bytes("subtasks/T02/instruction.md") == before


def test_a_file_that_is_no_word_document_is_said_above_the_text(qtbot, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    window.open_object("subtask", "T02")
    editor = window.findChild(QWidget, "subtaskEditor").findChild(MarkdownEditor, "markdownEditor")
    bad = tmp_path / "notes.docx"
    bad.write_text("renamed text", encoding="utf-8")
    assert editor.import_word(bad) is None
    assert "is not a Word document" in editor.error.text() and not editor.error.isHidden()
