"""The rubric editor's Edit impact panel: for the project as edited (the unsaved model) against its
files as saved, each judged submission's scores before -> after (a value, or the exact range over
the verdicts the edit leaves missing), the pairs whose order can change and what would be judged
again (studio.judging.edit_impact). Computed on the TaskRunner a moment after the undo stack last
changed (an edit, an undo, a redo), after a save, a reload or a change of the verdict store; only
the newest request counts. A hidden panel waits until it is shown."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Slot
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

from studio.gui.base.live_results import LatestTask, results_table, status_label
from studio.gui.base.tasks import TaskRunner
from studio.gui.widgets.tables import HeadersTableModel

if TYPE_CHECKING:
    from studio.errors import StudioError
    from studio.gui.base.project_context import ProjectContext
    from studio.judging.edit_impact import ProjectEditImpact
    from studio.judging.edit_impact_report import ImpactRow

Index = QModelIndex | QPersistentModelIndex
EDIT_DELAY_MS = 500
"""After the last change of the undo stack: typing a requirement does not start a preview per key."""
HEADERS = ("Submission", "Score", "Before", "After", "Stale", "Missing")


class EditImpactModel(HeadersTableModel):
    """One row per score of a submission (final, process, each checkpoint the edit changes)."""

    HEADERS = HEADERS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[ImpactRow] = []
        self._bold = QFont()
        self._bold.setBold(True)

    def show(self, rows: list[ImpactRow]) -> None:
        self.beginResetModel()
        try:
            self._rows = rows
        finally:
            self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (row.submission, row.score, row.before, row.after, str(row.stale), str(row.missing))[index.column()]
        if role == Qt.ItemDataRole.FontRole and row.changed and index.column() == 3:
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole:
            if not row.changed:
                return "the edit does not change this score"
            return (f"{row.stale} verdict(s) stop counting here; {row.missing} missing after the edit: the score "
                    "is the range over every way they can be judged")
        return None

    def row(self, number: int) -> ImpactRow:
        return self._rows[number]


class EditImpactView(QWidget):
    """The panel: a status line, the rows, the orders that can change and what to judge again."""

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editImpactView")
        self.context = context
        self.latest = LatestTask(runner, self)
        self.impact: ProjectEditImpact | None = None
        self._stale = False
        self.model = EditImpactModel(self)
        self.status = status_label("editImpactStatus", self)
        self.table = results_table("editImpactTable", self.model, self)
        self.flips = status_label("editImpactFlips", self)
        self.flips.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rejudge = status_label("editImpactRejudge", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.flips)
        layout.addWidget(self.rejudge)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(EDIT_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        context.undo_stack.indexChanged.connect(self.schedule)
        context.saved.connect(self.schedule)
        context.reloaded.connect(self.schedule)
        context.verdict_watcher().changed.connect(self.schedule)
        context.rater_identity().changed.connect(self.schedule)  # blind review hides what the rater has not rated
        self.schedule()

    @Slot()
    def schedule(self, *_: object) -> None:
        """Compute again once changes pause (at once when shown next, if hidden now)."""
        if self.isVisible():
            self._timer.start()
        else:
            self._stale = True

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt naming)
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self._timer.start()

    @Slot()
    def refresh(self) -> None:
        from studio.judging.edit_impact import preview_unsaved

        edited = self.context.session.loaded  # replaced, never changed, by the next edit: safe to read on a worker
        viewer = self.context.rater_identity().viewer()
        self.status.setText("Working out which scores the edit changes…")
        self.latest.start("Edit impact", partial(preview_unsaved, edited, viewer), self._show, self._failed)

    def _show(self, impact: ProjectEditImpact) -> None:
        from studio.judging.edit_impact_report import changes_text, flips_text, impact_rows, rejudge_text

        self.impact = impact
        self.model.show(impact_rows(impact))
        changed = [s for s in impact.submissions if s.changed]
        if not impact.submissions:
            summary = "No judged submissions yet: no score to change."
        elif not impact.changes:
            summary = "No unsaved edit changes what a score reads."
        else:
            stale = sum(s.stale for s in impact.submissions)
            summary = (f"{len(changed)} of {len(impact.submissions)} judged submission(s) change; {stale} verdict(s) "
                       f"stop counting. {self._sentence(changes_text(impact))}.")
        self.status.setText(summary)
        self.flips.setText(self._sentence("\n".join(flips_text(impact))) if impact.submissions else "")
        self.rejudge.setText(self._sentence(rejudge_text(impact, str(self.context.session.root)))
                             if impact.submissions else "")

    def _sentence(self, text: str) -> str:
        return text[:1].upper() + text[1:]

    def _failed(self, error: StudioError) -> None:
        self.impact = None
        self.model.show([])
        self.status.setText(f"Edit impact unavailable: {error}")
        self.flips.clear()
        self.rejudge.clear()
