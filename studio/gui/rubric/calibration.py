"""Judge calibration in the rubric editor: per criterion, how often the judge agrees with the
experts (studio.judging.calibration), computed on the TaskRunner when the editor opens, when the
verdict store changes on disk and after a rubric edit (a rewritten criterion starts afresh).
The rubric model shows it in its "Judge agreement" column; a flagged criterion gets a warning
icon and the tooltip "judge and experts disagree on 4 of 6 decisions (agreement 33%)"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from studio.gui.base.live_results import LatestTask, after_rubric_edits
from studio.gui.base.tasks import TaskRunner

if TYPE_CHECKING:
    from studio.gui.base.project_context import ProjectContext

EDIT_DELAY_MS = 600  # after the last rubric edit: typing a text does not start a calibration per keystroke


class CalibrationFeed(QObject):
    updated = Signal(object)
    """(scope, criterion id) -> CalibrationCell, for every criterion judged by both."""

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.latest = LatestTask(runner, self)  # an answer after the editor closed is dropped
        self.watcher = context.verdict_watcher()
        self.watcher.changed.connect(self.refresh)
        self._timer = after_rubric_edits(self, context, EDIT_DELAY_MS, self.refresh)
        context.reloaded.connect(self.refresh)
        context.rater_identity().changed.connect(self.refresh)  # blind review hides what the rater has not rated

    def refresh(self) -> None:
        from studio.judging.dashboards import compute_calibration

        root, project = self.context.session.root, self.context.session.loaded.project
        viewer = self.context.rater_identity().viewer()
        self.latest.start("Calibrating the judge", lambda: compute_calibration(root, project, viewer),
                          self.updated.emit, lambda _error: self.updated.emit({}))
