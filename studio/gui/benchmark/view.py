"""The Benchmark window (`benchmarkView`, a tab of the editor area): a benchmark.yaml's pairs and
its Table 5, computed on the background helper (studio/benchmark/overview.py), as `dbstudio
benchmark status` and `dbstudio benchmark report` give them.

- `benchmarkGrid`: projects down, systems across; each cell the pair's status (its run, its judging,
  its attempts), coloured by how far it got. Double-click a cell (or Enter) to open that project in
  the window with its runs; its context menu opens the project's Review or Scores instead.
- `benchmarkTable5`: the final or process matrix (`benchmarkMatrix`), then each system's means over
  its own known projects and over the shared set; `benchmarkSharedNote` names what the shared set
  leaves out.
- `benchmarkFigure`: the paper's figures (`benchmarkFigurePicker`: 5a-5f and 9), the same PNGs
  `dbstudio benchmark report --out` writes, each drawn in the background the first time it is shown
  (the grid and Table 5 do not wait for them).
- `benchmarkProblems`: while the file has problems, each one (file:line:column) instead of the rest.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMenu,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.live_results import LatestTask, named_button, results_table, status_label
from studio.gui.base.tasks import TaskRunner
from studio.gui.widgets.chart_view import ChartView

if TYPE_CHECKING:
    from studio.benchmark.overview import BenchmarkOverview
    from studio.benchmark.status import PairStatus

Index = QModelIndex | QPersistentModelIndex
FIGURE_TITLES = {"fig5a": "5a: final score by system", "fig5b": "5b: process vs final (the gap)",
                 "fig5c": "5c: every pair, process against final", "fig5d": "5d: resources per project",
                 "fig5e": "5e: final rubric by dimension", "fig5f": "5f: final rubric by target",
                 "fig9": "9: trajectories, projects x systems"}

# how far a pair got, as a cell's background: light enough for the text on it in either palette
STATE_COLOURS = {"scored": "#cdebd0", "judged": "#f6e7b4", "not judged": "#e4ecf7", "failed": "#f4c7c3",
                 "missing": "#f4c7c3", "cancelled": "#f4c7c3", "interrupted": "#f6d6b4", "running": "#d4e4f7",
                 "pending": "#e8e8e8", "not started": "#efefef"}


class BenchmarkGridModel(QAbstractTableModel):
    """Projects x systems; each cell a pair's status."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.projects: list[str] = []
        self.systems: list[str] = []
        self.names: dict[str, str] = {}
        self.pairs: dict[tuple[str, str], PairStatus] = {}

    def set_overview(self, overview: BenchmarkOverview | None) -> None:
        self.beginResetModel()
        benchmark = overview.loaded.benchmark if overview is not None and overview.status is not None else None
        self.projects = list(overview.loaded.projects) if overview is not None and benchmark is not None else []
        self.systems = [s.id for s in benchmark.systems] if benchmark is not None else []
        self.names = {s.id: s.name for s in benchmark.systems} if benchmark is not None else {}
        self.pairs = overview.pairs if overview is not None else {}
        self.endResetModel()

    def pair(self, index: Index) -> PairStatus | None:
        if not index.isValid():
            return None
        return self.pairs.get((self.projects[index.row()], self.systems[index.column()]))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.projects)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.systems)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        names = self.systems if orientation == Qt.Orientation.Horizontal else self.projects
        if not 0 <= section < len(names):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return names[section]
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal:
            return self.names.get(names[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        pair = self.pair(index)
        if pair is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return pair.text
        if role == Qt.ItemDataRole.ToolTipRole:
            submission = pair.outcome.submission if pair.outcome is not None else "no outcome yet"
            return f"{pair.system} on {pair.project}: {submission}\n{pair.text}"
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(QColor(STATE_COLOURS.get(pair.state, "#ffffff")))
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor("#1a1a1a"))
        return None


class Table5Model(QAbstractTableModel):
    """The chosen matrix (final or process), projects down, then the means rows."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, list[str]]] = []
        self.systems: list[str] = []
        self.first_mean = 0

    def set_rows(self, systems: list[str], rows: list[tuple[str, list[str]]], first_mean: int) -> None:
        self.beginResetModel()
        self.systems, self.rows, self.first_mean = systems, rows, first_mean
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.systems) + 1

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        return "project" if section == 0 else self.systems[section - 1] if section <= len(self.systems) else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        label, cells = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return label if index.column() == 0 else cells[index.column() - 1]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and index.row() >= self.first_mean:
            from PySide6.QtGui import QFont

            font = QFont()
            font.setBold(True)
            return font
        return None


def picker(name: str, items: dict[str, str], parent: QWidget) -> QComboBox:
    """A combo box of `items` (data -> title) named `name`."""
    box = QComboBox(parent)
    box.setObjectName(name)
    for data, title in items.items():
        box.addItem(title, data)
    return box


def picker_page(label: str, box: QComboBox, body: list[QWidget], parent: QWidget) -> QWidget:
    """A tab page: `label` and its picker on top, then `body` (the first widget takes the room)."""
    page = QWidget(parent)
    layout = QVBoxLayout(page)
    row = QHBoxLayout()
    row.addWidget(QLabel(label, page))
    row.addWidget(box)
    row.addStretch(1)
    layout.addLayout(row)
    for number, widget in enumerate(body):
        widget.setParent(page)
        layout.addWidget(widget, 1 if number == 0 else 0)
    return page


class BenchmarkView(QWidget):
    """objectName `benchmarkView`; see the module's docstring for its parts."""

    pairs_shown = Signal()
    """The grid shows every pair's status (or the file's problems); Table 5 follows."""
    computed = Signal()
    """A new overview with its report (or the reason there is none) is shown."""
    figure_drawn = Signal(str)
    """The figure of that name (fig5a ...) is drawn for the shown report and on the Figures page."""
    open_requested = Signal(object, str)
    """(a project folder, what to show: "runs", "review" or "scores"), for the feature to open."""

    def __init__(self, path: Path, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("benchmarkView")
        self.path = Path(path)
        self.runner = runner
        self.latest = LatestTask(runner, self)
        self.overview: BenchmarkOverview | None = None
        self.figures: dict[str, bytes] = {}  # name -> PNG, drawn for the shown report
        self.drawing = LatestTask(runner, self)
        self.drawing_name: str | None = None

        self.title = QLabel(self)
        self.title.setObjectName("benchmarkTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.reload_button = named_button("Reload", "benchmarkReload", self.refresh, self)
        self.status = status_label("benchmarkStatus", self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("benchmarkTabs")

        self.grid_model = BenchmarkGridModel(self)
        self.grid = results_table("benchmarkGrid", self.grid_model, self)
        self.grid.verticalHeader().setVisible(True)
        self.grid.setSelectionBehavior(self.grid.SelectionBehavior.SelectItems)
        self.grid.setWordWrap(True)
        self.grid.doubleClicked.connect(lambda index: self._open(index, "runs"))
        self.grid.activated.connect(lambda index: self._open(index, "runs"))
        self.grid.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.grid.customContextMenuRequested.connect(self._menu)
        self.tabs.addTab(self.grid, "Pairs")

        self.matrix = picker("benchmarkMatrix", {"final": "Final score", "process": "Process score"}, self)
        self.matrix.currentIndexChanged.connect(lambda _: self._fill_table5())
        self.table5_model = Table5Model(self)
        self.table5 = results_table("benchmarkTable5", self.table5_model, self)
        self.shared_note = status_label("benchmarkSharedNote", self)
        self.tabs.addTab(picker_page("Matrix:", self.matrix, [self.table5, self.shared_note], self), "Table 5")

        self.figure_box = picker("benchmarkFigurePicker", FIGURE_TITLES, self)
        self.figure_box.currentIndexChanged.connect(lambda _: self._show_figure())
        self.figure = ChartView("benchmarkFigure", "The figures appear once the benchmark is read.", self)
        self.figures_page = picker_page("Figure:", self.figure_box, [self.figure], self)
        self.tabs.addTab(self.figures_page, "Figures")
        self.tabs.currentChanged.connect(lambda _: self._show_figure())

        self.problems = QListWidget(self)
        self.problems.setObjectName("benchmarkProblems")
        self.problems.hide()

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.reload_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.problems, 1)
        layout.addWidget(self.tabs, 4)
        self.title.setText(str(self.path))
        self.refresh()

    def refresh(self) -> None:
        """Read the file, its projects, runs and verdicts again in the background (the latest wins):
        every pair's status first, for the grid, then the report from the same reading."""
        from studio.benchmark.overview import benchmark_pairs

        path = self.path
        self.reload_button.setEnabled(False)
        self.status.setText(f"Reading {path.name} and its projects…")
        self.latest.start(f"Reading {path.name}", lambda: benchmark_pairs(path), self._pairs_read, self._failed)

    def _pairs_read(self, overview: BenchmarkOverview) -> None:
        from studio.benchmark.overview import with_report

        self.overview = overview
        loaded, benchmark = overview.loaded, overview.loaded.benchmark
        self.problems.clear()
        for finding in loaded.findings:
            self.problems.addItem(f"{loaded.root / finding.file}:{finding.line}:{finding.column}: "
                                  f"{finding.severity.value}: {finding.message}")
        broken = overview.status is None
        self.problems.setVisible(bool(loaded.findings))
        self.tabs.setVisible(not broken)
        if benchmark is not None:
            judge = benchmark.judge_rater or "every judge"
            self.title.setText(f"{benchmark.title} ({benchmark.id}): {len(loaded.projects)} projects × "
                               f"{len(benchmark.systems)} systems, scored by {judge} — {self.path}")
        self.grid_model.set_overview(overview)
        self.grid.resizeColumnsToContents()
        self.grid.resizeRowsToContents()
        self._fill_table5()
        self.figures = {}
        self.drawing.cancel()
        self.drawing_name = None
        self._show_figure()
        self.pairs_shown.emit()
        if broken:
            self.reload_button.setEnabled(True)
            self.status.setText(f"{len(loaded.errors)} problem(s) in {self.path.name}: fix them, then Reload")
            self.computed.emit()
            return
        self.status.setText(f"{self._scored_text()} Scoring Table 5…")
        self.latest.start(f"Scoring {self.path.name}", lambda: with_report(overview), self._done, self._failed)

    def _done(self, overview: BenchmarkOverview) -> None:
        self.reload_button.setEnabled(True)
        self.overview = overview
        self._fill_table5()
        self._show_figure()
        self.status.setText(f"{self._scored_text()} Double-click a pair to open its project and runs; its menu "
                            "opens the Review or the Scores.")
        self.computed.emit()

    def _scored_text(self) -> str:
        pairs = list(self.overview.pairs.values()) if self.overview is not None else []
        scored = sum(1 for p in pairs if p.judging == "scored")
        return f"{scored} of {len(pairs)} pairs scored."

    def _failed(self, error: StudioError) -> None:
        self.reload_button.setEnabled(True)
        self.overview = None
        self.figures = {}
        self.drawing.cancel()
        self.drawing_name = None
        self._show_figure()
        self.grid_model.set_overview(None)
        self.table5_model.set_rows([], [], 0)
        self.status.setText(str(error).splitlines()[0])
        self.computed.emit()

    def _show_figure(self) -> None:
        """The picked figure on the Figures page: drawn in the background the first time the page shows
        it (matplotlib takes seconds over a paper-scale grid: the grid and Table 5 never wait for it)."""
        report = self.overview.report if self.overview is not None else None
        name = str(self.figure_box.currentData())
        if report is None:
            self.figure.show_text("No figure: the benchmark has problems, or was not read yet." if self.overview is None
                                  or self.overview.status is None else "The figures follow Table 5's scores…")
            return
        if name in self.figures:
            self.figure.set_png(self.figures[name])
            return
        self.figure.show_text(f"Drawing {FIGURE_TITLES.get(name, name)}…")
        if self.tabs.currentWidget() is not self.figures_page or self.drawing_name == name:
            return
        from studio.benchmark.overview import figure_png

        self.drawing_name = name
        self.drawing.start(f"Drawing figure {name}", lambda: figure_png(report, name),
                           functools.partial(self._drawn, name), self._not_drawn)

    def _drawn(self, name: str, png: bytes) -> None:
        self.drawing_name = None
        self.figures[name] = png
        if str(self.figure_box.currentData()) == name:
            self.figure.set_png(png)
        else:
            self._show_figure()  # another figure was picked meanwhile: draw it next
        self.figure_drawn.emit(name)

    def _not_drawn(self, error: StudioError) -> None:
        self.drawing_name = None
        self.figure.show_text(f"The figure could not be drawn: {error}")

    def _fill_table5(self) -> None:
        from studio.benchmark.report import cell_text, means_rows

        report = self.overview.report if self.overview is not None else None
        if report is None:
            self.table5_model.set_rows([], [], 0)
            self.shared_note.setText("")
            return
        key = str(self.matrix.currentData())
        rows = [(project, [cell_text(report, project, system, key) for system in report.systems])
                for project in report.projects]
        first_mean = len(rows)
        rows += [(label, ["—" if v is None else f"{v:.2f}" for v in values]) for label, values in means_rows(report)]
        self.table5_model.set_rows(list(report.systems), rows, first_mean)
        self.table5.resizeColumnsToContents()
        shared = report.shared
        note = f"Shared project set: {', '.join(shared.projects) or 'none'}."
        if shared.left_out:
            note += " Left out: " + "; ".join(f"{p} (no known final score for {', '.join(s)})"
                                              for p, s in shared.left_out.items()) + "."
        self.shared_note.setText(note)

    def folder_of(self, project: str) -> Path | None:
        if self.overview is None or project not in self.overview.loaded.projects:
            return None
        return self.overview.loaded.projects[project].folder

    def _open(self, index: QModelIndex, what: str) -> None:
        if not index.isValid():
            return
        folder = self.folder_of(self.grid_model.projects[index.row()])
        if folder is not None:
            self.open_requested.emit(folder, what)

    def _menu(self, point: QPoint) -> None:
        index = self.grid.indexAt(point)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.setObjectName("benchmarkCellMenu")
        for label, what in (("Open the project's runs", "runs"), ("Review its verdicts", "review"),
                            ("Show its scores", "scores")):
            menu.addAction(label, functools.partial(self._open, index, what))
        menu.popup(self.grid.viewport().mapToGlobal(point))
