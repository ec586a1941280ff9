"""Single-key commands of the review views (P, F, N, S, J, K, E): taken from the view and from its
lists and tables, never from a field where the expert types (their name, a note)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QWidget

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
