"""The authoring app's responsiveness, offscreen, each figure beside a floor measured in the same run.

1. Cold start of `dbstudio gui SAMPLE` (`run_app` in a child process), two figures against one
   floor, a child that shows an empty `QMainWindow` until its first paint: (a) to the first shown
   window, i.e. the main window's first paint event (menus, toolbar, empty docks, "Opening
   Kestrel…"), goal <= 3x the floor; (b) to an interactive window with the sample loaded
   (`project_opened`, its events processed), goal <= 3x the same floor (issue 21).
2. Free-text filter per keystroke on the 5,000-criterion project (bench/review_bench.py's large
   project: 10,012 rows with the final rubric's reuses): a realistic word typed key by key into
   `rubricFilter` of a shown RubricEditor, timed from the key event until the proxy has filtered
   and the view has processed its events; floor: the same keys into a QLineEdit driving Qt's own
   C++ fixed-string filter (QSortFilterProxyModel over a QStandardItemModel of the same id, text
   and reviewer strings). Goal: <= 50 ms at the 95th percentile.
3. One weight edit through the undo stack including the atomic write (`context.push` of
   `set_criterion_field` + `context.save()`), on the sample and on a checkpoint rubric of the
   paper-scale project; floor: a bare `write_atomic` of the same file. Goal: <= 50 ms.
4. Opening a paper-scale project (one project of 150 subtasks, about 4,300 criteria, made with
   review_bench's generator) to an interactive window: `MainWindow().open_project(folder)` until
   `project_opened`; floor: the core's own `load_project` + `validate_loaded` of it. Goal: <= 2 s
   and <= 1.5x the floor. The rubric editor's own share (RubricEditor over the opened project,
   shown) is printed beside it.

Sides alternate which goes first each round and ratios are paired per round; min / median / max
are printed. Every answer is checked (window title, rows the filter shows against a count made
without Qt, the weight on disk, the project opened) and the script exits 1 if any is wrong.
Usage: QT_QPA_PLATFORM=offscreen python bench/gui_bench.py [--rounds N] [--only SECTION]
(SECTION: cold-start, filter, edit or open)
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.processes import compile_bytecode, python_child, spread  # noqa: E402
from bench.review_bench import (  # noqa: E402
    CHECKPOINT_CRITERIA,
    CROSS_FILE,
    MATERIALS,
    PACKAGE,
    REUSED,
    SUBTASKS,
    make_large_project,
    make_project,
)

SAMPLE = ROOT / "projects" / "kestrel-refinancing"
WORDS_TYPED = ("covenant", "headroom")
GOAL_START_RATIO = 3.0
GOAL_KEY_MS = 50.0
GOAL_EDIT_MS = 50.0
GOAL_OPEN_S, GOAL_OPEN_RATIO = 2.0, 1.5
SECTIONS = ("cold-start", "filter", "edit", "open")

wrong: list[str] = []


def check(ok: bool, problem: str) -> None:
    if not ok and problem not in wrong:
        wrong.append(problem)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def line(label: str, own: list[float], floor: list[float], ratios: list[float], unit: str = "ms") -> None:
    scale = 1000 if unit == "ms" else 1
    print(f"  {label}: median {statistics.median(own) * scale:.1f} {unit} (max {max(own) * scale:.1f}), "
          f"floor {statistics.median(floor) * scale:.1f} {unit}; paired ratio {spread(ratios)}")


# -- 1. cold start ---------------------------------------------------------------------------
# Each child prints the monotonic clock (time.perf_counter, the same clock in every process on
# Linux) at the window's first paint and, for the app, when `project_opened` has come; the parent
# subtracts the moment it started the child. A paint event is what a user first sees: `show()`
# alone only queues it.
_CHILD_SETUP = """
import os, sys, tempfile, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QEvent, QObject, QSettings
from PySide6.QtWidgets import QApplication
QSettings.setDefaultFormat(QSettings.Format.IniFormat)
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
HEAVY = ("pydantic", "git", "ruamel", "openpyxl", "numpy", "matplotlib", "studio.store.loader", "studio.review")

