"""The one background helper for all long work (loading, review, git, import, judging): the work runs
on a worker thread; its result or error comes back on the UI thread. An expected error (a
StudioError) is shown as a message by the caller; anything else is a crash, logged and reported.
Work started with `run_with_progress` is handed a Qt-free `Progress`: its reports reach the UI
thread as they come, and `Task.stop()` / `cancel()` set the flag the work checks between steps."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal, Slot

from studio.errors import StudioError
from studio.gui.base.workers import worker_pool
from studio.progress import Progress, ProgressReport


class _Signals(QObject):
    done = Signal(object, object)
    """(task, result)"""
    failed = Signal(object, object, str)
    """(task, error, traceback)"""
    progressed = Signal(object, object)
    """(task, ProgressReport), sent from the worker thread, received on the UI thread"""


class _Job(QRunnable):
    def __init__(self, work: Callable[[], Any], task: Task) -> None:
        super().__init__()
        self.work = work
        self.task = task
        self.setAutoDelete(True)

    def run(self) -> None:  # on the worker thread
        signals = self.task.signals
        try:
            result = self.work()
        except BaseException as exc:  # noqa: BLE001 (every failure must reach the UI thread)
            answer: tuple[Any, ...] = (signals.failed, self.task, exc, traceback.format_exc())
        else:
            answer = (signals.done, self.task, result)
        try:
            answer[0].emit(*answer[1:])
        except RuntimeError:  # the task's signals went with the app as it quit: nobody is left to tell
            return


@dataclass
class Task:
    """One piece of background work, as the UI sees it."""

    label: str
    on_done: Callable[[Any], None]
    on_error: Callable[[StudioError], None] | None = None
    signals: _Signals = field(default_factory=_Signals)
    finished: bool = False
    cancelled: bool = False
    progress: Progress | None = None
    on_progress: Callable[[ProgressReport], None] | None = None

    def cancel(self) -> None:
        """Drop the result when it arrives; work given a Progress is also asked to stop at its next step
        (other work runs to its end)."""
        self.cancelled = True
        self.stop()

    def stop(self) -> None:
        """Ask work given a Progress to stop at its next step; what it finished still arrives as its result."""
        if self.progress is not None:
            self.progress.cancel()

    @property
    def stopping(self) -> bool:
        return self.progress is not None and self.progress.cancelled


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
        self.pool = worker_pool(self)
        self._running: list[Task] = []

    def run(self, label: str, work: Callable[[], Any], on_done: Callable[[Any], None],
            on_error: Callable[[StudioError], None] | None = None) -> Task:
        """Run `work()` in the background; `on_done(result)` or `on_error(error)` on the UI thread.
        An error that is not a StudioError goes to `crashed` (and `on_error` is not called)."""
        return self._start(Task(label, on_done, on_error), work)

    def run_with_progress(self, label: str, work: Callable[[Progress], Any], on_done: Callable[[Any], None],
                          on_error: Callable[[StudioError], None] | None = None,
                          on_progress: Callable[[ProgressReport], None] | None = None) -> Task:
        """As `run`, with `work(progress)`: each `progress.report(...)` reaches `on_progress` on the UI
        thread, and the task's `stop()` or `cancel()` sets `progress.cancelled` for the work to check."""
        progress = Progress()
        task = Task(label, on_done, on_error, progress=progress, on_progress=on_progress)
        progress.listen(lambda report: task.signals.progressed.emit(task, report))
        task.signals.progressed.connect(self._progressed)
        return self._start(task, lambda: work(progress))

    def _start(self, task: Task, work: Callable[[], Any]) -> Task:
        self._running.append(task)
        # Delivered to bound slots of the runner: a result that arrives after the window (and
        # its runner) is gone is dropped by Qt instead of reaching a deleted object.
        task.signals.done.connect(self._done)
        task.signals.failed.connect(self._failed)
        self.busy_changed.emit(True, task.label)
        self.pool.start(_Job(work, task))
        return task

    @Slot(object, object)
    def _progressed(self, task: Task, report: ProgressReport) -> None:
        if not task.cancelled and not task.finished and task.on_progress is not None:
            task.on_progress(report)

    @Slot(object, object)
    def _done(self, task: Task, result: Any) -> None:
        self._finish(task)
        if not task.cancelled:
            task.on_done(result)

    @Slot(object, object, str)
    def _failed(self, task: Task, error: BaseException, trace: str) -> None:
        self._finish(task)
        if task.cancelled:
            return
        if isinstance(error, StudioError) and task.on_error is not None:
            task.on_error(error)
        else:
            self.crashed_with.emit(task.label, error)
            self.crashed.emit(task.label, trace)

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
