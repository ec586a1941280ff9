"""Every worker thread of the app comes from `worker_pool`: before the first one starts, Python's
cyclic garbage collection moves onto the UI thread (studio.collector explains why: a cycle holding a
Qt object freed on a worker corrupts Qt's heap)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication, QObject, QThread, QThreadPool, QTimer
from shiboken6 import isValid

from studio.collector import collector

COLLECT_EVERY_MS = 250
"""How often the UI thread makes the collections Python would have made (each is skipped unless due)."""
SWITCH_INTERVAL_S = 0.001
"""How long a worker may hold the interpreter while the UI thread waits for it (Python's default is
5 ms). The UI calls into Python for every cell it paints; with a worker busy (matplotlib drawing,
a review) each of those calls waited up to the interval, and a table of a few thousand cells took
seconds to appear."""


class _UiThreadCollection(QObject):
    """The timer that collects on the UI thread, one per application."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.setObjectName("uiThreadCollection")
        self.timer = QTimer(self)
        self.timer.setInterval(COLLECT_EVERY_MS)
        self.timer.timeout.connect(collector.collect_if_due)
        self.timer.start()


def collect_on_ui_thread() -> None:
    """Take the collector over for the UI thread (idempotent; needs the application to exist)."""
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() is not app.thread():
        raise RuntimeError("worker pools are made on the UI thread, after the application")
    global _collection
    if _collection is None or not isValid(_collection):  # none yet, or gone with an earlier application
        _collection = _UiThreadCollection(app)
    collector.take_over()
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))


_collection: _UiThreadCollection | None = None


def worker_pool(parent: QObject, threads: int = 1) -> QThreadPool:
    """A thread pool for background work, with garbage collection kept on the UI thread."""
    collect_on_ui_thread()
    pool = QThreadPool(parent)
    pool.setMaxThreadCount(threads)
    return pool