class Stamps(QObject):
    def __init__(self, wait_for_project):
        super().__init__()
        self.painted = self.opened = None
        self.cpu_painted = self.cpu_opened = None  # the process's CPU seconds (all threads) at each
        self.wait_for_project = wait_for_project
        self.heavy_at_paint = []
        self.title = ""

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and self.painted is None:
            self.painted = time.perf_counter()
            self.cpu_painted = time.process_time()
            self.heavy_at_paint = [name for name in HEAVY if name in sys.modules]
            self.visible = watched.isVisible()
            self.done()
        return False

    def on_opened(self, folder):
        QApplication.processEvents()  # the explorer and title drawn: the window is interactive
        self.opened = time.perf_counter()
        self.cpu_opened = time.process_time()
        self.folder = folder
        self.done()

    def done(self):
        if self.painted is None or (self.wait_for_project and self.opened is None):
            return
        print(self.visible, self.painted, self.opened, ",".join(self.heavy_at_paint) or "-", self.cpu_painted,
              self.cpu_opened, flush=True)
        print(getattr(self, "folder", ""), flush=True)
        print(self.title, flush=True)
        os._exit(0)
"""

EMPTY_CHILD = _CHILD_SETUP + """
from PySide6.QtWidgets import QMainWindow
app = QApplication(sys.argv[:1])
stamps = Stamps(False)
window = QMainWindow()
window.installEventFilter(stamps)
window.resize(1400, 880)
window.show()
app.exec()
"""

# The app child runs what `dbstudio gui FOLDER` runs (run_app), with the stamps hooked on the
# window as it is shown.
APP_CHILD = _CHILD_SETUP + """
stamps = Stamps(True)
app = QApplication(sys.argv[:1])
import studio.gui.main_window as main_window
plain_show = main_window.MainWindow.show
def show(window):
    window.installEventFilter(stamps)
    def opened(folder):
        stamps.title = window.windowTitle()
        stamps.on_opened(folder)
    window.project_opened.connect(opened)
    plain_show(window)
main_window.MainWindow.show = show
from studio.gui.app import run_app
run_app(sys.argv[1])
"""


@dataclass(frozen=True)
class Start:
    """One child's start: seconds to the first paint and to the project opened (None: no project)."""

    painted: float
    opened: float | None
    heavy_at_paint: str
    lines: list[str]
    cpu_painted: float = float("nan")
    cpu_opened: float | None = None


def start_child(code: str, *args: str) -> Start:
    started = time.perf_counter()
    child = python_child(code, *args)
    lines = child.stdout.splitlines()
    check(len(lines) == 3, f"a start child printed {child.stdout!r} {child.stderr[-300:]!r}")
    visible, painted, opened, heavy, cpu_painted, cpu_opened = ((lines[0].split() + [""] * 6)[:6] if lines
                                                                else ("",) * 6)
    check(visible == "True", "the window was not visible at its first paint")
    return Start(float(painted or "nan") - started, float(opened) - started if opened not in ("None", "") else None,
                 heavy, lines, float(cpu_painted or "nan"),
                 float(cpu_opened) if cpu_opened not in ("None", "") else None)


def bench_start(rounds: int, folder: Path) -> None:
    print("\n1. cold start of `dbstudio gui SAMPLE` (run_app in a child process) beside an empty QMainWindow's")
    start_child(EMPTY_CHILD)  # warm the page cache for both sides
    start_child(APP_CHILD, str(folder))
    shown, opened, floor, shown_ratios, opened_ratios, heavy = [], [], [], [], [], set()
    cpu_shown, cpu_opened, cpu_floor = [], [], []
    for number in range(rounds):
        if number % 2 == 0:
            empty = start_child(EMPTY_CHILD)
            app = start_child(APP_CHILD, str(folder))
        else:
            app = start_child(APP_CHILD, str(folder))
            empty = start_child(EMPTY_CHILD)
        check(app.opened is not None and app.lines[1:2] == [str(folder)] and "Kestrel" in app.lines[2],
              f"the app did not open the sample: {app.lines!r}")
        shown.append(app.painted)
        opened.append(app.opened or float("nan"))
        floor.append(empty.painted)
        shown_ratios.append(app.painted / empty.painted)
        opened_ratios.append((app.opened or float("nan")) / empty.painted)
        heavy.add(app.heavy_at_paint)
        cpu_shown.append(app.cpu_painted)
        cpu_opened.append(app.cpu_opened or float("nan"))
        cpu_floor.append(empty.cpu_painted)
    line("(a) to the first shown window (first paint)", shown, floor, shown_ratios)
    print(f"      project core modules imported by that paint, per round kind: {' | '.join(sorted(heavy))} "
          "(- for none; the window imports none, the opening on the TaskRunner starts as it is shown)")
    print(f"      goal <= {GOAL_START_RATIO:g}x: "
          f"{'met' if statistics.median(shown_ratios) <= GOAL_START_RATIO else 'NOT met'}")
    line("(b) to an interactive window with the sample loaded (project_opened)", opened, floor, opened_ratios)
    print(f"      goal <= {GOAL_START_RATIO:g}x (issue 21): "
          f"{'met' if statistics.median(opened_ratios) <= GOAL_START_RATIO else 'NOT met'}")
    # CPU time (every thread of the child, from its start) depends less on what else runs on the machine.
    print(f"      the child's CPU time, median: {statistics.median(cpu_shown) * 1000:.0f} ms at (a), "
          f"{statistics.median(cpu_opened) * 1000:.0f} ms at (b); the floor's {statistics.median(cpu_floor) * 1000:.0f} ms "
          f"at its paint ({statistics.median(cpu_opened) / statistics.median(cpu_floor):.2f}x at (b))")


