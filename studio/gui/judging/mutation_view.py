"""Rubric testing (`mutationView`): mutation testing of the project's rubrics on the expert's reference
package, as `dbstudio mutate` runs it (studio.mutation; docs/rubric-testing.md).

The view opens on the last report (.dbstudio/mutation/report.json). Run plants the mutants of the kind
chosen and judges them on the one background helper, with the programmatic checks alone or with the judge
(a profile, the endpoint and the model, as in Judge…); Stop ends after the mutant under way, and Run again
goes on from there (the judge's verdicts are kept). The summary gives the reference's own scores; the
mutants table can be narrowed to the survivors (the rubric's gaps), and the selected mutant's details say
what it broke, where, why there and the criterion that would catch it; the criteria table says which
mutants each criterion kills."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.live_results import named_button, results_table, status_label
from studio.gui.base.tasks import Task, TaskRunner
from studio.gui.widgets.tables import HeadersTableModel

if TYPE_CHECKING:
    from studio.gui.base.project_context import ProjectContext
    from studio.mutation.report import MutantResult, MutationReport
    from studio.progress import Progress, ProgressReport

Index = QModelIndex | QPersistentModelIndex
EVERY_KIND = "Every kind"
STATUS_FILTERS = {"All mutants": None, "Survived (gaps)": "survived", "Killed": "killed",
                  "Undecided": "undecided", "Not run": "not run"}


def _buddy(text: str, field: QWidget, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setBuddy(field)
    return label


class MutantsModel(HeadersTableModel):
    HEADERS = ("Mutant", "Kind", "Scope", "Outcome", "Killed by", "Score drop")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.all: list[MutantResult] = []
        self.rows: list[MutantResult] = []
        self.status: str | None = None

    def set_results(self, results: list[MutantResult]) -> None:
        self.beginResetModel()
        self.all = results
        self._filter()
        self.endResetModel()

    def set_status(self, status: str | None) -> None:
        self.beginResetModel()
        self.status = status
        self._filter()
        self.endResetModel()

    def _filter(self) -> None:
        self.rows = [r for r in self.all if self.status is None or r.status == self.status]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        result = self.rows[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return str(result.mutant["broke"])
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        drop = "" if result.drop is None else f"{result.drop:.1f}"
        return (result.id, result.mutant["kind"], result.scope, result.status,
                ", ".join(result.killed_by), drop)[index.column()]


class KillsModel(HeadersTableModel):
    HEADERS = ("Criterion", "Mutants killed", "Which")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, list[str]]] = []

    def set_kills(self, kills: dict[str, list[str]]) -> None:
        self.beginResetModel()
        self.rows = sorted(kills.items(), key=lambda item: -len(item[1]))
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole or not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        key, ids = self.rows[index.row()]
        return (key, str(len(ids)), ", ".join(ids))[index.column()]


class MutationView(QWidget):
    """The last mutation report of the project, and mutation testing run from the window."""

    finished = Signal(object)
    """MutationReport: a run ended (done or stopped) and its report is shown."""

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None) -> None:
        from studio.gui.widgets.judge_fields import fill_profiles
        from studio.judging.client import default_base_url, default_model
        from studio.mutation.mutants import KINDS

        super().__init__(parent)
        self.setObjectName("mutationView")
        self.context = context
        self.runner = runner
        self.task: Task | None = None
        self.report: MutationReport | None = None
        self.unsaved = False  # the run started with unsaved edits (it tests the project as saved)

        self.kind_box = QComboBox(self)
        self.kind_box.setObjectName("mutationKind")
        self.kind_box.addItem(EVERY_KIND, None)
        for kind in KINDS:
            self.kind_box.addItem(kind, kind)
        self.use_judge = QCheckBox("With the &judge", self)
        self.use_judge.setObjectName("mutationUseJudge")
        self.use_judge.setToolTip("Without the judge only the criteria with a programmatic check are decided")
        self.profile_box = QComboBox(self)
        self.profile_box.setObjectName("mutationProfile")
        fill_profiles(self.profile_box, context.session.root)
        self.endpoint_edit = QLineEdit(default_base_url(), self)
        self.endpoint_edit.setObjectName("mutationEndpoint")
        self.model_edit = QLineEdit(default_model(), self)
        self.model_edit.setObjectName("mutationModel")
        for field in (self.profile_box, self.endpoint_edit, self.model_edit):
            field.setEnabled(False)
        self.use_judge.toggled.connect(self._judge_toggled)
        self.run_button = named_button("&Run", "mutationRun", self.start, self)
        self.run_button.setToolTip("Plant the mutants in the reference package and judge them")
        self.stop_button = named_button("S&top", "mutationStop", self.stop, self)
        self.stop_button.setEnabled(False)
        self.bar = QProgressBar(self)
        self.bar.setObjectName("mutationProgress")
        self.bar.setMaximumWidth(180)
        self.bar.hide()
        settings = QHBoxLayout()
        settings.addWidget(_buddy("&Kinds:", self.kind_box, self))
        settings.addWidget(self.kind_box)
        settings.addWidget(self.use_judge)
        settings.addWidget(self.profile_box, 1)
        settings.addWidget(self.endpoint_edit, 2)
        settings.addWidget(self.model_edit, 1)
        settings.addWidget(self.run_button)
        settings.addWidget(self.stop_button)
        settings.addWidget(self.bar)

        self.summary = status_label("mutationSummary", self)
        self.status = status_label("mutationStatus", self)
        self.filter_box = QComboBox(self)
        self.filter_box.setObjectName("mutationFilter")
        for label, status in STATUS_FILTERS.items():
            self.filter_box.addItem(label, status)
        self.filter_box.currentIndexChanged.connect(self._filter_changed)
        filters = QHBoxLayout()
        filters.addWidget(_buddy("&Show:", self.filter_box, self))
        filters.addWidget(self.filter_box)
        filters.addStretch(1)

        self.mutants = MutantsModel(self)
        self.mutants_table = results_table("mutationMutantsTable", self.mutants, self)
        self.mutants_table.selectionModel().currentRowChanged.connect(self._show_details)
        self.details = QTextBrowser(self)
        self.details.setObjectName("mutationDetails")
        self.kills = KillsModel(self)
        self.kills_table = results_table("mutationKillsTable", self.kills, self)
        for table in (self.mutants_table, self.kills_table):
            table.horizontalHeader().setStretchLastSection(True)
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.details)
        right.addWidget(self.kills_table)
        right.setStretchFactor(0, 2)
        right.setStretchFactor(1, 3)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setObjectName("mutationSplitter")
        split.addWidget(self.mutants_table)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.addLayout(settings)
        layout.addWidget(self.summary)
        layout.addLayout(filters)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)
        self.kind_box.setFocus()
        self._read_last()

    # -- the last report --------------------------------------------------------------------------
    def _read_last(self) -> None:
        from studio.mutation.report import read_report

        root = self.context.session.root
        self.status.setText("Reading the last mutation report…")
        self.runner.run("Reading the mutation report", lambda: read_report(root), self._show_last, self._failed)

    def _show_last(self, report: MutationReport | None) -> None:
        if report is None:
            self.summary.setText("No mutation report yet. Put the expert's own deliverables under "
                                 "evaluator/reference/ (docs/rubric-testing.md), then Run.")
            self.status.setText("")
            return
        self._show(report)
        self.status.setText(f"The report of {report.created}.")

    def _show(self, report: MutationReport) -> None:
        self.report = report
        counts = report.counts()

        def score(value: float | None) -> str:
            return "not known" if value is None else f"{value:.1f}"

        failing = [f"{scope}: {', '.join(result.failing)}" for scope, result in report.reference.items()
                   if result.failing]
        text = (f"Reference package: process {score(report.process)}, final {score(report.final)}"
                f"{' — fails its own rubric on ' + '; '.join(failing) if failing else ''}. "
                f"{len(report.mutants)} mutants: {counts['killed']} killed, {counts['survived']} survived, "
                f"{counts['undecided']} undecided"
                + (f", {counts['not run']} not run" if counts["not run"] else "")
                + (f". {report.judge}" if report.judge else ". Programmatic checks only (no judge)."))
        self.summary.setText(text)
        self.mutants.set_results(report.mutants)
        self.kills.set_kills({key: ids for key, ids in report.kills().items() if ids})
        self.details.clear()

    def _filter_changed(self) -> None:
        self.mutants.set_status(self.filter_box.currentData())
        self.details.clear()

    def _show_details(self, current: QModelIndex, _previous: QModelIndex) -> None:
        from html import escape

        if not current.isValid() or current.row() >= len(self.mutants.rows):
            self.details.clear()
            return
        result = self.mutants.rows[current.row()]
        mutant = result.mutant
        parts = [f"<h3>{escape(str(mutant['id']))}: {escape(str(mutant['kind']))}</h3>",
                 f"<p><b>Broke:</b> {escape(str(mutant['broke']))}</p>",
                 f"<p><b>Why there:</b> {escape(str(mutant['because']))}</p>",
                 f"<p><b>Changed:</b> {escape(', '.join(mutant['where']) or '-')}</p>"]
        if result.status == "killed":
            parts.append(f"<p><b>Killed by:</b> {escape(', '.join(result.killed_by))}</p>")
        elif result.status == "error":
            parts.append(f"<p><b>Could not be made:</b> {escape(result.error or '')}</p>")
        else:
            parts.append(f"<p><b>{escape(result.status.capitalize())}.</b></p>")
        parts.append(f"<p><b>A criterion that would catch it:</b> {escape(str(mutant['suggestion']))}</p>")
        self.details.setHtml("".join(parts))

    # -- running ----------------------------------------------------------------------------------
    def _judge_toggled(self, on: bool) -> None:
        for field in (self.profile_box, self.endpoint_edit, self.model_edit):
            field.setEnabled(on and self.task is None)

    def start(self) -> None:
        from studio.gui.widgets.judge_fields import read_fields
        from studio.mutation.runner import MutationProgress, mutate_project

        settings = None
        if self.use_judge.isChecked():
            settings = read_fields(self.context.session.root, self.profile_box, self.endpoint_edit, self.model_edit,
                                   self.status.setText)
            if settings is None:
                return
        kind = self.kind_box.currentData()
        kinds = [kind] if kind else None
        root = self.context.session.root

        def work(progress: Progress) -> MutationReport:
            def report(step: MutationProgress) -> None:
                progress.report(step.done, step.total, step.label)

            return mutate_project(root, settings, kinds, report, lambda: progress.cancelled)

        self._set_running(True)
        self.unsaved = self.context.modified
        self.status.setText("Planting the mutants and judging the reference…")
        self.task = self.runner.run_with_progress("Testing the rubrics", work, self._done, self._failed,
                                                  self._progressed)

    def stop(self) -> None:
        if self.task is not None:
            self.task.stop()
            self.stop_button.setEnabled(False)
            self.status.setText("Stopping after the mutant under way…")

    def _progressed(self, report: ProgressReport) -> None:
        self.bar.setRange(0, report.total or 0)
        self.bar.setValue(report.done)
        if self.task is not None and not self.task.stopping:
            self.status.setText(f"{report.done} of {report.total}: {report.text}")

    def _done(self, report: MutationReport) -> None:
        self._set_running(False)
        self._show(report)
        text = ("Stopped: what was judged is kept; Run again to go on." if report.cancelled else
                f"Done: the report of {report.created}. Survivors are also in Findings (Review).")
        if self.unsaved:
            text += " The rubrics were tested as last saved: save your edits and Run again to test them."
        self.status.setText(text)
        self.finished.emit(report)

    def _failed(self, error: StudioError) -> None:
        self._set_running(False)
        self.status.setText(str(error))

    def _set_running(self, running: bool) -> None:
        self.bar.setVisible(running)
        self.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.kind_box.setEnabled(not running)
        self.use_judge.setEnabled(not running)
        if not running:
            self.task = None
        for field in (self.profile_box, self.endpoint_edit, self.model_edit):
            field.setEnabled(not running and self.use_judge.isChecked())
