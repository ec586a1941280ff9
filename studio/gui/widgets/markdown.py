"""A Markdown editor with a live preview beside it (Qt's own Markdown renderer, no extra
dependency). The text is saved as one undoable edit when the writer pauses (1 s) or leaves the
editor, never per keystroke."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFocusEvent, QFontDatabase, QHideEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from studio.editing.changes import Changes
from studio.editing.commands import Command
from studio.editing.documents import ProjectDocuments
from studio.errors import StudioError
from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.project_context import ProjectContext

PREVIEW_DELAY_MS = 250
SAVE_DELAY_MS = 1000


class _Source(QPlainTextEdit):
    def __init__(self, on_focus_out: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._on_focus_out = on_focus_out

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 (Qt naming)
        super().focusOutEvent(event)
        self._on_focus_out()


class MarkdownEditor(QWidget):
    """Edits one Markdown file of the project: `file_of(documents)` names it, `command_of(documents,
    text)` builds the edit that saves it (set_brief, set_instruction, set_text)."""

    def __init__(self, context: ProjectContext, file_of: Callable[[ProjectDocuments], str],
                 command_of: Callable[[ProjectDocuments, str], Command], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("markdownEditor")
        self.context = context
        self.file_of = file_of
        self.command_of = command_of
        self.source = _Source(self.commit, self)
        self.source.setObjectName("markdownSource")
        self.source.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.source.setTabChangesFocus(False)
        self.preview = QTextBrowser(self)
        self.preview.setObjectName("markdownPreview")
        self.preview.setOpenExternalLinks(True)
        self.caption = QLabel(self)
        self.caption.setObjectName("markdownFile")
        self.caption.setStyleSheet("QLabel { color: palette(mid); }")
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("QLabel { color: #a61b1b; }")
        self.error.hide()
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.source)
        splitter.addWidget(self.preview)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([500, 500])
        remember_splitter(splitter, "markdown/source-preview")
        self.word_button = QPushButton("From Word…", self)
        self.word_button.setObjectName("markdownFromWord")
        self.word_button.setAutoDefault(False)
        self.word_button.setToolTip("Replace this text by a Word document's (.docx): headings, lists and tables "
                                    "become Markdown; shown first, one undo step")
        self.word_button.clicked.connect(self.choose_word)
        top = QHBoxLayout()
        top.addWidget(self.caption, 1)
        top.addWidget(self.word_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 10)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.error)
        layout.addWidget(splitter, 1)
        self.preview_timer = QTimer(self, singleShot=True, interval=PREVIEW_DELAY_MS)
        self.preview_timer.timeout.connect(self.render_preview)
        self.save_timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS)
        self.save_timer.timeout.connect(self.commit)
        self.saved_text = ""
        self._shown_file: str | None = None
        self.source.textChanged.connect(self._typed)
        context.changed.connect(self._on_changed)
        context.reloaded.connect(self.load)
        self.load()

    def choose_word(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        from studio.gui.widgets.dialogs import file_dialog

        dialog = file_dialog(self, "wordFileDialog", "Bring in a Word document", "", QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter("Word document (*.docx)")
        dialog.fileSelected.connect(lambda chosen: self.import_word(Path(chosen)))
        dialog.open()

    def import_word(self, path: Path) -> WordImportDialog | None:
        """The Word file's Markdown shown first; Replace makes it this file's text as one undo step."""
        from studio.editing.word_import import word_to_markdown

        self.commit()  # what was typed is an undo step of its own, before the replacement
        try:
            markdown = word_to_markdown(path)
        except StudioError as error:
            self.error.setText(str(error))
            self.error.show()
            return None
        dialog = WordImportDialog(path, markdown, self)
        dialog.accepted.connect(lambda: self._replace(markdown, path))
        dialog.open()
        return dialog

    def _replace(self, markdown: str, path: Path) -> None:
        try:
            command = self.command_of(self.context.session.documents, markdown)
            if hasattr(command, "label"):
                command.label = f"Replace {self.file()} by {path.name}"
            self.context.push(command)
        except StudioError as error:
            self.error.setText(str(error))
            self.error.show()
            return
        self.error.hide()

    def file(self) -> str | None:
        try:
            return self.file_of(self.context.session.documents)
        except StudioError:
            return None

    def stored_text(self) -> str:
        """The file's text as the project has it now (unsaved edits included)."""
        rel = self.file()
        data = self.context.session.documents.read_bytes(rel) if rel else None
        return data.decode("utf-8", "replace") if data is not None else ""

    def load(self) -> None:
        rel = self.file()
        self._shown_file = rel
        self.caption.setText(f"{rel}  ·  Markdown, preview on the right" if rel else "")
        text = self.stored_text()
        self.saved_text = text
        if text != self.source.toPlainText():
            cursor = self.source.textCursor()
            position = cursor.position()
            self.source.blockSignals(True)
            self.source.setPlainText(text)
            self.source.blockSignals(False)
            cursor = self.source.textCursor()
            cursor.setPosition(min(position, len(text)))
            self.source.setTextCursor(cursor)
        self.render_preview()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 (Qt naming)
        # Leaving the tab, or closing it, before the pause timer fires must not lose the text.
        self.commit()
        super().hideEvent(event)

    def _typed(self) -> None:
        self.preview_timer.start()
        self.save_timer.start()

    def render_preview(self) -> None:
        self.preview_timer.stop()
        bar = self.preview.verticalScrollBar()
        where = bar.value()
        self.preview.setMarkdown(self.source.toPlainText())
        bar.setValue(where)

    def commit(self) -> None:
        """Save the text as one undoable edit, if it differs from what the project holds."""
        self.save_timer.stop()
        text = self.source.toPlainText()
        if text == self.saved_text:
            return
        try:
            command = self.command_of(self.context.session.documents, text)
            self.saved_text = text
            self.context.push(command)
        except StudioError as error:
            self.saved_text = self.stored_text()
            self.error.setText(str(error))
            self.error.show()
            return
        self.error.hide()

    def _on_changed(self, changes: Changes) -> None:
        rel = self.file()
        if rel is not None and rel in changes.files:
            self.load()
        elif rel != self._shown_file:
            self.load()  # the file was renamed (the instruction key changed)


class WordImportDialog(QDialog):
    """A Word document's Markdown (`wordImportDialog`): the text (`wordImportSource`) and how it reads
    (`wordImportPreview`) before Replace makes it the file's text."""

    def __init__(self, path: Path, markdown: str, parent: QWidget | None = None) -> None:
        from studio.gui.widgets.buttons import ok_cancel

        super().__init__(parent)
        self.setObjectName("wordImportDialog")
        self.setWindowTitle(f"Bring in {path.name}")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        note = QLabel(f"{path.name} as Markdown: Replace makes it the text (one undo step).", self)
        source = QPlainTextEdit(markdown, self)
        source.setObjectName("wordImportSource")
        source.setReadOnly(True)
        source.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        preview = QTextBrowser(self)
        preview.setObjectName("wordImportPreview")
        preview.setMarkdown(markdown)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(source)
        split.addWidget(preview)
        self.buttons = ok_cancel(self, "&Replace", "wordImportReplace")
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(split, 1)
        layout.addWidget(self.buttons)
        self.resize(1000, 560)
        source.setFocus()