# -- 2. filter per keystroke -------------------------------------------------------------------
@contextlib.contextmanager
def busy_machine(processes: int) -> Iterator[None]:
    """`processes` child processes each spinning on a CPU meanwhile (none: the machine as it is)."""
    import subprocess

    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        if spinners:
            time.sleep(1.0)  # let the load settle before the first key
            print(f"\n(the machine kept busy by {processes} spinning process(es))")
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()



def expected_rows(project, needle: str) -> int:
    """Rows whose id, requirement text or reviewer holds `needle`, counted without Qt; a reused
    final criterion is judged on its original's text and reviewer."""
    count = 0
    for _, criterion in project.all_criteria():
        shown = criterion
        if criterion.reuse_of is not None:
            found = project.checkpoint_criterion(criterion.reuse_of)
            if found is None:
                count += needle in criterion.key.lower()
                continue
            shown = found[1]
        haystack = f"{criterion.key}\n{shown.text or ''}\n{shown.review.reviewer or ''}".lower()
        count += needle in haystack
    return count


def bench_filter(rounds: int, folder: Path) -> None:
    from PySide6.QtCore import QSortFilterProxyModel, Qt
    from PySide6.QtGui import QStandardItem, QStandardItemModel
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QLineEdit, QTableView, QVBoxLayout, QWidget

    from studio.editing.session import ProjectSession
    from studio.gui.base.project_context import ProjectContext
    from studio.gui.rubric.editor import RubricEditor
    from studio.gui.rubric.model import COLUMNS

    app = QApplication.instance()
    assert app is not None
    context = ProjectContext(ProjectSession(folder))
    editor = RubricEditor(context)
    editor.resize(1400, 850)
    editor.show()
    line_edit = editor.findChild(QLineEdit, "rubricFilter")
    proxy = editor.findChild(QTableView, "rubricTable").model()
    source = editor.model
    print(f"\n2. free-text filter per keystroke: {source.rowCount()} rows (large project), "
          f"typing {' and '.join(repr(w) for w in WORDS_TYPED)} key by key, {rounds} rounds")

    # The floor: Qt's own C++ filter and view over the same table of strings (the twelve columns
    # the editor shows, and a hidden thirteenth with the id, text and reviewer it searches).
    strings = QStandardItemModel(source.rowCount(), len(COLUMNS) + 1)
    for row in range(source.rowCount()):
        for column in range(len(COLUMNS)):
            strings.setItem(row, column, QStandardItem(source.data(source.index(row, column)) or ""))
        strings.setItem(row, len(COLUMNS), QStandardItem(source.filter_fields(row)[3]))
    floor_proxy = QSortFilterProxyModel()
    floor_proxy.setSourceModel(strings)
    floor_proxy.setFilterKeyColumn(len(COLUMNS))
    floor_proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    floor_widget = QWidget()
    floor_line = QLineEdit(floor_widget)
    floor_view = QTableView(floor_widget)
    floor_view.setModel(floor_proxy)
    floor_view.hideColumn(len(COLUMNS))
    floor_view.verticalHeader().hide()
    for column in range(len(COLUMNS)):
        floor_view.setColumnWidth(column, editor.table.columnWidth(column))
    layout = QVBoxLayout(floor_widget)
    layout.addWidget(floor_line)
    layout.addWidget(floor_view)
    floor_line.textChanged.connect(floor_proxy.setFilterFixedString)
    floor_widget.resize(1400, 850)
    floor_widget.show()
    app.processEvents()

    project = context.session.loaded.project
    expected = {word[:n]: expected_rows(project, word[:n]) for word in WORDS_TYPED for n in range(1, len(word) + 1)}

    cpu: dict[bool, list[float]] = {True: [], False: []}

    def type_word(target: QLineEdit, word: str, rows: Callable[[], int]) -> list[float]:
        target.clear()
        app.processEvents()
        times = []
        for n, key in enumerate(word, start=1):
            start, start_cpu = time.perf_counter(), time.process_time()
            QTest.keyClick(target, key)
            app.processEvents()
            times.append(time.perf_counter() - start)
            cpu[target is line_edit].append(time.process_time() - start_cpu)
            check(rows() == expected[word[:n]], f"filter '{word[:n]}' shows {rows()} rows, expected {expected[word[:n]]}")
        return times

    own: list[float] = []
    floor: list[float] = []
    ratios: list[float] = []
    type_word(line_edit, WORDS_TYPED[0], proxy.rowCount)  # warm: the per-rubric filter cache is built once
    for number in range(rounds):
        for word in WORDS_TYPED:
            gc.collect()
            if number % 2 == 0:
                base = type_word(floor_line, word, floor_proxy.rowCount)
                mine = type_word(line_edit, word, proxy.rowCount)
            else:
                mine = type_word(line_edit, word, proxy.rowCount)
                base = type_word(floor_line, word, floor_proxy.rowCount)
            own += mine
            floor += base
            ratios += [m / b for m, b in zip(mine, base)]
    p95 = percentile(own, 0.95)
    line(f"keystroke in rubricFilter ({len(own)} keys)", own, floor, ratios)
    print(f"  95th percentile {p95 * 1000:.1f} ms (floor {percentile(floor, 0.95) * 1000:.1f} ms); "
          f"goal <= {GOAL_KEY_MS:g} ms: {'met' if p95 * 1000 <= GOAL_KEY_MS else 'NOT met'}")
    # CPU time of this process per key: what the wall time would be on an idle machine.
    print(f"  CPU per key: median {statistics.median(cpu[True]) * 1000:.1f} ms, 95th percentile "
          f"{percentile(cpu[True], 0.95) * 1000:.1f} ms (floor {statistics.median(cpu[False]) * 1000:.1f} / "
          f"{percentile(cpu[False], 0.95) * 1000:.1f} ms); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")
    editor.close()
    floor_widget.close()


