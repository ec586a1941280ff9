"""Background reads that fill a panel wait for the paint that shows what the window just got (an
opened project's explorer): started sooner, their imports (GitPython, the run records) compete
with that paint for the interpreter and the window is drawn later (bench/gui_bench.py, start-up)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

PAINT_WAIT_MS = 1000
"""The longest a call waits for the paint (a minimized window may not paint at all)."""


class AfterPaint(QObject):
    """Calls made once `widget` has painted next, or on the next turn of the event loop when it is
    not visible (a window never shown, as in tests)."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.widget = widget
        self._waiting: list[tuple[QObject, Callable[[], None]]] = []
        self._fallback = QTimer(self)
        self._fallback.setSingleShot(True)
        self._fallback.setInterval(PAINT_WAIT_MS)
        self._fallback.timeout.connect(self._painted)

    def call(self, receiver: QObject, then: Callable[[], None]) -> None:
        """Call `then` after the next paint, unless `receiver` is deleted by then."""
        self._waiting.append((receiver, then))
        if len(self._waiting) > 1:
            return  # already waiting
        if self.widget.isVisible():
            self.widget.installEventFilter(self)
            self._fallback.start()
        else:
            QTimer.singleShot(0, self, self._run)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget and event.type() == QEvent.Type.Paint:
            self._painted()
        return False

    def _painted(self) -> None:
        self.widget.removeEventFilter(self)
        self._fallback.stop()
        QTimer.singleShot(0, self, self._run)  # once this paint is done

    def _run(self) -> None:
        waiting, self._waiting = self._waiting, []
        for receiver, then in waiting:
            if isValid(receiver):
                then()
