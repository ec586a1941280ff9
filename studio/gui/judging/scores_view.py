"""The scores view (`scoresView`): the open project's runs scored from the verdict store by the
scoring engine. A table of each run's checkpoint scores along the timeline, its process and final
score (an unknown score as its range, a rubric without verdicts as "not judged"); below it the
trajectory chart and the profiles by target and dimension, each exportable as PNG. A judge picker
chooses whose verdicts count when the store holds several judges.

Scores and charts are computed on the TaskRunner when the view opens, when the judge changes,
when the verdict store changes on disk and after an edit of a rubric."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.live_results import (
    LatestTask,
    StoreView,
    after_rubric_edits,
    named_button,
    results_table,
    status_label,
)
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.reviewer_widgets import table_over_charts
from studio.gui.judging.scores_models import ScoresModel
from studio.gui.widgets.chart_view import ChartView, export_png, save_to

if TYPE_CHECKING:
    from studio.gui.base.project_context import ProjectContext
    from studio.judging.score_sheet import ScoreSheet

EVERY_JUDGE = "Every judge (where they agree)"
RUBRIC_DELAY_MS = 400
JUDGE_CHARACTERS = 20
TABLE_FILTER = "Excel workbook (*.xlsx);;CSV (*.csv)"


def busy_bar(name: str, parent: QWidget) -> QProgressBar:
    bar = QProgressBar(parent)
    bar.setObjectName(name)
    bar.setRange(0, 0)  # busy: the work reports no steps
    bar.setMaximumWidth(140)
    bar.setTextVisible(False)
    bar.hide()
    return bar


def judge_picker(name: str, parent: QWidget, every: str | None) -> QComboBox:
    combo = QComboBox(parent)
    combo.setObjectName(name)
    # a judge model's long name shows whole in the list, not by widening the window
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(JUDGE_CHARACTERS)
    if every is not None:
        combo.addItem(every, None)
    return combo


def picked_judge(combo: QComboBox) -> str | None:
    """The judge chosen in a picker (None: every judge, or none to choose)."""
    data = combo.currentData()
    return str(data) if data else None


def fill_judges(combo: QComboBox, judges: list[str], every: str | None, chosen: str | None = None) -> None:
    """The store's judges in the picker, `chosen` selected (default: the current choice kept), with
    signals blocked."""
    current = chosen if chosen is not None else combo.currentData()
    combo.blockSignals(True)
    combo.clear()
    if every is not None:
        combo.addItem(every, None)
    for judge in judges:
        combo.addItem(judge, judge)
    combo.setCurrentIndex(max(0, combo.findData(current)) if current is not None else 0)
    combo.blockSignals(False)
    combo.setEnabled(len(judges) > 1 or (every is None and bool(judges)))


class ScoresView(StoreView):
    computed = Signal()
    """A newly computed score sheet (or the reason there is none) is shown; its charts may follow."""
    charts_drawn = Signal()
    """The charts of the sheet shown are drawn (or say why they are not)."""
    failed = Signal(str)

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(context, runner, parent)
        self.setObjectName("scoresView")
        self.sheet: ScoreSheet | None = None
        self._drawing = LatestTask(runner, self)

        self.judge_box = judge_picker("scoresJudgePicker", self, EVERY_JUDGE)
        self.judge_box.setToolTip("Whose verdicts count where no expert gave one")
        self.judge_box.currentIndexChanged.connect(lambda _: self.refresh())
        self.refresh_button = named_button("Refresh", "scoresRefreshButton", self.refresh, self)
        self.export_table_button = named_button("Export table…", "exportScoresTableButton", self.export_table, self)
        self.busy = busy_bar("scoresBusy", self)
        self.status = status_label("scoresStatus", self)

        self.model = ScoresModel(self)
        self.table = results_table("scoresTable", self.model, self)

        self.trajectory = ChartView("trajectoryChart", "The trajectory chart appears once runs have verdicts.", self)
        self.profile = ChartView("profileChart", "The profiles appear once runs have verdicts.", self)
        self.export_trajectory_button = named_button(
            "Export PNG…", "exportTrajectoryButton", lambda: self.export_chart(self.trajectory, "trajectory"), self)
        self.export_profile_button = named_button(
            "Export PNG…", "exportProfileButton", lambda: self.export_chart(self.profile, "profiles"), self)
        self.charts = QTabWidget(self)
        self.charts.setObjectName("scoresChartTabs")
        self.charts.addTab(_with_button(self.trajectory, self.export_trajectory_button), "Trajectory")
        self.charts.addTab(_with_button(self.profile, self.export_profile_button), "Target and dimension profiles")

        top = QHBoxLayout()
        top.addWidget(QLabel("Judge:", self))
        top.addWidget(self.judge_box)
        top.addWidget(self.refresh_button)
        top.addWidget(self.export_table_button)
        top.addWidget(self.busy)
        top.addWidget(self.status, 1)
        _, self.blind_note = table_over_charts(self, context.rater_identity(), [top], self.table, self.charts,
                                               "scores", "the score")
        self._update_buttons()

        # a rubric edit changes what is scored (and may make verdicts stale)
        self._rubric_timer = after_rubric_edits(self, context, RUBRIC_DELAY_MS, self.refresh)
        # blind review: a rater sees the scores of the verdicts they may see (studio.judging.visibility)
        context.rater_identity().changed.connect(self._store_changed)
        self.watch_store()

    # -- computing --------------------------------------------------------------------------
    def judge(self) -> str | None:
        return picked_judge(self.judge_box)

    def refresh(self) -> None:
        """Score the runs again in the background (the latest request wins); the charts follow in a
        task of their own, so the table is there before matplotlib has drawn anything."""
        from studio.judging.score_sheet import read_score_sheet

        root, project, judge = self.context.session.root, self.context.session.loaded.project, self.judge()
        viewer = self.context.rater_identity().viewer()
        self.busy.show()
        self.status.setText("Scoring the runs…")
        self.latest.start("Scoring runs", lambda: read_score_sheet(root, project, judge, viewer=viewer),
                          self._done, self._failed)

    def _done(self, sheet: ScoreSheet) -> None:
        from studio.judging.dashboards import score_charts

        self.sheet = sheet
        fill_judges(self.judge_box, sheet.judges, EVERY_JUDGE)
        self.model.set_sheet(sheet)
        runs = len(sheet.runs)
        text = f"{runs} run{'' if runs == 1 else 's'} scored from the verdict store"
        missing = sum(run.missing for run in sheet.runs)
        if missing:
            text += f"; {missing} verdict(s) missing: the scores they could change show their range"
        if sheet.left_out:
            text += f". Left out: {sheet.left_out}"
        self.status.setText(text)
        self._update_buttons()
        self.computed.emit()
        self._drawing.start("Drawing the score charts", lambda: score_charts(sheet), self._drawn, self._not_drawn)

    def _drawn(self, charts: tuple[bytes, bytes]) -> None:
        self.busy.hide()
        trajectory, profile = charts
        self.trajectory.set_png(trajectory)
        self.profile.set_png(profile)
        self._update_buttons()
        self.charts_drawn.emit()

    def _not_drawn(self, error: StudioError) -> None:
        self.busy.hide()
        self.trajectory.show_text(str(error))
        self.profile.show_text(str(error))
        self._update_buttons()
        self.charts_drawn.emit()

    def _failed(self, error: StudioError) -> None:
        self.busy.hide()
        self._drawing.cancel()  # charts of an earlier sheet would contradict the message
        self.sheet = None
        self.model.set_sheet(None)
        self.trajectory.show_text(str(error))
        self.profile.show_text(str(error))
        self.status.setText(str(error).splitlines()[0])
        self._update_buttons()
        self.failed.emit(str(error))
        self.computed.emit()

    def _update_buttons(self) -> None:
        self.export_table_button.setEnabled(self.sheet is not None)
        self.export_trajectory_button.setEnabled(self.trajectory.png is not None)
        self.export_profile_button.setEnabled(self.profile.png is not None)

    # -- exporting --------------------------------------------------------------------------
    def _suggested(self, what: str, suffix: str) -> str:
        name = self.sheet.project_id if self.sheet is not None else "project"
        return str(self.context.session.root / f"{name}-{what}.{suffix}")

    def export_chart(self, chart: ChartView, what: str) -> None:
        export_png(self, chart, self._suggested(what, "png"), self.status)

    def export_table(self) -> None:
        """The table as shown, as an xlsx workbook or a CSV file (by the name's ending)."""
        from studio.judging.tables import table_bytes

        if self.sheet is None:
            return
        columns, rows = self.sheet.table()
        name, chosen = QFileDialog.getSaveFileName(self, "Export", self._suggested("scores", "xlsx"), TABLE_FILTER)
        if not name:
            return
        xlsx = name.lower().endswith(".xlsx") or (not name.lower().endswith(".csv") and "xlsx" in chosen)
        try:
            written = save_to(Path(name), table_bytes(columns, rows, xlsx, "Scores"))
        except StudioError as error:
            self.status.setText(str(error))
            return
        self.status.setText(f"Scores written to {written}")



def _with_button(chart: ChartView, button: QPushButton) -> QWidget:
    page = QWidget(chart.parentWidget())
    row = QHBoxLayout()
    row.addStretch(1)
    row.addWidget(button)
    column = QVBoxLayout(page)
    column.setContentsMargins(4, 4, 4, 4)
    column.addLayout(row)
    column.addWidget(chart, 1)
    return page