# -- 3. one weight edit --------------------------------------------------------------------------
def bench_edit(rounds: int, folder: Path, scope: str, criterion_id: str, label: str) -> None:
    import yaml

    from studio.editing.rubric import rubric_file, set_criterion_field
    from studio.editing.session import ProjectSession
    from studio.gui.base.project_context import ProjectContext
    from studio.store.atomic import write_atomic

    context = ProjectContext(ProjectSession(folder))
    rel = rubric_file(scope)
    path = folder / rel
    own, floor, ratios, pushes = [], [], [], []

    def edit(weight: int) -> float:
        start = time.perf_counter()
        context.push(set_criterion_field(context.session.documents, scope, criterion_id, "weight", weight))
        pushes.append(time.perf_counter() - start)
        context.save()
        return time.perf_counter() - start

    def bare_write() -> float:
        data = path.read_bytes()
        start = time.perf_counter()
        write_atomic(path, data)
        return time.perf_counter() - start

    edit(9)  # the first edit opens the file's round-trip document; an open project has done so
    for number in range(rounds):
        weight = 7 if number % 2 == 0 else 8
        gc.collect()
        if number % 2 == 0:
            base, mine = bare_write(), edit(weight)
        else:
            mine, base = edit(weight), bare_write()
        on_disk = {c.get("id"): c.get("weight") for c in yaml.safe_load(path.read_text(encoding="utf-8"))["criteria"]}
        check(on_disk.get(criterion_id) == weight, f"{rel}: weight of {criterion_id} is {on_disk.get(criterion_id)} "
                                                   f"on disk after setting {weight}")
        own.append(mine)
        floor.append(base)
        ratios.append(mine / base)
    check(context.undo_stack.count() == rounds + 1, "each edit is one undo step")
    line(f"{label}: push + save", own, floor, ratios)
    print(f"  of which push (edit + model rebuilt from the edited text) {statistics.median(pushes) * 1000:.1f} ms, "
          f"save {statistics.median(own) * 1000 - statistics.median(pushes) * 1000:.1f} ms")
    print(f"  goal <= {GOAL_EDIT_MS:g} ms: {'met' if statistics.median(own) * 1000 <= GOAL_EDIT_MS else 'NOT met'}")


