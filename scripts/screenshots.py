"""Drive the app on a copy of the sample project and save the screenshots of docs/screenshots/.

Run by scripts/screenshots.sh, which gives it a private Xvfb display and the xcb platform. The
copy gets a short history (so the versioning panel has something to compare), one deliberate
edit that the review warns about (so the findings dock is not empty) and an edited rubric
workbook (so the import dialog has a diff to show). The window is driven only through its
public entry points and objectNames, as tests and accessibility tools do.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from PySide6.QtCore import QItemSelectionModel, QSettings, Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QLineEdit, QTableView, QTreeView, QWidget

from studio.editing.commands import SetValue
from studio.editing.rubric import CRITERIA, criterion_position, rubric_file, set_criterion_field
from studio.editing.session import ProjectSession
from studio.sheets.columns import RUBRIC_SHEET, header_key
from studio.sheets.export import export_rubrics
from studio.store import layout
from studio.store.workspace import create_project, sample_project

IDENTITY = {"GIT_AUTHOR_NAME": "Hanna Verbeek", "GIT_AUTHOR_EMAIL": "hanna.verbeek@example.com",
            "GIT_COMMITTER_NAME": "Hanna Verbeek", "GIT_COMMITTER_EMAIL": "hanna.verbeek@example.com"}
SUBTASK = "T03"  # the subtask the history, the editor and the diff are about
RUN_IMAGE = os.environ.get("DBSTUDIO_TEST_IMAGE", "dbstudio/test-busybox:1")
RUN_LOG_ROW = 5  # T06, the model revision after the EBITDA restatement
RUN_COMPARE = ("T06", "T05")  # its checkpoint against the one before it
RUN_CHANGED_FILE = "outputs/assumptions_memo.md"


def wait_until(app: QApplication, done: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"screenshots: gave up waiting for {what}")
        app.processEvents()
        time.sleep(0.01)


def settle(app: QApplication, window: QWidget, seconds: float = 0.6) -> None:
    """Let background work finish and the window repaint (a review follows each edit after a pause)."""
    wait_until(app, lambda: not window.runner.busy, "the background work")  # type: ignore[attr-defined]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    wait_until(app, lambda: not window.runner.busy, "the background work")  # type: ignore[attr-defined]
    app.processEvents()


def make_copy(work: Path) -> Path:
    """The sample with three commits on T03 and one saved, uncommitted edit the review warns about."""
    os.environ.update(IDENTITY)
    root = create_project(work / "kestrel-refinancing", "kestrel-refinancing",
                          "Kestrel Freight Group, refinancing readiness", source=sample_project(),
                          own_repository=True).root
    session = ProjectSession(root)
    subtask_rel = layout.subtask_file(Path(), SUBTASK).as_posix()
    session.apply(SetValue(subtask_rel, ("time_limit_minutes",), 210, (SUBTASK,), "Set time limit"))
    session.apply(set_criterion_field(session.documents, SUBTASK, "T03-C04", "weight", 6))
    session.save()
    session.commit("T03: longer time limit and a heavier baseline check after the pilot run")
    text = ("The summary records the Venlo works estimate of EUR 1.8m, that it is not in the capital budget, "
            "and that completion in mid-August 2026 falls after the 30 June 2026 deadline; it names the "
            "extension request to the province and says it is still undecided.")
    session.apply(set_criterion_field(session.documents, SUBTASK, "T03-C02", "text", text))
    session.apply(set_criterion_field(session.documents, SUBTASK, "T03-C03", "weight", -8))
    session.save()
    session.commit("T03-C02: name the permit extension request; stronger penalty for a closed Venlo issue")
    # The deliberate edit: two criteria sent back to draft, which the review reports as warnings.
    for scope, criterion in ((SUBTASK, "T03-C05"), ("T05", "T05-C03")):
        index = criterion_position(session.documents, scope, criterion)
        session.apply(SetValue(rubric_file(scope), (*CRITERIA, index, "review", "status"), "draft", (criterion,),
                               "Send back to draft"))
    session.save()
    return root


def edited_workbook(root: Path, out: Path) -> Path:
    """The copy's rubrics exported, then edited as an expert would in Excel: a changed weight,
    a new row and a removed row."""
    export_rubrics(root, out)
    book = load_workbook(out)
    sheet = book[RUBRIC_SHEET]
    columns = {header_key(str(cell.value)): cell.column for cell in sheet[1] if cell.value}
    rows = {sheet.cell(row, columns["id"]).value: row for row in range(2, sheet.max_row + 1)}
    sheet.cell(rows["T03-C01"], columns["weight"]).value = 8
    new = sheet.max_row + 1
    for cell in sheet[rows["T03-C04"]]:
        sheet.cell(new, cell.column).value = cell.value
    sheet.cell(new, columns["id"]).value = "T03-C07"
    sheet.cell(new, columns["text"]).value = ("The register gives each open issue a realistic closing date "
                                              "before signing, or says why it cannot close in time.")
    sheet.cell(new, columns["weight"]).value = 4
    sheet.cell(new, columns["dimension"]).value = "completeness"
    sheet.cell(new, columns["covers"]).value = "T03:outputs/open_issues_register.md"
    sheet.cell(new, columns["status"]).value = "draft"
    sheet.cell(new, columns["reviewer"]).value = None
    sheet.cell(rows["T03-C05"], columns["status"]).value = "approved"  # the expert reviewed it in Excel
    sheet.cell(rows["T03-C05"], columns["reviewer"]).value = "Daniel Okafor"
    sheet.delete_rows(rows["T03-C06"])
    book.save(out)
    return out


def search_pdf(app: QApplication, preview: QWidget) -> None:
    """Find a figure in the PDF, as an expert checking a number would: the hits are marked."""
    search = preview.findChild(QLineEdit, "previewSearch")
    assert search is not None
    search.setText("EUR")
    search.returnPressed.emit()


def pick_cell(app: QApplication, preview: QWidget) -> None:
    """Select a cell with a value so `Sheet!A1` and its content show above the sheet."""
    view = preview.findChild(QTableView, "previewSheet_" + preview.content.book.sheet_names[0])  # type: ignore[attr-defined]
    assert view is not None
    model = view.model()
    model.index(0, 0).data()  # asks for the first block
    wait_until(app, lambda: model.is_loaded(0), "the first rows of the sheet")  # type: ignore[attr-defined]
    view.setCurrentIndex(model.index(3, 1))


def cp_memo(out: Path) -> Path:
    """A counsel's memo on the conditions precedent, as a law deliverable would be handed in (Word)."""
    import docx

    document = docx.Document()
    document.add_heading("Kestrel Freight Group - conditions precedent to funding", level=0)
    document.add_paragraph("Prepared for the refinancing of the senior facilities; status as at 19 June 2026.")
    document.add_heading("Summary", level=1)
    intro = document.add_paragraph("Signing stays on 26 June. ")
    intro.add_run("Funding moves to 14 July").bold = True
    intro.add_run(" because of the notary's availability for the German share pledge.")
    document.add_heading("Open conditions", level=1)
    for step in ("German share pledge notarised (notary booked for 10 July)",
                 "Venlo permit extension decided by the authority, or the lenders waive it",
                 "Hedging letters signed by both hedge counterparties"):
        document.add_paragraph(step, style="List Number")
    document.add_paragraph("Carrel's credit committee has not yet approved; it meets on 16 June.", style="List Bullet")
    table = document.add_table(rows=4, cols=3)
    table.style = "Table Grid"
    for row, values in zip(table.rows, (("Condition", "Owner", "Due"), ("Share pledge", "Counsel (DE)", "10 July"),
                                        ("Venlo permit", "Kestrel", "30 June"), ("Hedging letters", "Treasury", "3 July")),
                           strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_heading("Recommendation", level=2)
    document.add_paragraph("Keep the 26 June signing and fund on 14 July once the pledge is notarised.")
    document.save(str(out))
    return out


def lender_deck(out: Path) -> Path:
    """The lender presentation as slides, with speaker notes (PowerPoint)."""
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    cover = deck.slides.add_slide(deck.slide_layouts[0])
    cover.shapes.title.text = "Kestrel Freight Group"
    cover.placeholders[1].text = "Refinancing of the senior facilities - lender presentation"
    cover.notes_slide.notes_text_frame.text = "Introduce Lotte Jansen as the lenders' day-to-day contact."
    numbers = deck.slides.add_slide(deck.slide_layouts[5])
    numbers.shapes.title.text = "FY2025 EBITDA"
    numbers.shapes.add_textbox(Inches(0.7), Inches(1.6), Inches(8), Inches(0.8)).text_frame.text = (
        "Normalised EBITDA EUR 38.9m (EUR 41.8m reported, including the land sale)")
    table = numbers.shapes.add_table(3, 3, Inches(0.7), Inches(2.6), Inches(8), Inches(1.2)).table
    for row, values in enumerate((("EUR m", "Reported", "Normalised"), ("EBITDA", "41.8", "38.9"),
                                  ("Land sale gain", "2.9", "-"))):
        for column, value in enumerate(values):
            table.cell(row, column).text = value
    numbers.notes_slide.notes_text_frame.text = "Lead with the normalised figure; the land sale is one-off."
    timing = deck.slides.add_slide(deck.slide_layouts[1])
    timing.shapes.title.text = "Timetable"
    body = timing.placeholders[1].text_frame
    body.text = "Signing 26 June 2026"
    body.add_paragraph().text = "Funding 14 July 2026 (German share pledge)"
    deck.save(str(out))
    return out


def chart_image(root: Path, out: Path) -> Path:
    """A bar chart of the sample's monthly shipments, drawn as a client's slide picture would be."""
    import csv

    from PySide6.QtGui import QColor, QFont, QImage, QPainter

    totals: dict[str, float] = {}
    with (root / "materials" / "shipment-volumes-2023-2025.csv").open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    number = next(i for i, name in enumerate(header) if body and body[0][i].replace(".", "", 1).isdigit())
    for row in body:
        totals[row[0][:7]] = totals.get(row[0][:7], 0.0) + float(row[number])
    image = QImage(900, 420, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setFont(QFont("DejaVu Sans", 11))
    painter.drawText(20, 28, f"Kestrel Freight Group - {header[number]} by month")
    peak = max(totals.values()) or 1.0
    width = 840 / max(len(totals), 1)
    for place, (_month, total) in enumerate(sorted(totals.items())):
        height = 330 * total / peak
        painter.fillRect(int(30 + place * width), int(390 - height), max(int(width) - 3, 1), int(height),
                         QColor("#3b6ea8"))
    painter.end()
    image.save(str(out))
    return out


DEMO_AGENT = '''\
"""A demo agent for the screenshots (python3, standard library only): it reads its instruction
and the materials released so far, writes each Markdown output the instruction names, and
revises the ones it wrote in an earlier subtask, logging what it does as an agent would."""
import os
import re
from pathlib import Path

subtask = os.environ["STUDIO_SUBTASK"]
instruction = Path(os.environ["STUDIO_INSTRUCTION"]).read_text(encoding="utf-8")
title = next((line.lstrip("# ").strip() for line in instruction.splitlines() if line.startswith("#")), subtask)
items, current = [], None
for line in instruction.splitlines():
    start = re.match(r"\\s*(?:[-*]|\\d+\\.)\\s+(.*)", line)
    if start:
        current = [start.group(1)]
        items.append(current)
    elif current is not None and line.startswith("  ") and line.strip():
        current.append(line.strip())
    else:
        current = None


def plain(words):
    text = re.sub(r"^outputs/\\S+?:\\s*", "", re.sub(r"[*`]", "", " ".join(words)))
    sentence = re.split(r"(?<=\\.)\\s", text, maxsplit=1)[0].rstrip(".:; ")
    return sentence[:1].upper() + sentence[1:]


points = [point for point in (plain(item) for item in items) if point and not point.startswith("Outputs/")]
print(f"[{subtask}] {title}", flush=True)
materials = sorted(p for p in Path("materials").glob("*") if p.is_file()) if Path("materials").is_dir() else []
for material in materials:
    print(f"[{subtask}] read {material} ({material.stat().st_size:,} bytes)", flush=True)
outputs = sorted(set(re.findall(r"outputs/[A-Za-z0-9_./-]+\\.md", instruction)))
for rel in outputs:
    path = Path(rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        text = path.read_text(encoding="utf-8") + f"\\n## Revision ({subtask})\\n\\n"
        text += "".join(f"- {point}.\\n" for point in points[:4])
        print(f"[{subtask}] revised {rel}", flush=True)
    else:
        text = (f"# {path.stem.replace('_', ' ').capitalize()}\\n\\n{title}.\\n\\n## Sources\\n\\n"
                + "".join(f"- {m.name}\\n" for m in materials[-5:])
                + "\\n## Points addressed\\n\\n" + "".join(f"- {point}.\\n" for point in points[:6]))
        print(f"[{subtask}] wrote {rel}", flush=True)
    path.write_text(text, encoding="utf-8")
print(f"[{subtask}] done: {len(outputs)} file(s) written", flush=True)
'''
"""The script harness of the runs shots: a stand-in for a CLI agent (the test image has python3 and
no agent), so the run, its log and its checkpoints are real and made in a few seconds."""


def runs_shots(app: QApplication, window: Any, work: Path, out: Path) -> None:
    """A real run of the copy in Docker (DOCKER_HOST, image dbstudio/test-busybox:1 from
    scripts/test-image.sh) started from the Runs panel, followed to its end, then its checkpoints."""
    from studio.gui.runs.checkpoint_browser import CheckpointBrowser
    from studio.gui.runs.run_dialog import RunDialog

    panel = window.runs_panel
    runs_dock = window.findChild(QDockWidget, "runsDock")
    explorer_dock = window.findChild(QDockWidget, "explorerDock")
    runs_dock.show()
    runs_dock.raise_()
    # A first draft of the agent that stops in T03, then the fixed one that goes to the end.
    first = work / "demo-agent-draft.py"
    first.write_text(DEMO_AGENT.replace(
        'subtask = os.environ["STUDIO_SUBTASK"]\n',
        'subtask = os.environ["STUDIO_SUBTASK"]\nif subtask == "T03":\n'
        '    raise SystemExit("error: outputs/diligence_notes.md is missing (T02 wrote no notes); stopping")\n'),
        encoding="utf-8")
    agent = work / "demo-agent.py"
    agent.write_text(DEMO_AGENT, encoding="utf-8")
    for script, status in ((first, "failed"), (agent, "completed")):
        dialog = panel.new_run()
        assert isinstance(dialog, RunDialog)
        wait_until(app, lambda d=dialog: d.image.findText(RUN_IMAGE) >= 0,
                   f"the engine's images (is {RUN_IMAGE} built? scripts/test-image.sh; DOCKER_HOST set?)")
        dialog.script.setText(str(script))
        dialog.image.setEditText(RUN_IMAGE)
        count = panel.runs_model.rowCount()
        dialog.start()
        wait_until(app, lambda d=dialog, n=count: panel.runs_model.rowCount() > n or d.start_button.isEnabled(),
                   "the run to be recorded")
        if panel.runs_model.rowCount() == count:
            raise SystemExit(f"screenshots: the run did not start: {dialog.message.text()}")
        wait_until(app, lambda: panel.selected_run() is not None and panel.selected_run().finished
                   and not panel.monitor.processes, "the run to end", timeout=300)
        run = panel.selected_run()
        if run.status != status:
            raise SystemExit(f"screenshots: the run ended {run.status}, not {status}: {run.message}")
    window.open_object("subtask", "T06")
    window.resizeDocks([explorer_dock], [330], Qt.Orientation.Horizontal)
    window.resizeDocks([runs_dock], [560], Qt.Orientation.Vertical)
    panel.subtasks_view.selectRow(RUN_LOG_ROW)  # the subtask whose log is shown
    settle(app, window)
    save(window, out / "runs-panel.png")

    browser = panel.open_checkpoints()
    assert isinstance(browser, CheckpointBrowser)
    browser.resize(1360, 780)
    wait_until(app, lambda: bool(browser.manifests), "the run's checkpoints")
    shown: list[str] = []
    browser.text_diff_shown.connect(shown.append)
    browser.choose(RUN_COMPARE[0], compare_with=RUN_COMPARE[1])
    browser.select_change(RUN_CHANGED_FILE)
    wait_until(app, lambda: RUN_CHANGED_FILE in shown, "the text diff")
    browser.diff_view.setSizes([560, 800])
    settle(app, window)
    save(browser, out / "checkpoint-browser.png")
    browser.close()


def scores_shots(app: QApplication, window: Any, out: Path) -> None:
    """The runs of runs_shots judged (scripts/judged_sample.py: a judge and two experts), then the
    scores view's trajectory chart, the agreement dashboard and the calibration flags."""
    from judged_sample import add_sample_verdicts  # scripts/ is on sys.path when run as a script

    from studio.judging.verdict_store import VerdictStore

    root = window.context.session.root
    runs = sorted(p.name for p in (root / layout.RUNS_DIR).iterdir() if (p / "run.json").is_file())
    if not set(runs) <= set(VerdictStore(root).submissions()):
        add_sample_verdicts(root, runs)
    docks = [dock for dock in window.findChildren(QDockWidget) if dock.isVisible()]
    for dock in docks:  # the charts get the window's width
        dock.hide()
    # The benchmark's lead reads the scores: an adjudicator sees every rater's verdicts (a blind rater
    # would see only their own).
    window.preferences.update(rater="Lead reviewer", role="adjudicator")
    hook = window.scores_hook
    scores = hook.open_scores()
    wait_until(app, lambda: scores.sheet is not None, "the scores of the runs")
    scores.charts.setCurrentIndex(0)
    settle(app, window)
    save(window, out / "trajectory-chart.png")
    scores.charts.setCurrentIndex(1)
    settle(app, window)
    save(window, out / "profile-chart.png")

    agreement = hook.open_agreement()
    wait_until(app, lambda: agreement.result is not None, "the agreement analysis", timeout=180)
    settle(app, window)
    save(window, out / "agreement-dashboard.png")

    # Calibration flags need 8 decisions per criterion by default; two runs give 2.
    (root / layout.VERDICTS_DIR / "calibration.yaml").write_text("min_agreement: 0.75\nmin_decisions: 1\n")
    editor = window.open_rubric("T06")
    wait_until(app, lambda: bool(editor.model.calibration), "the judge calibration")
    from studio.gui.rubric.model import COLUMN

    row = editor.model.row_of("T06", "T06-C03")
    index = editor.proxy.mapFromSource(editor.model.index(row, COLUMN["judge"]))
    for column in ("covers", "requires", "propagates", "tests"):  # the picture: id, text and judge agreement side by side
        editor.table.setColumnHidden(COLUMN[column], True)
    editor.table.setColumnWidth(COLUMN["text"], 330)
    editor.table.setCurrentIndex(index)
    editor.table.scrollTo(index)
    editor.table.horizontalScrollBar().setValue(0)
    settle(app, window)
    save(window, out / "rubric-calibration.png")

    # Judge…: a run of the project, every rubric, OpenAI's reasoning preset and what its requests send.
    from PySide6.QtGui import QAction

    from studio.gui.judging.judge_dialog import JudgeDialog

    action = window.findChild(QAction, "judgeAction")
    assert action is not None
    action.trigger()
    dialog = window.findChild(JudgeDialog, "judgeDialog")
    assert dialog is not None
    wait_until(app, lambda: dialog.judge_button.isEnabled(), "the runs to judge")
    dialog.profile_box.setCurrentIndex(dialog.profile_box.findData("openai-reasoning"))
    settle(app, dialog)
    save(dialog, out / "judge-dialog.png")
    dialog.reject()

    # Defect lineage: what became of the judged runs' checkpoint failures along the timeline.
    lineage = hook.open_lineage()
    wait_until(app, lambda: lineage.lineage is not None, "the defect lineage of a judged run")
    for row in range(lineage.model.rowCount()):
        if lineage.model.index(row, 1).data() == "propagated":
            lineage.table.setCurrentIndex(lineage.model.index(row, 0))
            break
    settle(app, window)
    save(window, out / "lineage-matrix.png")

    # Judge Certification: the judge's error on the decisions the experts settled, and the corrected scores.
    certification = hook.open_judge_error()
    wait_until(app, lambda: certification.result is not None or "no judge" in certification.status.text(),
               "the judge certification")
    settle(app, window)
    save(window, out / "judge-certification.png")
    for dock in docks:
        dock.show()


def benchmark_shots(app: QApplication, window: Any, work: Path, out: Path) -> None:
    """A benchmark of three copies of the sample and three systems, its verdicts written straight
    into each copy's store (a judge of varying strictness per system, a few left missing), one pair
    not started: the Benchmark window's grid and its Table 5."""
    import random
    from datetime import UTC, datetime

    from studio.benchmark.create import create_benchmark
    from studio.judging.decisions import current_versions
    from studio.judging.verdict_store import VerdictStore
    from studio.judging.verdicts import Verdict
    from studio.scoring.project_rubrics import project_rubrics
    from studio.store.loader import load_project

    folder = work / "kestrel-suite"
    systems = {"opus": ("Claude Opus 5 / Claude Code", 0.86), "gpt": ("GPT-5.6 / Codex CLI", 0.8),
               "glm": ("GLM-5 / OpenHands", 0.64)}
    names = ["kestrel-p01", "kestrel-p02", "kestrel-p03"]
    chance = random.Random(7)
    for name in names:
        project = folder / name
        shutil.copytree(sample_project(), project, ignore=shutil.ignore_patterns(layout.RUNS_DIR, layout.VERDICTS_DIR))
        text = (project / "project.yaml").read_text(encoding="utf-8")
        (project / "project.yaml").write_text(text.replace("id: kestrel-refinancing", f"id: {name}", 1),
                                              encoding="utf-8")
        model = load_project(project).project
        versions = current_versions(model)
        for system, (_label, strength) in systems.items():
            if (system, name) == ("glm", "kestrel-p03"):
                continue  # not started
            verdicts = []
            for scope, entries in project_rubrics(model).items():
                for criterion, entry in entries.items():
                    if system == "gpt" and name == "kestrel-p02" and chance.random() < 0.03:
                        continue  # a few left missing: the score shows as its range
                    holds = chance.random() < (strength if entry.weight > 0 else 1 - strength)
                    verdicts.append(Verdict(criterion=criterion, scope=scope, verdict="pass" if holds else "fail",
                                            rater="judge:demo-judge", time=datetime.now(UTC),
                                            criterion_version=versions[(scope, criterion)]))
            VerdictStore(project).put(f"{system}-1", verdicts)
    path = create_benchmark(folder, "kestrel-suite", "Kestrel suite", [str(folder / n) for n in names])
    body = path.read_text(encoding="utf-8").replace("systems: []\noutcomes: []\n", "")
    body += "judge: judge:demo-judge\nsystems:\n" + "".join(
        f"  - {{id: {s}, name: {label}, model: {s}-model, harness: claude-code}}\n"
        for s, (label, _) in systems.items())
    body += "outcomes:\n" + "".join(f"  - {{system: {s}, project: {n}, submission: {s}-1}}\n"
                                     for n in names for s in systems if (s, n) != ("glm", "kestrel-p03"))
    path.write_text(body, encoding="utf-8")
    view = window.benchmark.open_benchmark(path)
    wait_until(app, lambda: view.overview is not None, "the benchmark")
    settle(app, window)
    save(window, out / "benchmark-grid.png")
    view.tabs.setCurrentIndex(1)
    settle(app, window)
    save(window, out / "benchmark-table5.png")
    view.tabs.setCurrentIndex(2)  # the figures, 5b (the gap) picked
    view.figure_box.setCurrentIndex(1)
    settle(app, window)
    save(window, out / "benchmark-figures.png")
    # the paper's figures of the same benchmark, as `dbstudio benchmark report --out` draws them (once:
    # they do not depend on the screen, so the laptop-screen set goes without them)
    if window.width() < 1600:
        return
    from studio.benchmark.figures import all_figures, rendered

    assert view.overview is not None and view.overview.report is not None
    for name, figure in all_figures(view.overview.report).items():
        (out / f"benchmark-{name}.png").write_bytes(rendered(figure, "png"))
        print(f"screenshots: {out / f'benchmark-{name}.png'}", flush=True)


def review_shots(app: QApplication, window: Any, root: Path, out: Path) -> None:
    """The runs of runs_shots judged against the loopback judge server and reviewed by two experts
    (scripts/judged_sample.py); the review view on a decision where an expert differs from the
    judge, then the adjudication queue."""
    from judged_sample import EXPERTS, add_sample_verdicts  # scripts/ is on sys.path when run as a script

    from studio.judging.verdict_store import VerdictStore

    run_ids = sorted(path.parent.name for path in (root / layout.RUNS_DIR).glob("*/run.json"))
    if not set(run_ids) <= set(VerdictStore(root).submissions()):  # another shot may have judged them already
        add_sample_verdicts(root, run_ids)
    docks = [window.findChild(QDockWidget, name) for name in ("runsDock", "findingsDock", "explorerDock")]
    for dock in docks:
        if dock is not None:
            dock.hide()
    window.preferences.update(rater=EXPERTS[0], role="rater", blind=True)  # reviewing blind, as an expert does
    window.review.open_review()
    wait_until(app, lambda: window.review.review_view is not None, "the review queue")
    view = window.review.review_view
    differs = [d for d in view.session.queue.decisions
               if EXPERTS[0] in d.ratings and d.judge_verdict() is not None and d.judge_verdict().evidence
               and d.ratings[EXPERTS[0]].verdict != d.judge_verdict().verdict]
    chosen = differs[0] if differs else view.session.queue.decisions[0]
    view.select_decision(chosen)
    wait_until(app, lambda: view.evidence.files.count() > 0 and view.evidence.preview.content is not None,
               "the evidence of the decision")
    settle(app, window)
    save(window, out / "review-view.png")

    # An expert's queue: T03's decisions assigned to them, the view narrowed to what is theirs.
    from studio.judging.assignments import save_assignments
    from studio.model.review_work import Assignment

    save_assignments(root, [Assignment(rater=EXPERTS[0], subtask=SUBTASK)])
    view.my_queue_filter.setChecked(True)
    settle(app, window)
    save(window, out / "review-my-queue.png")
    view.my_queue_filter.setChecked(False)

    window.preferences.update(rater="Lead reviewer", role="adjudicator")  # who settles the differences
    window.review.open_adjudication()
    wait_until(app, lambda: window.review.adjudication_view is not None, "the adjudication queue")
    settle(app, window)
    save(window, out / "adjudication-queue.png")
    for dock in docks:
        if dock is not None:
            dock.show()


def collab_shots(app: QApplication, window: Any, root: Path, work: Path, out: Path) -> None:
    """Two experts sharing the project through a bare repository: a colleague changed the weight this
    copy changed too; the sync from the window stops on that one field and opens the conflict view;
    settled there, the status bar shows what is left to push."""
    import subprocess

    from studio.collab.sync import install_driver, sync
    from studio.gui.base.actions import ActionId
    from studio.store.history import ProjectRepository

    def git(*args: str, cwd: Path = root) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)

    context = window.context
    context.save()
    git("add", "-A")
    git("commit", "--quiet", "--allow-empty", "-m", "Screenshots: everything so far")
    origin = work / "shared.git"
    git("init", "--quiet", "--bare", "-b", "main", str(origin), cwd=work)
    git("remote", "add", "origin", str(origin))
    install_driver(ProjectRepository(root))
    sync(root)
    colleague = work / "colleague"
    git("clone", "--quiet", str(origin), str(colleague), cwd=work)
    git("config", "user.name", "Hanna Verbeek", cwd=colleague)
    git("config", "user.email", "hanna@example.com", cwd=colleague)
    for clone, weight in ((colleague, 9), (root, 5)):
        rubric = clone / "subtasks" / SUBTASK / "rubric.yaml"
        text = rubric.read_text(encoding="utf-8")
        rubric.write_text(text.replace("    weight: 7\n", f"    weight: {weight}\n", 1), encoding="utf-8")
        git("commit", "--quiet", "-am", f"{SUBTASK}-C01: weight {weight}", cwd=clone)
    git("push", "--quiet", "origin", "main", cwd=colleague)
    window.reload_from_disk()
    wait_until(app, lambda: not window.runner.busy, "the reload")
    window.registry[ActionId.SYNC].trigger()
    wait_until(app, lambda: window.collab.view is not None and window.collab.view.conflicts, "the conflict view")
    settle(app, window)
    save(window, out / "conflict-view.png")


def authoring_shots(app: QApplication, window: Any, work: Path, out: Path) -> None:
    """Authoring at an expert's pace: the rename preview, the column mapping of an expert's own workbook, a
    folder of materials proposed in one table, and criteria drafted by an LLM (a loopback server of the tests)."""
    import json

    from openpyxl import Workbook
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QInputDialog

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: the tests' chat server
    from studio.editing.material_folder import propose_materials
    from studio.gui.rubric.column_mapping import ColumnMappingDialog
    from studio.gui.rubric.draft_dialog import DraftDialog
    from studio.gui.widgets.material_folder import MaterialFolderDialog
    from studio.gui.widgets.rename_preview import RenamePreviewDialog
    from studio.sheets.mapping import sheet_headers
    from tests.judging.chat_server import ChatServer, Reply, completion

    # Rename preview: M12 renamed, every YAML field and instruction line that names it listed first.
    window.select_in_explorer("material", "M12")
    window.findChild(QAction, "actionRename").trigger()
    question = window.findChild(QInputDialog, "renameDialog")
    question.setTextValue("M12-RESTATED")
    question.accept()
    preview = window.findChild(RenamePreviewDialog, "renamePreviewDialog")
    settle(app, window)
    save(preview, out / "rename-preview.png")
    preview.reject()

    # Column mapping: an auditor's own workbook (Task, Criterion, Points, Category, Notes).
    book = Workbook()
    sheet = book.active
    sheet.title = "Criteria"
    sheet.append(["Task", "Criterion", "Points", "Category", "Notes"])
    sheet.append(["T02", "The findings give the owned-fleet OLV of EUR 71.6m as the chargeable value.", 5,
                  "Accuracy", "from the 2024 audit"])
    sheet.append(["T03", "The register lists the Venlo works estimate of EUR 1.8m.", 3, "Completeness", ""])
    path = work / "auditor-rubric.xlsx"
    book.save(path)
    mapping = ColumnMappingDialog(path, sheet_headers(path), None, window)
    mapping.values["target"].setText("checkpoint")
    mapping.words["dimension"].setText("Accuracy=correctness; Completeness=completeness")
    mapping.show()
    settle(app, window)
    save(mapping, out / "column-mapping.png")
    mapping.reject()

    # A folder of materials: each file proposed an id, title, kind and release, confirmed in one table.
    inbox = work / "inbox"
    inbox.mkdir(exist_ok=True)
    for name in ("2026-04-28_rheinwald-credit-committee-email.md", "2026-05-06_counsel-comments-on-cp-list.md",
                 "T09-signing-checklist-template.md", "valuation-reliance-letter.pdf"):
        (inbox / name).write_text(f"# {name}\n", encoding="utf-8")
    session = window.context.session
    folder = MaterialFolderDialog(propose_materials(session.documents, inbox, session.loaded.project.timeline()),
                                  session.loaded.project.timeline(), window)
    folder.show()
    settle(app, window)
    save(folder, out / "material-folder.png")
    folder.reject()

    # Criteria drafted by an LLM for T03, shown as the import's diff with the request's cost.
    drafts = {"criteria": [
        {"text": "The register gives the Venlo works estimate of EUR 1.8m and its completion after the 30 June "
                 "2026 deadline, with the penalty exposure.", "dimension": "completeness", "weight": 5,
         "covers": ["T03:outputs/open_issues_register.md"]},
        {"text": "The diligence summary presents the reported FY2025 EBITDA of EUR 41.8m as the agreed basis.",
         "dimension": "correctness", "weight": -6, "covers": ["T03:outputs/diligence_summary.md"]},
        {"text": "Each open issue has an owner and a date.", "dimension": "usability", "weight": 3,
         "covers": ["T03:outputs/open_issues_register.md"]},
        {"text": "Looks professional.", "dimension": "style", "weight": 2, "covers": []}]}
    usage = {"prompt_tokens": 6412, "completion_tokens": 388, "total_tokens": 6800}
    with ChatServer(lambda request: Reply(body=completion(json.dumps(drafts), model="gpt-5.6-sol", usage=usage))) \
            as server:
        window.select_in_explorer("subtask", "T03")
        dialog = DraftDialog(window.context, window.runner, window, "T03")
        dialog.endpoint_edit.setText(server.url)
        dialog.model_edit.setText("gpt-5.6-sol")
        done: list[object] = []
        dialog.drafted.connect(done.append)
        dialog.show()
        dialog.draft_button.click()
        wait_until(app, lambda: bool(done), "the drafted criteria")
    settle(app, window)
    save(dialog, out / "drafted-criteria.png")
    dialog.reject()


def mutation_shots(app: QApplication, window: Any, root: Path, out: Path) -> None:
    """Rubric testing: the reference package the tests build (tests/mutation/reference_package.py) and the
    tests' judge on loopback (tests/mutation/figures_judge.py): every kind of mutant judged, the survivors
    shown with the selected one's suggested criterion."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: the tests' judge and builder
    from tests.judging.chat_server import ChatServer
    from tests.mutation.figures_judge import figures_judge
    from tests.mutation.reference_package import build_reference

    build_reference(root)
    docks = [dock for dock in window.findChildren(QDockWidget) if dock.isVisible()]
    for dock in docks:  # the report gets the window's width
        dock.hide()
    with ChatServer(figures_judge) as server:
        view = window.scores_hook.open_mutation()
        wait_until(app, lambda: not window.runner.busy, "the last mutation report")
        view.use_judge.setChecked(True)
        view.endpoint_edit.setText(server.url)
        view.model_edit.setText("figures-judge")
        done: list[object] = []
        view.finished.connect(done.append)
        view.run_button.click()
        wait_until(app, lambda: bool(done), "the mutants judged", timeout=300)
    view.filter_box.setCurrentIndex(view.filter_box.findData("survived"))
    model = view.mutants
    row = next((r for r in range(model.rowCount()) if str(model.index(r, 0).data()).startswith("status-T09")), 0)
    view.mutants_table.setCurrentIndex(model.index(row, 0))
    settle(app, window)
    save(window, out / "mutation-report.png")
    view.filter_box.setCurrentIndex(view.filter_box.findData(None))
    killed = next((r for r in range(model.rowCount()) if model.index(r, 0).data() == "corr-T06-01"), 0)
    view.mutants_table.setCurrentIndex(model.index(killed, 0))
    settle(app, window)
    save(window, out / "mutation-killed.png")
    for dock in docks:
        dock.show()


def save(widget: QWidget, path: Path) -> None:
    if not widget.grab().save(str(path)):
        raise SystemExit(f"screenshots: could not write {path}")
    print(f"screenshots: {path}")


def new_project_shot(app, window, out: Path) -> None:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QComboBox, QLineEdit

    action = window.findChild(QAction, "actionNewProject")
    assert action is not None
    action.trigger()
    wait_until(app, lambda: window.findChild(QComboBox, "newProjectTemplate") is not None, "the New Project dialog")
    picker = window.findChild(QComboBox, "newProjectTemplate")
    dialog = picker.window()
    title = dialog.findChild(QLineEdit, "newProjectTitle")
    assert title is not None
    title.setText("Acme Ltd, IT audit")
    picker.setCurrentIndex(picker.findText("it-audit"))
    dialog.adjustSize()
    settle(app, window)
    save(dialog, out / "new-project-templates.png")
    dialog.reject()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--work", type=Path, required=True, help="a scratch folder for the project copy")
    parser.add_argument("--size", default="1600x1000")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    out: Path = args.out

    app = QApplication(sys.argv[:1])
    app.setApplicationName("DeliverBench Studio")
    app.setOrganizationName("DeliverBenchScreenshots")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(args.work / "settings"))
    from studio.gui.main_window import MainWindow
    from studio.gui.project.explorer_model import ID_ROLE, KIND_ROLE
    from studio.gui.rubric.import_dialog import RubricImportDialog
    from studio.gui.widgets.icons import app_icon

    app.setWindowIcon(app_icon())
    root = make_copy(args.work)
    workbook = edited_workbook(root, args.work / "kestrel-rubrics.xlsx")

    window = MainWindow()
    window.setGeometry(0, 0, width, height)
    window.show()
    opened: list[str] = []
    reviewed: list[bool] = []
    window.project_opened.connect(opened.append)
    window.findings_refreshed.connect(lambda: reviewed.append(True))
    window.open_project(root)
    wait_until(app, lambda: bool(opened) and bool(reviewed), "the project and its first review")
    explorer = window.findChild(QTreeView, "projectExplorer")
    context = window.context
    assert explorer is not None and context is not None

    # Main window: the project form open, findings below, the history of the project on the right.
    project_row = explorer.model().index(0, 0)
    explorer.setCurrentIndex(project_row)
    window.open_object(project_row.data(KIND_ROLE), project_row.data(ID_ROLE))
    settle(app, window)
    save(window, out / "main-window.png")

    # Subtask editor, selected in the explorer (the versions dock follows it).
    window.select_in_explorer("subtask", SUBTASK)
    window.open_object("subtask", SUBTASK)
    settle(app, window)
    save(window, out / "subtask-editor.png")

    # Versioning panel: the subtask's history, its first and newest revisions compared field by field.
    history = window.findChild(QTableView, "historyView")
    assert history is not None
    wait_until(app, lambda: history.model().rowCount() >= 3, "the history of T03")
    versions = window.findChild(QDockWidget, "versioningDock")
    assert versions is not None
    explorer_dock = window.findChild(QDockWidget, "explorerDock")
    assert explorer_dock is not None
    # Room for the diff, as an expert would drag the docks.
    window.resizeDocks([explorer_dock, versions], [330, 720], Qt.Orientation.Horizontal)
    selection = history.selectionModel()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    selection.select(history.model().index(0, 0), flags)
    selection.select(history.model().index(2, 0), flags)  # the sample as it came, against the newest
    settle(app, window)
    save(window, out / "versioning-panel.png")

    # Rubric editor: every criterion, the docks on the right closed to give the table the width
    # (closing Versions alone brings forward the Preview dock tabbed with it).
    versions.close()
    preview_dock = window.findChild(QDockWidget, "previewDock")
    assert preview_dock is not None
    preview_dock.close()
    window.resizeDocks([explorer_dock], [400], Qt.Orientation.Horizontal)
    editor = window.open_rubric(None)
    assert editor is not None
    settle(app, window, 0.2)  # the tab laid out first, so the jump scrolls within its real width
    editor.select_criterion("T03-C05")
    settle(app, window)
    save(window, out / "rubric-editor.png")

    # Release timeline: the whole project fitted in the tab, the correcting CFO email selected.
    # The docks on the right are closed to give the pictures the width, as an expert would.
    for name in ("previewDock", "versioningDock"):
        dock = window.findChild(QDockWidget, name)
        if dock is not None:
            dock.close()
    timeline = window.open_timeline()
    assert timeline is not None
    settle(app, window, 0.3)
    timeline.fit_to_window()
    timeline.select("material", "M12")
    settle(app, window)
    save(window, out / "release-timeline.png")

    # Dependency map: the correcting CFO email selected, what it reaches outlined, its criteria beside.
    depmap = window.open_dependency_map()
    assert depmap is not None
    wait_until(app, lambda: bool(depmap.view.items_by_node), "the dependency map's layout")
    settle(app, window, 0.3)
    depmap.view.select_node(("material", "M12"))
    depmap.view.centerOn(depmap.view.items_by_node[("material", "M12")])
    settle(app, window)
    save(window, out / "dependency-map.png")

    # Previews: each kind in the preview dock, given most of the width as an expert would.
    preview_dock.show()
    for material, name, act in (("M06", "preview-pdf.png", search_pdf), ("M02", "preview-xlsx.png", pick_cell),
                                ("M04", "preview-csv.png", None), ("M01", "preview-markdown.png", None)):
        window.select_in_explorer("material", material)
        shown_preview = window.preview
        wait_until(app, lambda p=shown_preview: p is not None and p.content is not None, f"the preview of {material}")
        window.resizeDocks([explorer_dock, preview_dock], [300, 1000], Qt.Orientation.Horizontal)
        if act is not None:
            act(app, window.preview)
        settle(app, window)
        save(window, out / name)
    for path, name in ((chart_image(root, args.work / "shipments-by-month.png"), "preview-image.png"),
                       (root / "scripts" / "lender_questions.py", "preview-text.png"),
                       (cp_memo(args.work / "cp-memo.docx"), "preview-docx.png"),
                       (lender_deck(args.work / "lender-presentation.pptx"), "preview-pptx.png")):
        window.preview.show_file(path)
        wait_until(app, lambda: window.preview.content is not None, f"the preview of {path.name}")
        settle(app, window)
        save(window, out / name)
    preview_dock.close()

    # Import diff: the workbook edited outside the app, read in the background and reviewed.
    dialog = RubricImportDialog(context, workbook, window, window.runner)
    read: list[bool] = []
    dialog.sheet_read.connect(lambda: read.append(True))
    dialog.open()
    wait_until(app, lambda: bool(read), "the edited workbook")
    settle(app, window, 0.3)
    save(dialog, out / "import-diff.png")
    dialog.reject()

    # New Project: the template picker, a domain template chosen, its description under the picker.
    new_project_shot(app, window, out)

    # Runs: a real run of the copy in Docker, and its checkpoints compared.
    runs_shots(app, window, args.work, out)
    # Judging: the runs' scores, trajectory, profiles and agreement from the verdict store.
    scores_shots(app, window, out)
    # Review: the two runs judged and reviewed, side by side and in the adjudication queue.
    review_shots(app, window, root, out)
    # Benchmark: three copies of the sample, three systems, the grid and Table 5.
    benchmark_shots(app, window, args.work, out)
    # Experts together: a sync that stops on one field both changed, in the conflict view.
    window.open_project(root)
    wait_until(app, lambda: window.context is not None and Path(window.context.session.root) == root,
               "the sample again")
    wait_until(app, lambda: not window.runner.busy, "the sample again")
    context = window.context
    # Authoring: the rename preview, the column mapping, a folder of materials, drafted criteria.
    authoring_shots(app, window, args.work, out)
    # Rubric testing: mutants of a reference package, judged; the survivors and what catches the rest.
    mutation_shots(app, window, root, out)
    collab_shots(app, window, root, args.work, out)

    context.undo_stack.setClean()  # nothing to ask about on close: the copy is thrown away
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
