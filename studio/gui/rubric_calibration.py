"""Judge calibration in the rubric editor: per criterion, how often the judge agrees with the
experts (studio.judging.calibration), computed on the TaskRunner when the editor opens, when the
verdict store changes on disk and after a rubric edit (a rewritten criterion starts afresh).
The rubric model shows it in its "Judge agreement" column; a flagged criterion gets a warning
icon and the tooltip "judge and experts disagree on 4 of 6 decisions (agreement 33%)"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from studio.gui.tasks import TaskRunner
from studio.gui.verdict_watch import VerdictWatcher

if TYPE_CHECKING:
    from studio.editing.changes import Changes
    from studio.gui.project_context import ProjectContext

EDIT_DELAY_MS = 600  # after the last rubric edit: typing a text does not start a calibration per keystroke


class CalibrationFeed(QObject):
    updated = Signal(object)
    """(scope, criterion id) -> CalibrationCell, for every criterion judged by both."""

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.runner = runner
        self._generation = 0
        self._task: Any = None
        self.watcher = VerdictWatcher(context.session.root, self)
        self.watcher.changed.connect(self.refresh)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(EDIT_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        context.changed.connect(self._on_changed)
        context.reloaded.connect(self.refresh)

    def refresh(self) -> None:
        from studio.judging.dashboards import compute_calibration

        self._generation += 1
        generation = self._generation
        if self._task is not None:
            self._task.cancel()
        root, project = self.context.session.root, self.context.session.loaded.project
        self._task = self.runner.run("Calibrating the judge", lambda: compute_calibration(root, project),
                                     lambda cells: self._done(generation, cells),
                                     lambda _error: self._done(generation, {}))

    def _done(self, generation: int, cells: dict) -> None:
        if generation == self._generation:
            self._task = None
            self.updated.emit(cells)

    def _on_changed(self, changes: Changes) -> None:
        from studio.gui.rubric_model import scope_of_file

        if any(scope_of_file(rel) is not None for rel in changes.files):
            self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self.watcher.stop()
