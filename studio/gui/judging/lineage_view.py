"""Defect lineage (`lineageView`): for a judged run, what became of each failed checkpoint criterion along
the timeline — persisted, repaired or propagated downstream — as the matrix `dbstudio lineage` prints
(studio.scoring.lineage; docs/lineage.md). Read on the background helper when a run is chosen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSplitter, QTextBrowser, QVBoxLayout, QWidget

from studio.errors import StudioError
from studio.gui.base.live_results import LatestTask, results_table, status_label
from studio.gui.base.tasks import TaskRunner
from studio.gui.widgets.tables import HeadersTableModel

if TYPE_CHECKING:
    from studio.gui.base.project_context import ProjectContext
    from studio.scoring.lineage import Lineage

Index = QModelIndex | QPersistentModelIndex
CLASS_BRUSHES = {"propagated": QBrush(QColor("#fbe3e3")), "persisted": QBrush(QColor("#fdf0d5")),
                 "repaired": QBrush(QColor("#e3f4e1")), "unobserved": QBrush(QColor("#eeeeee"))}


class LineageModel(HeadersTableModel):
    """One row per defect: its criterion, its class, then one column per later scope."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lineage: Lineage | None = None
        self.HEADERS = ("Defect", "Class")

    def set_lineage(self, lineage: Lineage | None) -> None:
        self.beginResetModel()
        self.lineage = lineage
        self.HEADERS = ("Defect", "Class", *(lineage.scopes[1:] if lineage is not None else ()))
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() or self.lineage is None else len(self.lineage.defects)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if self.lineage is None or not index.isValid() or not 0 <= index.row() < len(self.lineage.defects):
            return None
        defect = self.lineage.defects[index.row()]
        column = index.column()
        if column < 2:
            if role == Qt.ItemDataRole.DisplayRole:
                return defect.key if column == 0 else defect.kind
            if role == Qt.ItemDataRole.BackgroundRole and column == 1:
                return CLASS_BRUSHES.get(defect.kind)
            if role == Qt.ItemDataRole.ToolTipRole and column == 0 and defect.cause:
                return f"not credited because {defect.cause}, which it requires, fails"
            return None
        scope = self.HEADERS[column]
        cell = next((c for c in defect.cells if c.scope == scope), None)
        if cell is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text()
        if role == Qt.ItemDataRole.ToolTipRole:
            parts = []
            if cell.fails_again:
                parts.append("fails again: " + ", ".join(cell.fails_again))
            if cell.holds_again:
                parts.append("holds again: " + ", ".join(cell.holds_again))
            if cell.downstream:
                parts.append("failing downstream: " + ", ".join(cell.downstream))
            return "\n".join(parts) or None
        return None


class LineageView(QWidget):
    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lineageView")
        self.context = context
        self.runner = runner
        self.latest = LatestTask(runner, self)
        self.lineage: Lineage | None = None
        self.picker = QComboBox(self)
        self.picker.setObjectName("lineageSubmission")
        self.picker.currentTextChanged.connect(self._chosen)
        self.summary = status_label("lineageSummary", self)
        self.model = LineageModel(self)
        self.table = results_table("lineageMatrix", self.model, self)
        self.table.selectionModel().currentRowChanged.connect(self._details)
        self.details = QTextBrowser(self)
        self.details.setObjectName("lineageDetails")
        top = QHBoxLayout()
        label = QLabel("&Run:", self)
        label.setBuddy(self.picker)
        top.addWidget(label)
        top.addWidget(self.picker, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(self.details)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.picker.setFocus()
        context.rater_identity().changed.connect(self._identity_changed)
        self._read_runs()

    def _identity_changed(self) -> None:
        self._chosen(self.picker.currentText())

    def _read_runs(self) -> None:
        from studio.judging.verdict_store import VerdictStore

        root = self.context.session.root
        self.summary.setText("Reading the judged runs…")
        self.runner.run("Reading the judged runs", lambda: VerdictStore(root).submissions(), self._runs, self._failed)

    def _runs(self, submissions: list[str]) -> None:
        if not submissions:
            self.summary.setText("No judged run yet: judge a run (Judging > Judge…), then its defects are followed here.")
            return
        self.picker.addItems(submissions)

    def _chosen(self, submission: str) -> None:
        from studio.judging.lineage_reading import lineage_of
        from studio.judging.run_judging import loaded_for_judging

        if not submission:
            return
        root = self.context.session.root
        viewer = self.context.rater_identity().viewer()  # a blind rater follows only the verdicts they gave
        self.summary.setText(f"Following the defects of {submission}…")
        self.latest.start(f"Defect lineage of {submission}",
                          lambda: lineage_of(loaded_for_judging(root), submission, viewer=viewer),
                          self._show, self._failed)

    def _show(self, lineage: Lineage) -> None:
        self.lineage = lineage
        self.model.set_lineage(lineage)
        counts = lineage.counts()
        text = (f"{lineage.submission}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
                + (f"; not judged: {', '.join(lineage.not_judged)}" if lineage.not_judged else ""))
        if not lineage.defects:
            text += ". No checkpoint criterion counts against it."
        self.summary.setText(text)
        self.details.clear()

    def _details(self, current: QModelIndex, _previous: QModelIndex) -> None:
        from html import escape

        if self.lineage is None or not current.isValid() or current.row() >= len(self.lineage.defects):
            self.details.clear()
            return
        defect = self.lineage.defects[current.row()]
        parts = [f"<b>{escape(defect.key)}</b> — {escape(defect.kind)} (by its own requirement or file: "
                 f"{escape(defect.fate)}). Covers {escape(', '.join(defect.artifacts))}."]
        if defect.cause:
            parts.append(f"Not credited because {escape(defect.cause)}, which it requires, fails.")
        if defect.propagated:
            parts.append("Failures downstream: " + escape(", ".join(defect.propagated)) + ".")
        self.details.setHtml("<p>" + "</p><p>".join(parts) + "</p>")

    def _failed(self, error: StudioError) -> None:
        self.summary.setText(str(error))
