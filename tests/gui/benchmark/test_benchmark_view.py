"""The Benchmark window over the benchmark of tests/benchmark/test_benchmark_file.py (two copies of
the blank template, systems claude and codex; claude's run on p01 completed and judged in full,
codex's failed at T02 with 2 verdicts missing, claude's outcome on p02 naming nothing, codex not
started on p02): the grid shows each pair as `dbstudio benchmark status` does, Table 5 as `benchmark
report` does, a broken file its located problems; from the window, a cell opens its project and its
runs, and its menu the project's Scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QTableView

from studio.gui.base.tasks import TaskRunner
from studio.gui.benchmark.view import STATE_COLOURS, BenchmarkView
from tests.benchmark.test_benchmark_file import written_bench
from tests.helpers import run_cli


@pytest.fixture
def bench(tmp_path: Path, capsys) -> Path:
    return written_bench(tmp_path / "suite", capsys)


def open_view(qtbot, path: Path) -> BenchmarkView:
    view = BenchmarkView(path, TaskRunner())
    qtbot.addWidget(view)
    view.resize(1366, 700)
    with qtbot.waitSignal(view.computed, timeout=30000):
        view.show()
    return view


def cells(table: QTableView) -> list[list[str]]:
    model = table.model()
    return [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]


def test_the_grid_shows_every_pair_as_benchmark_status_does(qtbot, bench: Path, capsys):
    view = open_view(qtbot, bench)
    grid = view.findChild(QTableView, "benchmarkGrid")
    model = grid.model()
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(2)] == ["claude", "codex"]
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in range(2)] == ["kestrel-p01", "kestrel-p02"]
    code, out, _ = run_cli(capsys, "benchmark", "status", str(bench), "--format", "json")
    assert code == 0
    expected = {(p["project"], p["system"]): p for p in json.loads(out)["pairs"]}
    shown = cells(grid)
    assert shown[0][0] == "completed, scored, 2 attempts"
    assert shown[0][1] == "failed: the agent exited 1 at T02, judged, 2 of 9 verdicts missing"
    assert shown[1][0].startswith("missing: no run or submission 20261201-000000-nothere")
    assert shown[1][1] == "not started"
    assert {(p, s) for p, s in expected} == {(model.headerData(r, Qt.Orientation.Vertical),
                                              model.headerData(c, Qt.Orientation.Horizontal))
                                             for r in range(2) for c in range(2)}
    colour = model.index(0, 0).data(Qt.ItemDataRole.BackgroundRole).color().name()
    assert colour == STATE_COLOURS["scored"] and \
        model.index(0, 1).data(Qt.ItemDataRole.BackgroundRole).color().name() == STATE_COLOURS["failed"]
    assert "1 of 4 pairs scored" in view.status.text()
    assert "Claude Opus 5 / Claude Code" == model.headerData(0, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)


def test_table5_shows_the_reports_numbers(qtbot, bench: Path, capsys):
    view = open_view(qtbot, bench)
    code, out, _ = run_cli(capsys, "benchmark", "report", str(bench), "--format", "json")
    report = json.loads(out)
    rows = {row[0]: row[1:] for row in cells(view.findChild(QTableView, "benchmarkTable5"))}
    # claude on p01: run-a's final score, 80 by hand (tests/judging/scored_runs.py)
    assert report["projects"]["kestrel-p01"]["claude"]["final"] == 80.0 and rows["kestrel-p01"][0] == "80.00"
    assert rows["final, own"][0] == "80.00"
    view.matrix.setCurrentIndex(view.matrix.findData("process"))
    rows = {row[0]: row[1:] for row in cells(view.findChild(QTableView, "benchmarkTable5"))}
    assert rows["kestrel-p01"][0] == "90.00"  # run-a's process score: (100 + 80) / 2
    assert "Shared project set: none." in view.shared_note.text()


def test_a_broken_file_shows_its_located_problems(qtbot, bench: Path):
    bench.write_text(bench.read_text().replace("  - id: codex\n", "  - id: claude\n"))
    view = open_view(qtbot, bench)
    problems = [view.problems.item(i).text() for i in range(view.problems.count())]
    assert view.problems.isVisible() and not view.tabs.isVisible()
    assert any("system id 'claude' is used twice" in p for p in problems)
    assert all(p.startswith(str(bench)) for p in problems)
    assert "problem(s) in benchmark.yaml" in view.status.text()


def test_from_the_window_a_cell_opens_its_project_and_its_runs_then_its_scores(qtbot, bench: Path, monkeypatch):
    from studio.gui.main_window import MainWindow
    from tests.gui.shell_support import git_identity

    git_identity(monkeypatch)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    assert window.findChild(QAction, "benchmarkOpenAction").isEnabled()  # no project needed
    view = window.benchmark.open_benchmark(bench.parent)
    assert view is not None and window.editor_tabs.currentWidget() is view
    qtbot.waitUntil(lambda: view.overview is not None, timeout=30000)
    with qtbot.waitSignal(window.project_opened, timeout=30000):
        view.grid.doubleClicked.emit(view.grid_model.index(0, 1))  # codex on kestrel-p01
    assert Path(window.context.session.root).resolve() == (bench.parent / "p01").resolve()
    qtbot.waitUntil(lambda: window.shell.dock("runsDock").isVisible(), timeout=10000)
    window.benchmark.open_pair(bench.parent / "p01", "scores")  # the cell menu's "Show its scores"
    assert window.editor_tabs.currentWidget().objectName() == "scoresView"
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=30000)


def test_the_figures_tab_shows_the_figures_report_writes(qtbot, bench: Path, capsys, tmp_path: Path):
    from studio.benchmark.figures import FIGURES

    view = open_view(qtbot, bench)
    picker = view.figure_box
    assert [picker.itemData(i) for i in range(picker.count())] == list(FIGURES)
    code, _, err = run_cli(capsys, "benchmark", "report", str(bench), "--out", str(tmp_path / "out"))
    assert code == 0, err
    with qtbot.waitSignal(view.figure_drawn, timeout=30000):
        view.tabs.setCurrentIndex(2)
    for number, name in enumerate(FIGURES):
        if name not in view.figures:
            with qtbot.waitSignal(view.figure_drawn, timeout=30000):
                picker.setCurrentIndex(number)
        assert view.figure.png == (tmp_path / "out" / f"{name}.png").read_bytes()  # the same picture, byte for byte


@pytest.fixture
def drawings(monkeypatch) -> list[str]:
    """The figures rendered from now on, by format, as they are drawn."""
    from studio.benchmark import figures

    made: list[str] = []
    real = figures.rendered

    def counted(figure, form: str) -> bytes:  # type: ignore[no-untyped-def]
        made.append(form)
        return real(figure, form)

    monkeypatch.setattr(figures, "rendered", counted)
    return made


def test_the_grid_is_shown_before_the_report_is_scored(qtbot, bench: Path):
    view = BenchmarkView(bench, TaskRunner())
    qtbot.addWidget(view)
    seen: list[tuple[object, list[list[str]]]] = []
    view.pairs_shown.connect(lambda: seen.append((view.overview.report, cells(view.grid))))
    with qtbot.waitSignal(view.computed, timeout=30000):
        view.show()
    assert len(seen) == 1 and seen[0][0] is None  # the grid came first, with no report yet
    assert seen[0][1] == cells(view.grid) and seen[0][1][0][0] == "completed, scored, 2 attempts"
    assert view.overview.report is not None and view.overview.report.pairs == view.overview.status
    assert cells(view.table5)[0][1] == "80.00"


def test_the_grid_and_table5_are_shown_before_any_figure_is_drawn(qtbot, bench: Path, drawings: list[str]):
    view = open_view(qtbot, bench)
    assert cells(view.grid)[0][0] == "completed, scored, 2 attempts"
    assert {row[0] for row in cells(view.table5)} >= {"kestrel-p01", "final, own"}
    qtbot.waitUntil(lambda: not view.runner.busy, timeout=30000)
    assert drawings == [] and view.figures == {}  # the Figures tab was never shown: nothing drawn


def test_a_figure_is_drawn_the_first_time_the_figures_tab_shows_it_and_only_then(qtbot, bench: Path,
                                                                                  drawings: list[str]):
    view = open_view(qtbot, bench)
    with qtbot.waitSignal(view.figure_drawn, timeout=30000) as drawn:
        view.tabs.setCurrentIndex(view.tabs.indexOf(view.figures_page))
    assert drawn.args == ["fig5a"] and drawings == ["png"] and view.figure.png == view.figures["fig5a"]
    view.tabs.setCurrentIndex(0)
    view.tabs.setCurrentIndex(view.tabs.indexOf(view.figures_page))  # shown again: kept, not drawn again
    view.figure_box.setCurrentIndex(view.figure_box.findData("fig5a"))
    assert drawings == ["png"]
    with qtbot.waitSignal(view.figure_drawn, timeout=30000) as drawn:
        view.figure_box.setCurrentIndex(view.figure_box.findData("fig9"))
    assert drawn.args == ["fig9"] and drawings == ["png", "png"] and view.figure.png == view.figures["fig9"]
    with qtbot.waitSignal(view.computed, timeout=30000):
        view.refresh()  # a new report: its figures are drawn afresh, the one shown at once
    qtbot.waitUntil(lambda: "fig9" in view.figures, timeout=30000)
    assert len(drawings) == 3 and view.figure.png == view.figures["fig9"]
