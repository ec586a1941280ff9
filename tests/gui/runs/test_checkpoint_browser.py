"""The checkpoint browser on real checkpoints in a real store: the lazy file tree, the preview of a
stored file, the diff between two checkpoints with its text diff, and the exports."""

from __future__ import annotations

import tarfile
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit, QStackedWidget, QTextBrowser

from studio.gui.base.tasks import TaskRunner
from studio.gui.runs.checkpoint_browser import CheckpointBrowser
from studio.gui.runs.checkpoint_models import ENTRY_ROLE, PATH_ROLE, CheckpointDiffModel, ManifestTreeModel
from studio.runs.overview import read_run
from studio.runs.store import CheckpointStore, Entry, Manifest
from tests.gui.runs_support import WORKSPACES, make_run


def entry(size: int = 1, kind: str = "file", target: str | None = None) -> Entry:
    return Entry(
        kind=kind,  # type: ignore[arg-type]
        sha256=("ab" * 32) if kind == "file" else None,
        size=size if kind == "file" else 0,
        executable=False,
        target=target,
    )


def manifest() -> Manifest:
    return Manifest.build(
        {
            "brief.md": entry(30),
            "outputs/report.md": entry(2048),
            "outputs/appendix/tables/t1.csv": entry(40),
            "outputs/appendix/notes.md": entry(10),
            "outputs/empty": entry(kind="dir"),
            "outputs/latest": entry(kind="link", target="report.md"),
            "zeta.txt": entry(5),
            "Alpha.txt": entry(5),
        }
    )


def names(model: ManifestTreeModel, parent: QModelIndex = QModelIndex()) -> list[str]:
    return [model.index(row, 0, parent).data() for row in range(model.rowCount(parent))]


def test_the_tree_lists_folders_first_and_reads_a_folder_only_when_it_is_opened(qtbot, qtmodeltester):
    model = ManifestTreeModel()
    model.set_manifest(manifest())
    assert names(model) == ["outputs", "Alpha.txt", "brief.md", "zeta.txt"]
    outputs = model.index(0, 0)
    assert model.hasChildren(outputs)
    assert model.rowCount(outputs) == 0 and model.canFetchMore(outputs)  # not worked out yet
    with qtbot.waitSignal(model.rowsInserted, timeout=1000) as inserted:
        model.fetchMore(outputs)
    assert inserted.args[1:] == [0, 3]
    assert names(model, outputs) == ["appendix", "empty/", "latest", "report.md"]
    assert not model.canFetchMore(outputs)
    latest = model.index(2, 1, outputs)
    assert latest.data() == "→ report.md"
    assert model.index(3, 1, outputs).data() == "2.0 kB"
    empty = model.index(1, 0, outputs)
    assert not model.hasChildren(empty) and empty.data(ENTRY_ROLE).kind == "dir"
    deep = model.index_of("outputs/appendix/tables/t1.csv")
    assert deep.data(PATH_ROLE) == "outputs/appendix/tables/t1.csv"
    assert deep.parent().parent().data() == "appendix"
    assert not model.index_of("outputs/missing.md").isValid()
    qtmodeltester.check(model)
    model.set_manifest(None)
    assert model.rowCount() == 0


def test_the_diff_model_lists_added_removed_and_changed_paths_with_their_sizes(tmp_path: Path, qtmodeltester):
    store = CheckpointStore(tmp_path / "store", durable=False)
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "keep.md").write_text("same\n")
    (folder / "grow.md").write_text("short\n")
    (folder / "gone.md").write_text("bye\n")
    before = store.snapshot(folder)
    (folder / "grow.md").write_text("much longer now\n")
    (folder / "gone.md").unlink()
    (folder / "new.md").write_text("hello\n")
    after = store.snapshot(folder)
    model = CheckpointDiffModel()
    model.set_diff(store.diff(before, after), before, after)
    qtmodeltester.check(model)
    rows = [[model.index(row, column).data() for column in range(3)] for row in range(model.rowCount())]
    assert rows == [["Removed", "gone.md", "4 B"], ["Changed", "grow.md", "6 B → 16 B"], ["Added", "new.md", "6 B"]]
    assert model.index(0, 0).data(Qt.ItemDataRole.ForegroundRole).name() == "#b3261e"
    model.set_diff(None)
    assert model.rowCount() == 0


def open_browser(qtbot, tmp_path: Path) -> CheckpointBrowser:
    run_dir = make_run(tmp_path / "runs")
    runner = TaskRunner()
    browser = CheckpointBrowser(read_run(run_dir), runner)
    qtbot.addWidget(browser)
    with qtbot.waitSignal(browser.loaded, timeout=10000):
        browser.show()
    return browser


def test_the_browser_shows_each_checkpoint_and_previews_a_stored_file(qtbot, tmp_path: Path):
    browser = open_browser(qtbot, tmp_path)
    assert [browser.picker.itemText(i) for i in range(browser.picker.count())] == [
        "after T01",
        "after T02",
        "after T03",
    ]
    assert browser.picker.currentText() == "after T03"  # the latest first
    assert names(browser.tree_model) == ["materials", "outputs", "brief.md"]
    assert browser.summary.text().startswith("6 files")
    browser.choose("T01")
    assert names(browser.tree_model) == ["outputs", "brief.md"]
    with qtbot.waitSignal(browser.preview.shown, timeout=10000) as shown:
        browser.select_file("outputs/report.md")
    assert shown.args == ["markdown"]
    markdown = browser.preview.findChild(QTextBrowser, "previewMarkdown")
    assert "First figures." in markdown.toPlainText()
    assert "Revision" not in markdown.toPlainText()  # T01's version, not T02's
    browser.choose("T02")
    with qtbot.waitSignal(browser.preview.shown, timeout=10000):
        browser.select_file("outputs/report.md")
    assert "The corrected figure is 4,417." in browser.preview.findChild(QTextBrowser, "previewMarkdown").toPlainText()
    browser.close()


