"""What the views computed from the verdict store share: background work where only the newest
request counts, a view that computes again when the store changes (at once if shown, else when next
shown), and a pause after rubric edits before computing again."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractItemModel, QObject, QTimer, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QPushButton, QTableView, QWidget
from shiboken6 import isValid

from studio.gui.base.tasks import TaskRunner
from studio.store.layout import touched_scopes

if TYPE_CHECKING:
    from studio.editing.changes import Changes
    from studio.gui.base.project_context import ProjectContext


RESIZE_ROWS = 60
"""Rows a results table looks at to fit its columns (besides those on screen)."""


class LatestTask:
    """Work on the TaskRunner of which only the newest request counts: a new request cancels the one
    going, and the answer of one that was overtaken is dropped, as is an answer that arrives after
    `owner` (the view it is for) was deleted."""

    def __init__(self, runner: TaskRunner, owner: QObject | None = None) -> None:
        self.runner = runner
        self.owner = owner
        self._generation = 0
        self._task: Any = None

    def start(self, label: str, work: Callable[[], Any], done: Callable[[Any], None],
              failed: Callable[[Any], None]) -> None:
        self._generation += 1
        generation = self._generation
        if self._task is not None:
            self._task.cancel()

        def finish(handler: Callable[[Any], None], value: Any) -> None:
            if generation == self._generation:
                self._task = None
                if self.owner is None or isValid(self.owner):
                    handler(value)

        self._task = self.runner.run(label, work, lambda result: finish(done, result),
                                     lambda error: finish(failed, error))

    def cancel(self) -> None:
        """Drop the request going, if any: its answer is never handled."""
        self._generation += 1
        if self._task is not None:
            self._task.cancel()
            self._task = None


class RubricEditPause(QTimer):
    """A single-shot timer, owned by its view, restarted by every edit of a rubric file. Its slot is
    a method of the timer itself, so Qt drops the connection when the view (and the timer) is
    deleted: a closed tab is never called back by a later edit."""

    def __init__(self, owner: QObject, context: ProjectContext, delay_ms: int) -> None:
        super().__init__(owner)
        self.setSingleShot(True)
        self.setInterval(delay_ms)
        self._context = context
        context.changed.connect(self.on_changed)
        owner.destroyed.connect(self._disconnect)

    @Slot(object)
    def on_changed(self, changes: Changes) -> None:
        if touched_scopes(changes.files):  # criteria changed, and so which verdicts are current
            self.start()

    @Slot()
    def _disconnect(self) -> None:
        # The view goes first: its timer's connection must not outlive it, whatever the order of deletion.
        if isValid(self._context):
            with contextlib.suppress(RuntimeError):  # already gone with the timer
                self._context.changed.disconnect(self.on_changed)


def after_rubric_edits(owner: QObject, context: ProjectContext, delay_ms: int, slot: Callable[[], None]) -> QTimer:
    """Call `slot` once edits of a rubric file pause for `delay_ms` (typing a criterion's text does not
    start a computation per keystroke); other edits change nothing computed from the store. The timer
    belongs to `owner` and stops listening when `owner` is deleted."""
    timer = RubricEditPause(owner, context, delay_ms)
    timer.timeout.connect(slot)
    return timer


class StoreView(QWidget):
    """A tab computed from the verdict store: `refresh()` when the store changes on disk or the project
    is read again. A hidden tab (another one in front) waits until it is shown, so a review saving
    verdict after verdict does not queue work nobody sees."""

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.runner = runner
        self.latest = LatestTask(runner, self)
        self._stale = False

    def watch_store(self) -> None:
        """Start following the store (once the view's widgets exist) and compute a first time."""
        self.watcher = self.context.verdict_watcher()
        self.watcher.changed.connect(self._store_changed)
        self.context.reloaded.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        raise NotImplementedError

    def _store_changed(self) -> None:
        if self.isVisible():
            self.refresh()
        else:
            self._stale = True

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt naming)
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self.refresh()


def named_button(text: str, name: str, slot: Callable[[], Any], parent: QWidget) -> QPushButton:
    button = QPushButton(text, parent)
    button.setObjectName(name)
    button.clicked.connect(slot)
    return button


def status_label(name: str, parent: QWidget) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    return label


def results_table(name: str, model: QAbstractItemModel, parent: QWidget) -> QTableView:
    """A read-only table of computed results, whole rows selected, columns fitted to their contents."""
    table = QTableView(parent)
    table.setObjectName(name)
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setVisible(False)
    header = table.horizontalHeader()
    # Columns are fitted once per new set of rows, to RESIZE_ROWS of them: Qt's ResizeToContents
    # (1,000 rows, every role, again on each layout) made 64,000 calls into the model for 143 runs.
    header.setResizeContentsPrecision(RESIZE_ROWS)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)

    def fit() -> None:
        if isValid(header):
            header.resizeSections(QHeaderView.ResizeMode.ResizeToContents)

    model.modelReset.connect(fit)
    model.layoutChanged.connect(fit)
    model.rowsInserted.connect(fit)
    fit()
    return table
