"""Looking at the disk off the UI thread for the file and verdict watchers: a folder walk and a
hash per file run on a worker of their own (not the TaskRunner, which a long judging may hold), one
look at a time; a look asked for while one runs is made once it ends."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal, Slot

from studio.gui.base.workers import worker_pool


class _Signals(QObject):
    done = Signal(object, object)
    """(then, result)"""
    failed = Signal(object)
    """the exception"""


class _Look(QRunnable):
    def __init__(self, work: Callable[[], Any], then: Callable[[Any], object], signals: _Signals) -> None:
        super().__init__()
        self.work, self.then, self.signals = work, then, signals
        self.setAutoDelete(True)

    def run(self) -> None:  # on the worker thread
        try:
            result = self.work()
        except Exception as exc:  # noqa: BLE001 (a bug must reach the UI thread's crash report)
            self.signals.failed.emit(exc)
            return
        self.signals.done.emit(self.then, result)


class DiskScanner(QObject):
    """`look(work, then)`: `work()` on the worker, `then(result)` on the UI thread."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = worker_pool(self)
        self._busy = False
        self._next: tuple[Callable[[], Any], Callable[[Any], object]] | None = None
        self._stopped = False
        # Made on the UI thread and kept until their answer is in, so they are deleted there too.
        self._signals = _Signals()
        self._signals.done.connect(self._done)
        self._signals.failed.connect(self._failed)

    @property
    def busy(self) -> bool:
        return self._busy

    def look(self, work: Callable[[], Any], then: Callable[[Any], object]) -> None:
        if self._stopped:
            return
        if self._busy:
            self._next = (work, then)  # only the newest request counts: it is made once this look ends
            return
        self._busy = True
        self._pool.start(_Look(work, then, self._signals))

    @Slot(object, object)
    def _done(self, then: Callable[[Any], object], result: Any) -> None:
        self._end()
        if not self._stopped:
            then(result)

    @Slot(object)
    def _failed(self, error: BaseException) -> None:
        self._end()
        sys.excepthook(type(error), error, error.__traceback__)

    def _end(self) -> None:
        self._busy = False
        if self._next is not None and not self._stopped:
            work, then = self._next
            self._next = None
            self.look(work, then)

    def stop(self) -> None:
        """No more looks, and no answer of one under way."""
        self._stopped = True
        self._next = None

    def wait(self, msecs: int = -1) -> bool:
        return self._pool.waitForDone(msecs)
