"""The project views' responsiveness (issue 10), offscreen, each figure beside a floor measured in the same run.

Sections (one function each; other views add their own):

0. dependency-map: the map of a 150-subtask synthetic project (review_bench's generator, ~660
   materials) from the loaded project to a painted view - `DependencyMap.build`, `layout_map`
   (Graphviz `dot` in a subprocess, the longest edges drawn from connectors past 1,500 crossed
   columns), `DependencyMapView.show_layout` and the first paint (`grab()`); floor: `dot -Tplain`
   alone on the same dot source (the layout library's own share). Goal: <= 1 s. Checked: every
   node laid out once, no two boxes overlapping, one scene item per node.
1. pdf-first-page: a 300-page PDF shown in `MaterialPreview` - from `show_file` until the page
   canvas has painted its first page (opened and drawn on the background helper, turned into a
   QImage, painted by Qt's own paint event, nothing forced); floor: pymupdf alone opening the file and rendering that whole page at the
   same zoom. Goal: <= 1.5x the floor.
2. csv-first-screen: a 10 MB and a 100 MB CSV shown in `MaterialPreview` - from `show_file` until
   the table with its first rows is painted (the rest is indexed afterwards in the background);
   floor: reading the file's first 64 KB, parsing its first 40 rows with the csv module into a
   QStandardItemModel and painting it in a plain QTableView of the same size.
   Goal: <= 0.3 s, independent of the file's size (the 100 MB / 10 MB ratio is printed).

Sides alternate which goes first each round and ratios are paired per round; min / median / max are
printed. Every answer is checked (page count and page size, the first rows' values) and the script
exits 1 if any is wrong. Usage: QT_QPA_PLATFORM=offscreen python bench/views_bench.py [--rounds N]
[--only SECTION] (SECTION: dependency-map, pdf-first-page or csv-first-screen)
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import check, paired, report_wrong, spread  # noqa: E402

GOAL_MAP_S = 1.0
GOAL_PDF_RATIO = 1.5
GOAL_CSV_S = 0.3
PDF_PAGES = 300
def _shown_in(preview, path: Path) -> float:  # type: ignore[no-untyped-def]
    """Seconds from show_file(path) until the preview's content is painted."""
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    done: list[str] = []
    loop = QEventLoop()

    def shown(kind: str) -> None:
        done.append(kind)
        loop.quit()

    preview.shown.connect(shown)
    start = time.perf_counter()
    preview.show_file(path)
    if not done:
        loop.exec()  # as the app waits: woken by the result, no polling
    QApplication.processEvents()  # the new content's layout
    preview.repaint()  # paints the page / the table's visible rows now
    elapsed = time.perf_counter() - start
    preview.shown.disconnect(shown)
    check(done == [preview.kind], f"{path.name}: the preview showed {done}: {preview.message.text()}")
    return elapsed