# -- 4. opening a paper-scale project ------------------------------------------------------------
def bench_open(rounds: int, folder: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from studio.editing.session import ProjectSession
    from studio.gui.base.project_context import ProjectContext
    from studio.gui.main_window import MainWindow
    from studio.gui.rubric.editor import RubricEditor
    from studio.store.loader import load_project
    from studio.validation.validate import validate_loaded

    app = QApplication.instance()
    assert app is not None

    def open_window() -> float:
        window = MainWindow()
        opened: list[str] = []
        window.project_opened.connect(opened.append)
        start = time.perf_counter()
        window.open_project(folder)
        window.show()
        while not opened:
            app.processEvents()
            if time.perf_counter() - start > 120:
                break
        app.processEvents()
        elapsed = time.perf_counter() - start
        check(opened == [str(folder)], f"project_opened gave {opened}, expected [{folder}]")
        check("Project p00" in window.windowTitle(), f"window title {window.windowTitle()!r} names no project")
        window.close()
        window.deleteLater()
        app.processEvents()
        return elapsed

    def core() -> float:
        start = time.perf_counter()
        loaded = load_project(folder)
        validate_loaded(loaded)
        elapsed = time.perf_counter() - start
        check(len(loaded.project.all_criteria()) > 4000, "the paper-scale project has about 4,300 criteria")
        return elapsed

    def rubric_editor() -> float:
        context = ProjectContext(ProjectSession(folder))
        start = time.perf_counter()
        editor = RubricEditor(context)
        editor.resize(1400, 850)
        editor.show()
        app.processEvents()
        elapsed = time.perf_counter() - start
        check(editor.model.rowCount() == len(context.session.loaded.project.all_criteria()),
              "the rubric editor shows every criterion")
        editor.close()
        editor.deleteLater()
        app.processEvents()
        return elapsed

    criteria = len(load_project(folder).project.all_criteria())
    print(f"\n4. opening a paper-scale project ({SUBTASKS} subtasks, {criteria} criteria) to an interactive window")
    open_window()
    core()
    own, floor, ratios, editor_own, editor_ratios = [], [], [], [], []
    for number in range(rounds):
        gc.collect()
        if number % 2 == 0:
            base = core()
            mine = open_window()
        else:
            mine = open_window()
            base = core()
        mine_editor = rubric_editor()
        own.append(mine)
        floor.append(base)
        ratios.append(mine / base)
        editor_own.append(mine_editor)
        editor_ratios.append(mine_editor / base)
    line("MainWindow().open_project until project_opened", own, floor, ratios, "s")
    met = statistics.median(own) <= GOAL_OPEN_S and statistics.median(ratios) <= GOAL_OPEN_RATIO
    print(f"  goal <= {GOAL_OPEN_S:g} s and <= {GOAL_OPEN_RATIO:g}x: {'met' if met else 'NOT met'}")
    line("RubricEditor over it, shown (its share)", editor_own, floor, editor_ratios, "s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="paired rounds per figure (default 7)")
    parser.add_argument("--only", choices=SECTIONS, metavar="SECTION",
                        help=f"measure one section: {', '.join(SECTIONS)}")
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="keep N other processes spinning on the CPU during the filter section (issue 21's "
                             "goal is with the machine busy; e.g. --busy 2 on 2 cores)")
    args = parser.parse_args(argv)
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    base = Path(tempfile.mkdtemp(prefix="gui-bench-"))
    os.environ["DBSTUDIO_WORKSPACE"] = str(base / "workspace")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(base / "settings"))
    app = QApplication.instance() or QApplication(sys.argv[:1])
    try:
        compile_bytecode()
        sample = Path(shutil.copytree(SAMPLE, base / "kestrel"))
        paper = base / "paper"
        if args.only in (None, "edit", "open"):
            make_project(paper, 0, SUBTASKS, MATERIALS, CHECKPOINT_CRITERIA, CROSS_FILE, PACKAGE, REUSED,
                         random.Random(11))
        print(f"offscreen ({app.platformName()}); {args.rounds} paired rounds; studio/ compiled to bytecode first")
        if args.only in (None, "cold-start"):
            bench_start(args.rounds, sample)
        if args.only in (None, "filter"):
            large = base / "large"
            make_large_project(large)
            with busy_machine(args.busy):
                bench_filter(max(1, args.rounds // 2), large)
        if args.only in (None, "edit"):
            print("\n3. one weight edit through the undo stack, with the atomic write")
            bench_edit(args.rounds * 3, sample, "T05", "T05-C02", "sample, T05 rubric")
            bench_edit(args.rounds * 3, paper, "T75", "T75-C02", "paper-scale project, T75 rubric")
        if args.only in (None, "open"):
            bench_open(args.rounds, paper)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for problem in wrong:
        print(f"WRONG: {problem}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
