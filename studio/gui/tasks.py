"""The one background helper for all long work (loading, review, git, import): the work runs on
a worker thread; its result or error comes back on the UI thread. An expected error (a
StudioError) is shown as a message by the caller; anything else is a crash, logged and reported."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from studio.errors import StudioError


class _Signals(QObject):
    done = Signal(object)
    failed = Signal(object, str)


class _Job(QRunnable):
    def __init__(self, work: Callable[[], Any], signals: _Signals) -> None:
        super().__init__()
        self.work = work
        self.signals = signals
        self.setAutoDelete(True)

    def run(self) -> None:  # on the worker thread
        try:
            result = self.work()
        except BaseException as exc:  # noqa: BLE001 (every failure must reach the UI thread)
            self.signals.failed.emit(exc, traceback.format_exc())
            return
        self.signals.done.emit(result)


@dataclass
class Task:
    """One piece of background work, as the UI sees it."""

    label: str
    signals: _Signals = field(default_factory=_Signals)
    finished: bool = False
    cancelled: bool = False

    def cancel(self) -> None:
        """Drop the result when it arrives (the work itself runs to its end)."""
        self.cancelled = True


class TaskRunner(QObject):
    """Runs work off the UI thread, one job at a time (the core is not written for concurrent
    edits), and reports busy state for a progress indicator."""

    busy_changed = Signal(bool, str)
    """(busy, label of the running task)."""
    crashed = Signal(str, str)
    """(task label, traceback) for an unexpected error."""
    crashed_with = Signal(str, object)
    """(task label, the exception) for an unexpected error, for the crash log; sent before `crashed`."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._running: list[Task] = []

    def run(self, label: str, work: Callable[[], Any], on_done: Callable[[Any], None],
            on_error: Callable[[StudioError], None] | None = None) -> Task:
        """Run `work()` in the background; `on_done(result)` or `on_error(error)` on the UI thread.
        An error that is not a StudioError goes to `crashed` (and `on_error` is not called)."""
        task = Task(label)
        self._running.append(task)

        @Slot(object)
        def done(result: Any) -> None:
            self._finish(task)
            if not task.cancelled:
                on_done(result)

        @Slot(object, str)
        def failed(error: BaseException, trace: str) -> None:
            self._finish(task)
            if task.cancelled:
                return
            if isinstance(error, StudioError) and on_error is not None:
                on_error(error)
            else:
                self.crashed_with.emit(label, error)
                self.crashed.emit(label, trace)

        task.signals.done.connect(done)
        task.signals.failed.connect(failed)
        self.busy_changed.emit(True, label)
        self.pool.start(_Job(work, task.signals))
        return task

    def _finish(self, task: Task) -> None:
        task.finished = True
        self._running.remove(task)
        self.busy_changed.emit(bool(self._running), self._running[-1].label if self._running else "")

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def wait(self, msecs: int = -1) -> bool:
        """Block until queued work is done (tests, closing the window)."""
        return self.pool.waitForDone(msecs)