def _painted_in(preview, path: Path) -> float:  # type: ignore[no-untyped-def]
    """Seconds from show_file(path) until the PDF page's canvas has painted it (the event loop
    runs as in the app: the paint is the one Qt schedules, nothing forced)."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    from studio.gui.widgets.preview import PageCanvas

    painted: list[bool] = []
    loop = QEventLoop()

    def on_paint() -> None:
        painted.append(True)
        loop.quit()

    def shown(kind: str) -> None:
        canvas = preview.findChild(PageCanvas, "previewPageImage")
        check(kind == "pdf" and canvas is not None, f"{path.name}: the preview showed {kind}")
        if canvas is not None:
            canvas.painted.connect(on_paint, Qt.ConnectionType.SingleShotConnection)

    preview.shown.connect(shown)
    QTimer.singleShot(20000, loop.quit)  # never hang the bench
    start = time.perf_counter()
    preview.show_file(path)
    loop.exec()
    elapsed = time.perf_counter() - start
    preview.shown.disconnect(shown)
    check(bool(painted), f"{path.name}: the page was never painted")
    return elapsed


def _forget(preview) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QApplication

    preview.show_file(None)
    preview.runner.wait()
    QApplication.processEvents()  # the finished jobs' results: none may be left for a deleted runner


# -- 0. dependency map -----------------------------------------------------------------------------
MAP_SUBTASKS = 150


def bench_dependency_map(rounds: int, work: Path, subtasks: int = MAP_SUBTASKS) -> None:
    import random
    import subprocess

    from bench.review_bench import CHECKPOINT_CRITERIA, CROSS_FILE, MATERIALS, PACKAGE, REUSED, SUBTASKS, make_project
    from studio.gui.project.depmap_view import DependencyMapView, NodeItem
    from studio.store.loader import load_project
    from studio.views.depmap import DependencyMap, dot_source, layout_map

    scale = subtasks / SUBTASKS
    folder = work / f"map-{subtasks}"
    make_project(folder, 0, subtasks, MATERIALS, max(subtasks, int(CHECKPOINT_CRITERIA * scale)),
                 int(CROSS_FILE * scale), int(PACKAGE * scale), int(REUSED * scale), random.Random(11))
    project = load_project(folder).project
    view = DependencyMapView()
    view.resize(1400, 900)
    view.show()
    dmap = DependencyMap.build(project)
    graph = dot_source(dmap)

    def side() -> float:
        start = time.perf_counter()
        built = DependencyMap.build(project)
        layout = layout_map(built)
        view.show_layout(built, layout)
        view.grab()  # the first paint of what the view shows
        elapsed = time.perf_counter() - start
        check(set(layout.boxes) == set(built.nodes), "a node of the map has no box")
        items = [i for i in view.scene().items() if isinstance(i, NodeItem)]
        check(len(items) == len(built.nodes), f"{len(items)} scene items for {len(built.nodes)} nodes")
        boxes = sorted([b for b in layout.boxes.values()] + [c.box for c in layout.connectors], key=lambda b: b.x)
        for i, box in enumerate(boxes):
            for other in boxes[i + 1:]:
                if other.x >= box.x + box.width:
                    break
                check(not box.overlaps(other), "two boxes of the map overlap")
        return elapsed

    def floor() -> float:
        start = time.perf_counter()
        subprocess.run(["dot", "-Tplain"], input=graph.source, capture_output=True, text=True, check=True)
        return time.perf_counter() - start

    side(), floor()  # warm-up: imports, fonts
    sides, floors = paired(rounds, side, floor)
    print(f"dependency-map ({len(project.timeline())} subtasks: {len(dmap.nodes)} nodes, {len(dmap.edges)} edges, "
          f"{len(graph.connectors)} drawn from connectors)")
    print("  " + spread("laid out and painted", sides, " s") + f"  (goal <= {GOAL_MAP_S} s)")
    print("  " + spread("floor: dot alone on the same source", floors, " s"))
    print("  " + spread("ratio", [s / f for s, f in zip(sides, floors)], "x"))
    print(f"  goal: {'met' if statistics.median(sides) <= GOAL_MAP_S else 'NOT met'}")
    view.close()


# -- 1. first PDF page ----------------------------------------------------------------------------
def make_pdf(path: Path, pages: int) -> Path:
    import pymupdf

    document = pymupdf.open()
    for number in range(pages):
        page = document.new_page(width=612, height=792)
        page.insert_text((72, 72), f"Page {number + 1}: fleet valuation extract", fontsize=16)
        for line in range(40):
            page.insert_text((72, 110 + line * 16), f"Vehicle {number * 40 + line}: value {line * 1234.5:,.2f} EUR",
                             fontsize=10)
    document.save(path)
    document.close()
    return path


def bench_pdf_first_page(rounds: int, work: Path) -> None:
    import pymupdf
    from PySide6.QtWidgets import QApplication, QSpinBox

    from studio.gui.base.tasks import TaskRunner
    from studio.gui.widgets.preview import PDF_ZOOM, MaterialPreview, PageCanvas

    path = make_pdf(work / "fleet.pdf", PDF_PAGES)
    runner = TaskRunner(QApplication.instance())  # lives as long as the app, like the window's
    preview = MaterialPreview(runner)
    preview.resize(900, 700)
    preview.show()

    def side() -> float:
        elapsed = _painted_in(preview, path)
        spin = preview.findChild(QSpinBox, "previewPage")
        image = preview.findChild(PageCanvas, "previewPageImage")
        check(spin is not None and spin.maximum() == PDF_PAGES, "the PDF's page count is wrong")
        check(image is not None and image.image.width() == round(612 * PDF_ZOOM), "the first page's width is wrong")
        check(image is not None and image.height() == round(792 * PDF_ZOOM), "the page's height is wrong")
        _forget(preview)
        return elapsed

    def floor() -> float:
        start = time.perf_counter()
        document = pymupdf.open(path)
        pixmap = document.load_page(0).get_pixmap(matrix=pymupdf.Matrix(PDF_ZOOM, PDF_ZOOM), alpha=False)
        elapsed = time.perf_counter() - start
        check(pixmap.width == round(612 * PDF_ZOOM), "pymupdf's page size is wrong")
        document.close()
        return elapsed

    side(), floor()  # warm-up: imports and font caches
    sides, floors = paired(rounds, side, floor)
    ratios = [s / f for s, f in zip(sides, floors)]
    print(f"pdf-first-page ({PDF_PAGES} pages, {path.stat().st_size / 1e6:.1f} MB, zoom {PDF_ZOOM})")
    print("  " + spread("preview shown", sides, " s"))
    print("  " + spread("floor: pymupdf renders the page", floors, " s"))
    print("  " + spread("ratio", ratios, "x") + f"  (goal <= {GOAL_PDF_RATIO}x)")
    preview.close()


# -- 2. first screen of a big CSV -------------------------------------------------------------------
def make_csv(path: Path, megabytes: int) -> Path:
    line = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write("date,route,shipments,tonnes,note\n")
        while handle.tell() < megabytes * 1_000_000:
            block = [f"2024-{1 + n % 12:02d}-{1 + n % 28:02d},R{n % 311},{n % 977},{n * 0.37:.2f},"
                     f"\"ok, checked {n}\"\n" for n in range(line, line + 20_000)]
            handle.write("".join(block))
            line += 20_000
    return path


def bench_csv_first_screen(rounds: int, work: Path) -> None:
    from PySide6.QtGui import QStandardItem, QStandardItemModel
    from PySide6.QtWidgets import QApplication, QTableView

    from studio.gui.base.tasks import TaskRunner
    from studio.gui.widgets.preview import MaterialPreview

    plain = QTableView()  # the floor's table: 40 rows parsed and painted, nothing lazy
    plain.resize(900, 700)
    plain.show()
    files = {size: make_csv(work / f"volumes-{size}mb.csv", size) for size in (10, 100)}
    runner = TaskRunner(QApplication.instance())  # lives as long as the app, like the window's
    preview = MaterialPreview(runner)
    preview.resize(900, 700)
    preview.show()
    results: dict[int, tuple[list[float], list[float]]] = {}

    for size, path in files.items():
        def side(path: Path = path) -> float:
            elapsed = _shown_in(preview, path)
            view = preview.findChild(QTableView, "previewTable")
            model = view.model() if view is not None else None
            check(model is not None and model.index(0, 4).data() == "ok, checked 0", f"{path.name}: first row wrong")
            check(model is not None and model.index(30, 0).data() == "2024-07-03", f"{path.name}: row 31 wrong")
            _forget(preview)
            return elapsed

        def floor(path: Path = path) -> float:
            start = time.perf_counter()
            with path.open("rb") as handle:
                head = handle.read(64 * 1024).decode("utf-8", errors="replace")
            rows = [row for _number, row in zip(range(41), csv.reader(io.StringIO(head)))]
            model = QStandardItemModel(len(rows) - 1, len(rows[0]))
            model.setHorizontalHeaderLabels(rows[0])
            for number, row in enumerate(rows[1:]):
                for column, value in enumerate(row):
                    model.setItem(number, column, QStandardItem(value))
            plain.setModel(model)
            plain.repaint()
            elapsed = time.perf_counter() - start
            check(model.index(0, 4).data() == "ok, checked 0", "the floor read the wrong rows")
            return elapsed

        side(), floor()
        results[size] = paired(rounds, side, floor)

    print("csv-first-screen (first rows painted; the rest is indexed in the background)")
    for size, (sides, floors) in results.items():
        print(f"  {size} MB: " + spread("preview shown", sides, " s") + f"  (goal <= {GOAL_CSV_S} s)")
        print(f"  {size} MB: " + spread("floor: 64 KB read, 40 rows parsed into a plain table, painted", floors, " s"))
        print(f"  {size} MB: " + spread("ratio", [s / f for s, f in zip(sides, floors)], "x"))
    big, small = results[100][0], results[10][0]
    print("  " + spread("100 MB / 10 MB (independent of size: about 1)", [b / s for b, s in zip(big, small)], "x"))
    preview.close()


SECTIONS: dict[str, Callable[[int, Path], None]] = {
    "dependency-map": bench_dependency_map,
    "pdf-first-page": bench_pdf_first_page,
    "csv-first-screen": bench_csv_first_screen,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", choices=sorted(SECTIONS))
    args = parser.parse_args()
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    # the offscreen platform warns on every top-level window shown; nothing to learn from it here
    qInstallMessageHandler(lambda _kind, _context, text: None if "propagateSizeHints" in text
                           else print(text, file=sys.stderr))
    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory(prefix="views-bench-") as folder:
        for name, section in SECTIONS.items():
            if args.only in (None, name):
                section(args.rounds, Path(folder))
    del app
    return report_wrong()


if __name__ == "__main__":
    raise SystemExit(main())
