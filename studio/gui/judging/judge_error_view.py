"""The judge's measured error (`judgeErrorView`): whether each judge of the verdict store can be
vouched for, and the scores corrected for that error, as `dbstudio verdicts certify` and
`dbstudio score --corrected` give them (studio.judging.judge_error).

The certificates table holds, per judge, the project and each target, dimension and scope: the
decisions the people settled, the judge's sensitivity and specificity with their Wilson 95%
intervals, agreement and kappa, and whether both lower bounds reach the threshold set here. With
two judges or more, a row per judge compares them on the decisions all of them judged. The
corrected table holds each run's rubric scores, raw and corrected for the chosen judge's error
(Rogan-Gladen, by class), with a bootstrap interval or the reason there is none.

Computed on the TaskRunner when the view opens, on Compute and when the store changes on disk.
A blind rater sees the figures over the decisions they have rated themselves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QSpinBox, QWidget

from studio.errors import StudioError
from studio.gui.base.live_results import StoreView, named_button, results_table, status_label
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.reviewer_widgets import table_over_charts
from studio.gui.judging.scores_view import busy_bar, fill_judges, judge_picker, picked_judge
from studio.gui.widgets.tables import HeadersTableModel

if TYPE_CHECKING:
    from studio.gui.base.project_context import ProjectContext
    from studio.judging.judge_error import JudgeErrorResult

Index = QModelIndex | QPersistentModelIndex
DEFAULT_THRESHOLD = 0.8  # as `dbstudio verdicts certify`
MAX_RESAMPLES = 100_000
CORRECT_BY_LABELS = {"pooled": "Pooled", "target": "By target", "dimension": "By dimension"}


class _CellsModel(HeadersTableModel):
    """Rows of texts made by the core (the same texts the command line prints)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, ...]] = []
        self.tips: list[str | None] = []

    def set_rows(self, rows: list[tuple[str, ...]], tips: list[str | None] | None = None) -> None:
        self.beginResetModel()
        self.rows, self.tips = rows, tips or [None] * len(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tips[index.row()] or self.rows[index.row()][index.column()]
        return None


class CertificatesModel(_CellsModel):
    HEADERS = ("Judge", "Scope", "n", "Sensitivity", "Specificity", "Agreement", "Kappa", "Status")


class CorrectedModel(_CellsModel):
    HEADERS = ("System", "Scope", "Raw", "Corrected", "Interval / why not")


class JudgeErrorView(StoreView):
    computed = Signal()
    """A newly computed certification (or the reason there is none) is shown."""

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(context, runner, parent)
        self.setObjectName("judgeErrorView")
        self.result: JudgeErrorResult | None = None

        self.threshold = QDoubleSpinBox(self)
        self.threshold.setObjectName("judgeErrorThreshold")
        self.threshold.setRange(0.05, 0.95)
        self.threshold.setSingleStep(0.05)
        self.threshold.setDecimals(2)
        self.threshold.setValue(DEFAULT_THRESHOLD)
        self.threshold.setToolTip("A judge is certified for a scope when the lower bounds of both its sensitivity "
                                  "and its specificity (Wilson 95%) reach this share")
        self.judge_box = judge_picker("judgeErrorJudgePicker", self, None)
        self.judge_box.setToolTip("The judge whose error corrects the scores")
        self.judge_box.currentIndexChanged.connect(lambda _: self.refresh())
        self.correct_by = QComboBox(self)
        self.correct_by.setObjectName("judgeErrorCorrectBy")
        for key, label in CORRECT_BY_LABELS.items():
            self.correct_by.addItem(label, key)
        self.correct_by.setToolTip("Measure the judge's error over every checked decision, or per target or "
                                   "dimension of the criteria (docs/scoring.md)")
        self.resamples = QSpinBox(self)
        self.resamples.setObjectName("judgeErrorResamples")
        self.resamples.setRange(0, MAX_RESAMPLES)
        self.resamples.setSingleStep(500)
        self.resamples.setToolTip("Cluster-bootstrap resamples of the checked decisions for each corrected "
                                  "score's 95% interval (0: none)")
        self.seed = QSpinBox(self)
        self.seed.setObjectName("judgeErrorSeed")
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setToolTip("The bootstrap's random seed: the same seed gives the same intervals")
        self.compute_button = named_button("Compute", "judgeErrorComputeButton", self.refresh, self)
        self.busy = busy_bar("judgeErrorBusy", self)
        self.status = status_label("judgeErrorStatus", self)

        self.certificates = CertificatesModel(self)
        self.certificates_table = results_table("judgeCertificatesTable", self.certificates, self)
        self.corrected = CorrectedModel(self)
        self.corrected_table = results_table("correctedScoresTable", self.corrected, self)

        controls = QHBoxLayout()
        for widget in (QLabel("Certify at:", self), self.threshold, QLabel("Correct with:", self), self.judge_box,
                       self.correct_by, QLabel("Resamples:", self), self.resamples, QLabel("Seed:", self),
                       self.seed, self.compute_button, self.busy):
            controls.addWidget(widget)
        controls.addStretch(1)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        self.splitter, self.blind_note = table_over_charts(self, context.rater_identity(), [controls, status_row],
                                                           self.certificates_table, self.corrected_table,
                                                           "judgeError", "the judge's measured error")
        context.rater_identity().changed.connect(self._store_changed)
        self.threshold.setFocus()
        self.watch_store()

    def judge(self) -> str | None:
        return picked_judge(self.judge_box)

    def refresh(self) -> None:
        """Compute again in the background (the latest request wins)."""
        from studio.judging.judge_error import compute_judge_error

        root, project = self.context.session.root, self.context.session.loaded.project
        judge, threshold = self.judge(), round(self.threshold.value(), 2)
        by, resamples, seed = str(self.correct_by.currentData()), self.resamples.value(), self.seed.value()
        viewer = self.context.rater_identity().viewer()
        self.busy.show()
        self.compute_button.setEnabled(False)
        self.status.setText("Measuring the judge's error…")
        self.latest.start("Measuring the judge's error",
                          lambda: compute_judge_error(root, project, judge, threshold, by, resamples, seed, viewer),
                          self._done, self._failed)

    def _done(self, result: JudgeErrorResult) -> None:
        from studio.judging.judge_error import certificate_cells, corrected_cells

        self.busy.hide()
        self.compute_button.setEnabled(True)
        self.result = result
        fill_judges(self.judge_box, result.judges, None, result.judge)
        report = result.certification
        rows = [certificate_cells(c) for c in report.certificates]
        tips: list[str | None] = [None if c.certified else c.reason for c in report.certificates]
        if report.comparison is not None:
            rows += [certificate_cells(c, f"same {report.comparison.decisions} decisions")
                     for c in report.comparison.rows]
            tips += [f"On the {report.comparison.decisions} decision(s) every judge judged and the people settled"
                     for _ in report.comparison.rows]
        self.certificates.set_rows(rows, tips)
        scores = result.correction.scores
        self.corrected.set_rows([corrected_cells(s) for s in scores])
        for table in (self.certificates_table, self.corrected_table):
            table.resizeColumnsToContents()
        certified = sum(1 for c in report.certificates if c.certified)
        text = (f"{certified} of {len(report.certificates)} scope(s) certified at {report.threshold:g} (both lower "
                f"bounds of the Wilson 95% intervals; reference: adjudicated, else agreeing experts); "
                f"{len(scores)} score(s) corrected for {result.judge}'s error")
        if result.left_out:
            text += f". Left out: {result.left_out}"
        self.status.setText(text)
        self.computed.emit()

    def _failed(self, error: StudioError) -> None:
        self.busy.hide()
        self.compute_button.setEnabled(True)
        self.result = None
        self.certificates.set_rows([])
        self.corrected.set_rows([])
        self.status.setText(str(error).splitlines()[0])
        self.computed.emit()
