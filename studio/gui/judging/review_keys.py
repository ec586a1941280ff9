"""Single-key commands of the review views (P, F, N, S, J, K, E): taken from the view and from its
lists and tables, never from a field where the expert types (their name, a note)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QLabel, QLineEdit, QWidget

if TYPE_CHECKING:
    from studio.judging.queue import Decision
    from studio.judging.verdicts import Verdict

PLAIN = (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)


class KeyRouter(QObject):
    """Calls the command of a plain key pressed on the watched widgets; other keys go on as usual."""

    def __init__(self, commands: dict[Qt.Key, Callable[[], None]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.commands = commands

    def watch(self, *widgets: QWidget) -> None:
        for widget in widgets:
            widget.installEventFilter(self)
            if isinstance(widget, QAbstractItemView):
                widget.viewport().installEventFilter(self)

    def handle(self, event: QKeyEvent) -> bool:
        if event.modifiers() not in PLAIN:
            return False
        command = self.commands.get(Qt.Key(event.key()))
        if command is None:
            return False
        command()
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt naming)
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if event.modifiers() in PLAIN and Qt.Key(event.key()) in self.commands:
                event.accept()  # ours, not a window shortcut's
                return True
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self.handle(event)
        return False


class DecisionPane(QWidget):
    """What the review and the adjudication share around one decision at a time: E opens the note
    editor on the rater's own verdict (the expert's, or the settled one), Enter stores the note with
    that verdict or keeps it for the next one given, Esc closes the editor. A subclass names its own
    verdict, how a note is recorded, and the words of its messages."""

    PENDING_TEXT = ""  # the note waits for a verdict
    STORED_TEXT = ""  # the note was stored; formatted with {criterion}

    current: Decision | None
    keys: KeyRouter
    note_editor: QLineEdit
    status: QLabel
    _pending_note: str | None

    def own_verdict(self, decision: Decision) -> Verdict | None:
        raise NotImplementedError

    def record_note(self, decision: Decision, value: str, note: str) -> tuple[Verdict | None, str]:
        raise NotImplementedError

    def show_detail(self) -> None:
        """Show the current decision again (the pending note with it)."""

    def edit_note(self) -> None:
        """E: the note editor; Enter saves the note with the verdict (or with the next one given)."""
        if self.current is None:
            return
        own = self.own_verdict(self.current)
        self.note_editor.setText(self._pending_note or (own.note if own is not None and own.note else ""))
        self.note_editor.show()
        self.note_editor.setFocus()
        self.note_editor.selectAll()

    def save_note(self) -> None:
        decision = self.current
        text = self.note_editor.text().strip()
        self.note_editor.hide()
        self.setFocus()
        if decision is None:
            return
        own = self.own_verdict(decision)
        if own is None:
            self._pending_note = text or None
            self.status.setText(self.PENDING_TEXT)
            self.show_detail()
            return
        _verdict, problem = self.record_note(decision, own.verdict, text)
        self.status.setText(problem or self.STORED_TEXT.format(criterion=decision.criterion.id))

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt naming)
        if event.key() == Qt.Key.Key_Escape and self.note_editor.isVisible():
            self.note_editor.hide()
            self.setFocus()
            return
        if not self.keys.handle(event):
            super().keyPressEvent(event)