def test_the_diff_lists_the_changes_and_shows_the_text_diff_of_the_selected_file(qtbot, tmp_path: Path):
    browser = open_browser(qtbot, tmp_path)
    with qtbot.waitSignal(browser.text_diff_shown, timeout=10000):
        browser.choose("T02", compare_with="T01")  # the first change is selected and its diff read
    assert browser.tabs.isTabEnabled(1) and browser.tabs.tabText(1) == "Changes since T01"
    model = browser.diff_model
    rows = {model.index(row, 1).data(): model.index(row, 0).data() for row in range(model.rowCount())}
    assert rows == {
        "materials/client-correction.md": "Added",
        "outputs/notes.txt": "Removed",
        "outputs/report.md": "Changed",
    }
    assert "1 added, 1 removed, 1 changed" in browser.summary.text()
    with qtbot.waitSignal(browser.text_diff_shown, timeout=10000) as shown:
        browser.select_change("outputs/report.md")
    assert shown.args == ["outputs/report.md"]
    text = browser.findChild(QPlainTextEdit, "checkpointTextDiff").toPlainText()
    assert "--- a/outputs/report.md" in text and "+The corrected figure is 4,417." in text
    with qtbot.waitSignal(browser.text_diff_shown, timeout=10000):
        browser.choose("T03", compare_with="T02")
    with qtbot.waitSignal(browser.text_diff_shown, timeout=10000):
        browser.select_change("outputs/chart.bin")
    assert "not a text file" in browser.text_diff.toPlainText()
    browser.choose("T03")
    assert not browser.tabs.isTabEnabled(1) and browser.diff_model.rowCount() == 0


def test_a_checkpoint_is_exported_as_a_folder_and_as_a_tar_gz(qtbot, tmp_path: Path):
    browser = open_browser(qtbot, tmp_path)
    browser.choose("T02")
    with qtbot.waitSignal(browser.exported, timeout=10000):
        browser.export_to(tmp_path / "out", tar=False)
    assert (tmp_path / "out/outputs/report.md").read_text(encoding="utf-8") == WORKSPACES[1]["outputs/report.md"]
    assert not (tmp_path / "out/outputs/notes.txt").exists()
    with qtbot.waitSignal(browser.exported, timeout=10000) as exported:
        browser.export_to(tmp_path / "t02", tar=True)
    assert exported.args == [str(tmp_path / "t02.tar.gz")]
    with tarfile.open(tmp_path / "t02.tar.gz") as archive:
        member = archive.extractfile("outputs/chart.bin")
        assert member is not None and member.read() == WORKSPACES[0]["outputs/chart.bin"]
    browser.export_to(tmp_path / "out", tar=False)  # not empty: refused, said in the window
    qtbot.waitUntil(lambda: "not an empty folder" in browser.summary.text(), timeout=10000)


def test_a_link_or_an_empty_folder_is_described_instead_of_previewed(qtbot, tmp_path: Path):
    runs = tmp_path / "runs"
    run_dir = make_run(runs, done=1, subtasks=("T01",))
    workspace = run_dir / "workspace"
    (workspace / "latest.md").symlink_to("outputs/report.md")
    (workspace / "empty").mkdir()
    store = CheckpointStore(runs / "store", durable=False)
    from studio.runs.record import load_run, save_run

    record = load_run(run_dir)
    record.subtasks[0].checkpoint = store.snapshot(workspace).id
    save_run(run_dir, record)
    browser = CheckpointBrowser(read_run(run_dir), TaskRunner())
    qtbot.addWidget(browser)
    with qtbot.waitSignal(browser.loaded, timeout=10000):
        browser.show()
    browser.select_file("latest.md")
    stack = browser.findChild(QStackedWidget, "checkpointPreview")
    note = browser.findChild(QLabel, "checkpointPreviewNote")
    assert stack.currentWidget() is note and note.text() == "latest.md is a symbolic link to outputs/report.md"
    browser.select_file("empty")
    assert note.text() == "empty is an empty folder"
    QApplication.processEvents()


def test_a_link_target_the_agent_wrote_as_html_or_escapes_is_shown_as_plain_escaped_text(qtbot, tmp_path: Path):
    runs = tmp_path / "runs"
    run_dir = make_run(runs, done=1, subtasks=("T01",))
    workspace = run_dir / "workspace"
    (workspace / "link").symlink_to("<b>bold</b>\x1b[2J")
    store = CheckpointStore(runs / "store", durable=False)
    from studio.runs.record import load_run, save_run

    record = load_run(run_dir)
    record.subtasks[0].checkpoint = store.snapshot(workspace).id
    save_run(run_dir, record)
    browser = CheckpointBrowser(read_run(run_dir), TaskRunner())
    qtbot.addWidget(browser)
    with qtbot.waitSignal(browser.loaded, timeout=10000):
        browser.show()
    browser.select_file("link")
    note = browser.findChild(QLabel, "checkpointPreviewNote")
    assert note.text() == "link is a symbolic link to <b>bold</b>\\x1b[2J"
    assert note.textFormat() == Qt.TextFormat.PlainText
