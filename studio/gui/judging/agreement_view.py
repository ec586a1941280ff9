"""The agreement dashboard (`agreementView`): how far the judge and the experts agree on the
decisions of the verdict store, pooled and by target and dimension, with the statistics of
studio.agreement (percent agreement with its interval, Cohen's kappa, Gwet's AC1, Krippendorff's
alpha, cluster-bootstrap intervals) and the chart of studio/agreement/plot.py, exportable as PNG.

The analysis and its bootstrap run on the TaskRunner: the window stays responsive and a busy bar
shows while they run. They run when the dashboard opens, when its settings change (judge,
resamples, seed: on Compute) and when the verdict store changes on disk."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.live_results import StoreView, named_button, results_table, status_label
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.reviewer_widgets import table_over_charts
from studio.gui.judging.scores_models import AgreementModel
from studio.gui.judging.scores_view import busy_bar, fill_judges, judge_picker, picked_judge
from studio.gui.widgets.chart_view import ChartView, export_png, save_to

if TYPE_CHECKING:
    from studio.gui.base.project_context import ProjectContext
    from studio.judging.dashboards import AgreementResult

DEFAULT_RESAMPLES = 1000  # stable 95% intervals (docs/agreement.md)
MAX_RESAMPLES = 100_000
REPORT_FILTER = "Excel workbook (*.xlsx);;JSON (*.json)"


class AgreementView(StoreView):
    computed = Signal()
    """A newly computed analysis (or the reason there is none) is shown."""

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None,
                 resamples: int = DEFAULT_RESAMPLES) -> None:
        super().__init__(context, runner, parent)
        self.setObjectName("agreementView")
        self.result: AgreementResult | None = None

        self.judge_box = judge_picker("agreementJudgePicker", self, None)
        self.judge_box.setToolTip("The judge compared with the experts")
        self.judge_box.currentIndexChanged.connect(lambda _: self.refresh())
        self.resamples = QSpinBox(self)
        self.resamples.setObjectName("agreementResamples")
        self.resamples.setRange(0, MAX_RESAMPLES)
        self.resamples.setSingleStep(500)
        self.resamples.setValue(resamples)
        self.resamples.setToolTip("Cluster-bootstrap resamples of whole items for the 95% intervals (0: none)")
        self.seed = QSpinBox(self)
        self.seed.setObjectName("agreementSeed")
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setToolTip("The bootstrap's random seed: the same seed gives the same intervals")
        self.compute_button = named_button("Compute", "agreementComputeButton", self.refresh, self)
        self.export_chart_button = named_button("Export PNG…", "exportAgreementChartButton", self.export_chart, self)
        self.export_report_button = named_button("Export report…", "exportAgreementReportButton", self.export_report,
                                                 self)
        self.busy = busy_bar("agreementBusy", self)
        self.status = status_label("agreementStatus", self)

        self.model = AgreementModel(self)
        self.table = results_table("agreementTable", self.model, self)
        self.chart = ChartView("agreementChart", "The agreement chart appears once a judge and an expert have "
                                                 "rated the same decisions.", self)

        # two rows: in one, the busy bar and a long status made the tab wider than a 1,366 px screen
        controls = QHBoxLayout()
        for widget in (QLabel("Judge:", self), self.judge_box, QLabel("Resamples:", self), self.resamples,
                       QLabel("Seed:", self), self.seed, self.compute_button, self.busy):
            controls.addWidget(widget)
        controls.addStretch(1)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.export_report_button)
        status_row.addWidget(self.export_chart_button)
        self.splitter, self.blind_note = table_over_charts(self, context.rater_identity(), [controls, status_row],
                                                           self.table, self.chart, "agreement", "the agreement")
        self._update_buttons()

        # blind review: a rater sees the agreement over the decisions they rated (studio.judging.visibility)
        context.rater_identity().changed.connect(self._store_changed)
        self.watch_store()

    def judge(self) -> str | None:
        return picked_judge(self.judge_box)

    def refresh(self) -> None:
        """Compute the analysis again in the background (the latest request wins)."""
        from studio.judging.dashboards import compute_agreement

        root, project = self.context.session.root, self.context.session.loaded.project
        judge, resamples, seed = self.judge(), self.resamples.value(), self.seed.value()
        viewer = self.context.rater_identity().viewer()
        self.busy.show()
        self.compute_button.setEnabled(False)
        self.status.setText(f"Computing agreement{f' with {resamples:,} bootstrap resamples' if resamples else ''}…")
        self.latest.start("Computing agreement", lambda: compute_agreement(root, project, judge, resamples, seed, viewer),
                          self._done, self._failed)

    def _done(self, result: AgreementResult) -> None:
        self.busy.hide()
        self.compute_button.setEnabled(True)
        self.result = result
        fill_judges(self.judge_box, result.judges, None, result.judge)
        self.model.set_report(result.report)
        self._fit_table()
        self.chart.set_png(result.png)
        report = result.report
        text = (f"{report.decisions} decisions on {report.items} items ({report.pooled.get('n', 0)} rated by two "
                f"raters or more) by {', '.join(report.raters)}"
                + (f"; {report.bootstrap['resamples']:,} bootstrap resamples (seed {report.bootstrap['seed']})"
                   if report.bootstrap else "; no bootstrap"))
        if result.left_out:
            text += f". Left out: {result.left_out}"
        self.status.setText(text)
        self._update_buttons()
        self.computed.emit()

    def _fit_table(self) -> None:
        """Room for every row of the table (pooled, targets, dimensions: a dozen at most); the chart
        takes the rest."""
        rows = self.model.rowCount()
        wanted = self.table.horizontalHeader().height() + rows * self.table.verticalHeader().defaultSectionSize() + 6
        total = sum(self.splitter.sizes())
        if total > 0:
            wanted = min(wanted, total // 2)
            self.splitter.setSizes([wanted, total - wanted])

    def _failed(self, error: StudioError) -> None:
        self.busy.hide()
        self.compute_button.setEnabled(True)
        self.result = None
        self.model.set_report(None)
        self.chart.show_text(str(error))
        self.status.setText(str(error).splitlines()[0])
        self._update_buttons()
        self.computed.emit()

    def _update_buttons(self) -> None:
        self.export_chart_button.setEnabled(self.chart.png is not None)
        self.export_report_button.setEnabled(self.result is not None)

    def export_chart(self) -> None:
        export_png(self, self.chart, str(self.context.session.root / "agreement.png"), self.status)

    def export_report(self) -> None:
        """The whole report as the Excel workbook or the JSON of `dbstudio agreement`."""
        import json

        from studio.agreement.report import write_xlsx

        if self.result is None:
            return
        suggested = str(self.context.session.root / "agreement.xlsx")
        name, chosen = QFileDialog.getSaveFileName(self, "Export", suggested, REPORT_FILTER)
        if not name:
            return
        as_json = name.lower().endswith(".json") or (not name.lower().endswith(".xlsx") and "JSON" in chosen)
        try:
            if as_json:
                save_to(Path(name), json.dumps(self.result.report.to_json(), indent=2).encode("utf-8"))
            else:
                write_xlsx(self.result.report, name)
        except OSError as exc:
            self.status.setText(f"{name}: cannot write it ({getattr(exc, 'strerror', None) or exc})")
            return
        except StudioError as error:
            self.status.setText(str(error))
            return
        self.status.setText(f"Report written to {name}")
