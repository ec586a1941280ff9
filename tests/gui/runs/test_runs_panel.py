"""The runs panel: its models updated in place, following runs whose records and logs change on
disk, the start-a-run dialog's messages, and (real Docker, real containers) a script-harness run
started from the panel, followed to its end, and its checkpoints compared."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMessageBox, QPlainTextEdit, QPushButton, QWidget

from studio.gui.base.tasks import TaskRunner
from studio.gui.runs.checkpoint_browser import CheckpointBrowser
from studio.gui.runs.models import RunsModel, SubtasksModel
from studio.gui.runs.panel import RunsPanel
from studio.gui.runs.run_dialog import RunDialog
from studio.runs.lock import holding_run
from studio.runs.overview import read_run
from studio.runs.record import RunStatus, SubtaskStatus, load_run
from tests.gui.runs_support import make_run, set_progress
from tests.gui.shell_support import child, git_identity, open_window, shown_dialog, type_into
from tests.runs import conftest as runs_conftest
from tests.runs.harnesses import write_harness
from tests.runs.projects import three_subtask_project

# The trial-run tests' fixtures (tests/runs/conftest.py): the real Docker engine and the local test image.
docker_engine = runs_conftest.docker_engine
test_image = runs_conftest.test_image


def cells(model, row: int) -> list[str]:
    return [model.index(row, column).data() for column in range(model.columnCount())]


def test_the_runs_model_updates_changed_cells_and_inserts_new_runs_without_a_reset(qtbot, qtmodeltester,
                                                                                   tmp_path: Path):
    runs = tmp_path / "runs"
    first = read_run(make_run(runs, "20261130-180000-aaaaaa", done=1, status=RunStatus.FAILED, message="exit 3"))
    model = RunsModel()
    model.set_runs([first])
    qtmodeltester.check(model)
    assert cells(model, 0) == ["20261130-180000-aaaaaa", "Failed", "script: harness.sh", "dbstudio/test-busybox:1",
                               first.created.astimezone().strftime("%Y-%m-%d %H:%M"), "1/3"]
    assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == "exit 3"
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    ticked = replace(first, status="running", message="exit 3",
                     subtasks=(first.subtasks[0], replace(first.subtasks[1], status="completed"), first.subtasks[2]))
    with qtbot.waitSignal(model.dataChanged, timeout=1000) as changed:
        model.update(ticked)
    top_left, bottom_right = changed.args[0], changed.args[1]
    assert (top_left.row(), top_left.column(), bottom_right.column()) == (0, 1, 5)  # status .. progress
    assert cells(model, 0)[1] == "Running" and cells(model, 0)[5] == "2/3"
    newer = read_run(make_run(runs, "20261130-190000-bbbbbb", done=3))
    with qtbot.waitSignal(model.rowsInserted, timeout=1000) as inserted:
        assert model.update(newer) == 0  # newest first
    assert inserted.args[1:] == [0, 0]
    with qtbot.assertNotEmitted(model.dataChanged):
        model.update(newer)  # read again, nothing changed: no signal
    assert resets == []
    qtmodeltester.check(model)
    model.remove(newer.run_id)
    assert model.rowCount() == 1


def test_the_subtasks_model_shows_what_each_attempt_left(qtbot, qtmodeltester, tmp_path: Path):
    run = read_run(make_run(tmp_path / "runs", done=2))
    model = SubtasksModel()
    model.set_run(run)
    qtmodeltester.check(model)
    assert cells(model, 0) == ["T01", "Completed", "0", "no", "42.0 s", "1,200 in · 310 out"]
    assert cells(model, 2) == ["T03", "Pending", "", "", "", ""]
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    timed_out = replace(run.subtasks[2], status="timed_out", timed_out=True, exit_code=137,
                        started=run.subtasks[0].started, ended=run.subtasks[0].started.replace(hour=19, minute=30))
    with qtbot.waitSignal(model.dataChanged, timeout=1000) as changed:
        model.set_run(replace(run, subtasks=(*run.subtasks[:2], timed_out)))
    assert changed.args[0].row() == 2 and changed.args[1].row() == 2
    assert cells(model, 2) == ["T03", "Timed out", "137", "yes", "1 h 30 min", ""]
    assert resets == []
    other = read_run(make_run(tmp_path / "other", "20261130-190000-cccccc", done=1, subtasks=("T01",)))
    model.set_run(other)  # another run: the one reset
    assert resets == [True] and model.rowCount() == 1
    qtmodeltester.check(model)


def test_the_panel_follows_a_run_as_its_record_and_log_change_on_disk(qtbot, tmp_path: Path):
    project = tmp_path / "project"
    runs = project / "runs"
    make_run(runs, "20261130-170000-dddddd", done=3)
    going = make_run(runs, "20261130-180000-eeeeee", done=1, status=RunStatus.RUNNING, log_lines=400)
    panel = RunsPanel(TaskRunner())
    qtbot.addWidget(panel)
    panel.show()
    with holding_run(going, "20261130-180000-eeeeee"):  # a live run: its process holds the run's lock
        with qtbot.waitSignal(panel.monitor.runs_listed, timeout=10000):
            panel.set_project(project)
        assert [cells(panel.runs_model, row)[:2] for row in range(2)] == [
            ["20261130-180000-eeeeee", "Running"], ["20261130-170000-dddddd", "Completed"]]
        assert panel.selected_run().run_id == "20261130-180000-eeeeee"
        assert panel.action_cancel.isEnabled() and not panel.action_resume.isEnabled()
        assert panel.action_checkpoints.isEnabled()
        qtbot.waitUntil(lambda: panel.log_view.toPlainText().endswith("T01 line 400"), timeout=5000)
        assert panel.log_view.toPlainText().splitlines()[0] == "T01 line 201"  # the last 200 lines
        assert panel.log_title.text() == "Log of T01 — T01.log"

        resets: list[bool] = []
        panel.runs_model.modelReset.connect(lambda: resets.append(True))
        panel.subtasks_model.modelReset.connect(lambda: resets.append(True))
        set_progress(going, 2)
        qtbot.waitUntil(lambda: cells(panel.runs_model, 0)[5] == "2/3", timeout=5000)
        assert cells(panel.subtasks_model, 1)[1] == "Completed"
        assert panel.log_title.text() == "Log of T02 — T02.log"  # the tail follows the latest subtask
        for line in ("T02 starts", "T02 the harness goes on"):
            with open(going / "logs/T02.log", "a", encoding="utf-8") as log:
                log.write(line + "\n")
            qtbot.waitUntil(lambda line=line: panel.log_view.toPlainText().endswith(line), timeout=5000)
        assert panel.log_view.toPlainText() == "T02 starts\nT02 the harness goes on"
        make_run(runs, "20261130-190000-ffffff", done=1, status=RunStatus.FAILED,
                 message="the harness exited with code 3 in T02")
        qtbot.waitUntil(lambda: panel.runs_model.rowCount() == 3, timeout=5000)  # a run started by the CLI
        assert resets == []
    # the process holding the lock is gone and the record still says running: interrupted
    qtbot.waitUntil(lambda: cells(panel.runs_model, 1)[1] == "Interrupted", timeout=5000)
    panel.select_run("20261130-180000-eeeeee")
    assert panel.action_resume.isEnabled() and not panel.action_cancel.isEnabled()
    panel.select_run("20261130-190000-ffffff")
    assert panel.message.isVisible() and panel.message.text() == "the harness exited with code 3 in T02"
    panel.subtasks_view.selectRow(0)
    qtbot.waitUntil(lambda: panel.log_view.toPlainText().endswith("T01 line 5"), timeout=5000)
    panel.set_project(None)
    assert panel.runs_model.rowCount() == 0 and not panel.action_start.isEnabled()
    QApplication.processEvents()


# -- real Docker: runs started from the window ----------------------------------------------------
def start_from_dialog(qtbot, window, harness: Path | None, image: str, preset: str | None = None):
    """New Run…, fill the dialog as a user does, press Start; returns the dialog."""
    child(window, QAction, "runStartAction").trigger()
    dialog = shown_dialog(qtbot, "runDialog")
    assert isinstance(dialog, RunDialog)
    qtbot.waitUntil(lambda: dialog.harness.count() > 1, timeout=20000)  # the presets are read
    if preset is not None:
        dialog.harness.setCurrentIndex(dialog.harness.findData(preset))
        assert not dialog.script.isEnabled()
    else:
        type_into(dialog.script, str(harness))
    type_into(dialog.image_edit, image)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    return dialog


def run_row(panel: RunsPanel) -> list[str]:
    return cells(panel.runs_model, 0) if panel.runs_model.rowCount() else []


def test_a_script_harness_run_started_from_the_panel_is_followed_to_its_end_and_its_checkpoints_compared(
        qtbot, tmp_path: Path, monkeypatch, test_image: str):
    git_identity(monkeypatch)
    project = three_subtask_project(tmp_path / "project")
    harness = write_harness(tmp_path / "harness.sh", listing=False)
    window = open_window(qtbot, project)
    panel = child(window, RunsPanel, "runsPanel")
    qtbot.waitUntil(lambda: panel.runs_dir == project / "runs", timeout=10000)
    assert panel.runs_model.rowCount() == 0
    dialog = start_from_dialog(qtbot, window, harness, test_image)
    assert dialog.cpus.value() == 2 and dialog.memory.value() == 8 and not dialog.network.isChecked()
    ticks: list[str] = []
    resets: list[bool] = []
    panel.runs_model.modelReset.connect(lambda: resets.append(True))
    panel.runs_model.dataChanged.connect(lambda top, *_: ticks.append(cells(panel.runs_model, top.row())[5]))
    qtbot.waitUntil(lambda: panel.runs_model.rowCount() == 1, timeout=60000)  # recorded, its process started
    assert not [w for w in QApplication.topLevelWidgets() if w.objectName() == "runDialog" and w.isVisible()]
    run_dir = panel.selected_run().run_dir
    assert run_dir.parent == project / "runs" and run_dir in panel.monitor.processes
    qtbot.waitUntil(lambda: run_row(panel)[1] in ("Completed", "Failed", "Interrupted"), timeout=180000)
    assert run_row(panel)[1:] == ["Completed", f"script: {harness.name}", test_image, run_row(panel)[4], "3/3"], \
        (run_dir / "process.log").read_text()
    assert ticks and ticks[-1] == "3/3" and resets == []  # followed cell by cell, never reset
    assert [cells(panel.subtasks_model, row)[:4] for row in range(3)] == [
        ["T01", "Completed", "0", "no"], ["T02", "Completed", "0", "no"], ["T03", "Completed", "0", "no"]]
    qtbot.waitUntil(lambda: panel.log_view.toPlainText().endswith("# Cover note"), timeout=10000)  # T03's log
    assert panel.log_title.text() == "Log of T03 — T03.log"
    assert not panel.action_cancel.isEnabled() and not panel.action_resume.isEnabled()
    qtbot.waitUntil(lambda: not panel.monitor.processes, timeout=30000)  # its process ended

    child(window, QAction, "runCheckpointsAction").trigger()
    browser = child(window, CheckpointBrowser, "checkpointBrowser")
    qtbot.waitUntil(lambda: bool(browser.manifests), timeout=20000)
    assert [browser.picker.itemText(i) for i in range(browser.picker.count())] == [
        "after T01", "after T02", "after T03", "final package"]
    with qtbot.waitSignal(browser.text_diff_shown, timeout=20000):
        browser.choose("T03", compare_with="T01")
    changes = {browser.diff_model.index(row, 1).data(): browser.diff_model.index(row, 0).data()
               for row in range(browser.diff_model.rowCount())}
    assert changes["outputs/cover.md"] == "Added" and changes["outputs/notes.txt"] == "Removed"
    assert changes["outputs/report.md"] == "Changed"
    with qtbot.waitSignal(browser.text_diff_shown, timeout=20000):
        browser.select_change("outputs/report.md")
    diff = child(browser, QPlainTextEdit, "checkpointTextDiff").toPlainText()
    assert "+## Revision" in diff and "--- a/outputs/report.md" in diff
    assert child(browser, QWidget, "checkpointDiff").isVisibleTo(browser)
    browser.close()


def test_the_dialog_says_what_to_do_when_the_engine_the_image_or_the_harness_is_missing(
        qtbot, tmp_path: Path, monkeypatch, test_image: str):
    git_identity(monkeypatch)
    project = three_subtask_project(tmp_path / "project")
    harness = write_harness(tmp_path / "harness.sh", listing=False)
    window = open_window(qtbot, project)
    panel = child(window, RunsPanel, "runsPanel")
    qtbot.waitUntil(lambda: panel.project_dir is not None, timeout=10000)
    message = None

    def said(dialog: RunDialog, text: str) -> str:
        qtbot.waitUntil(lambda: text in dialog.message.text() and dialog.start_button.isEnabled(), timeout=60000)
        return dialog.message.text()

    # no script chosen: said before anything runs
    child(window, QAction, "runStartAction").trigger()
    dialog = shown_dialog(qtbot, "runDialog")
    assert isinstance(dialog, RunDialog)
    qtbot.waitUntil(lambda: dialog.image.findText(test_image) >= 0, timeout=20000)  # the engine's images
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    assert said(dialog, "Choose the script").startswith("Choose the script the harness runs")
    # an image the engine lacks
    type_into(dialog.script, str(harness))
    type_into(dialog.image_edit, "dbstudio/not-built:7")
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    message = said(dialog, "is not on this engine")
    assert "dbstudio/not-built:7" in message and "Traceback" not in message
    # a preset whose API key is nowhere
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    dialog.harness.setCurrentIndex(dialog.harness.findData("claude-code"))
    type_into(dialog.image_edit, test_image)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    assert "export ANTHROPIC_API_KEY=" in said(dialog, "needs its API key")
    dialog.reject()
    # no engine at all: the list of images cannot be read, and Start says the same
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    child(window, QAction, "runStartAction").trigger()
    qtbot.waitUntil(lambda: len([w for w in QApplication.topLevelWidgets()
                                 if w.objectName() == "runDialog" and w.isVisible()]) == 1, timeout=5000)
    dialog = shown_dialog(qtbot, "runDialog")
    assert isinstance(dialog, RunDialog)
    assert said(dialog, "No Docker engine at").startswith(f"No Docker engine at unix://{tmp_path}/no-engine.sock")
    type_into(dialog.script, str(harness))
    type_into(dialog.image_edit, test_image)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Checking" not in dialog.message.text(), timeout=60000)
    assert dialog.message.text().startswith("No Docker engine at") and dialog.isVisible()
    assert not (project / "runs").exists() or not any((project / "runs").iterdir())  # nothing recorded
    dialog.reject()


def test_a_harness_that_exits_non_zero_stops_the_run_with_a_message_saying_what_to_do(
        qtbot, tmp_path: Path, monkeypatch, test_image: str):
    git_identity(monkeypatch)
    project = three_subtask_project(tmp_path / "project")
    harness = write_harness(tmp_path / "harness.sh", t02="echo 'cannot read the correction' >&2; exit 3",
                            listing=False)
    window = open_window(qtbot, project)
    panel = child(window, RunsPanel, "runsPanel")
    qtbot.waitUntil(lambda: panel.project_dir is not None, timeout=10000)
    start_from_dialog(qtbot, window, harness, test_image)
    qtbot.waitUntil(lambda: run_row(panel)[1:2] == ["Failed"], timeout=180000)
    assert run_row(panel)[5] == "1/3"
    assert panel.message.isVisible()
    assert panel.message.text().startswith("the harness exited with code 3 in T02: read its log")
    assert [cells(panel.subtasks_model, row)[:3] for row in range(3)] == [
        ["T01", "Completed", "0"], ["T02", "Failed", "3"], ["T03", "Pending", ""]]
    qtbot.waitUntil(lambda: panel.log_view.toPlainText().endswith("cannot read the correction"), timeout=10000)
    qtbot.waitUntil(lambda: panel.action_resume.isEnabled(), timeout=30000)  # once its process has ended
    assert panel.action_checkpoints.isEnabled()  # T01's checkpoint is kept


def test_closing_the_window_asks_to_leave_a_run_going_or_stop_it(qtbot, tmp_path: Path, monkeypatch,
                                                                 test_image: str):
    git_identity(monkeypatch)
    project = three_subtask_project(tmp_path / "project")
    harness = write_harness(tmp_path / "harness.sh", t02="sleep 60", listing=False)
    window = open_window(qtbot, project)
    panel = child(window, RunsPanel, "runsPanel")
    qtbot.waitUntil(lambda: panel.project_dir is not None, timeout=10000)
    start_from_dialog(qtbot, window, harness, test_image)
    qtbot.waitUntil(lambda: cells(panel.subtasks_model, 1)[1:2] == ["Running"], timeout=180000)
    run_dir = panel.selected_run().run_dir

    window.close()  # asks: Cancel keeps the window
    box = shown_dialog(qtbot, "runsCloseDialog")
    assert isinstance(box, QMessageBox) and "still going" in box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=5000)
    assert window.isVisible()

    window.close()  # Stop it: the run is cancelled and the window closes
    box = shown_dialog(qtbot, "runsCloseDialog")
    qtbot.mouseClick(child(box, QPushButton, "stopRunButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=10000)
    qtbot.waitUntil(lambda: load_run(run_dir).status == RunStatus.CANCELLED, timeout=60000)
    assert load_run(run_dir).subtask("T01").status == SubtaskStatus.COMPLETED


def test_a_run_left_going_when_the_window_closes_ends_on_its_own_and_shows_when_the_project_is_opened_again(
        qtbot, tmp_path: Path, monkeypatch, test_image: str):
    git_identity(monkeypatch)
    project = three_subtask_project(tmp_path / "project")
    # the harness waits in T02 until a file appears in its workspace, so the window closes mid-run
    harness = write_harness(tmp_path / "harness.sh", listing=False,
                            t02="while [ ! -e gate ]; do sleep 0.2; done")
    window = open_window(qtbot, project)
    panel = child(window, RunsPanel, "runsPanel")
    qtbot.waitUntil(lambda: panel.project_dir is not None, timeout=10000)
    start_from_dialog(qtbot, window, harness, test_image)
    qtbot.waitUntil(lambda: cells(panel.subtasks_model, 1)[1:2] == ["Running"], timeout=180000)
    run_dir = panel.selected_run().run_dir
    process = panel.monitor.processes[run_dir]

    window.close()
    box = shown_dialog(qtbot, "runsCloseDialog")
    qtbot.mouseClick(child(box, QPushButton, "leaveRunButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=10000)
    assert process.poll() is None  # the run goes on without the window
    (run_dir / "workspace" / "gate").touch()
    qtbot.waitUntil(lambda: load_run(run_dir).status == RunStatus.COMPLETED, timeout=180000)
    process.wait(timeout=60)

    again = open_window(qtbot, project)
    panel = child(again, RunsPanel, "runsPanel")
    qtbot.waitUntil(lambda: run_row(panel)[1:2] == ["Completed"], timeout=20000)
    assert run_row(panel)[5] == "3/3"


def test_a_run_cancelled_from_the_panel_resumes_from_its_last_checkpoint(qtbot, tmp_path: Path, monkeypatch,
                                                                         test_image: str):
    git_identity(monkeypatch)
    project = three_subtask_project(tmp_path / "project")
    # T02 waits for a file in its workspace: it is going when Cancel is pressed, and goes through on resume
    harness = write_harness(tmp_path / "harness.sh", listing=False, t02="while [ ! -e gate ]; do sleep 0.2; done")
    window = open_window(qtbot, project)
    panel = child(window, RunsPanel, "runsPanel")
    qtbot.waitUntil(lambda: panel.project_dir is not None, timeout=10000)
    start_from_dialog(qtbot, window, harness, test_image)
    qtbot.waitUntil(lambda: cells(panel.subtasks_model, 1)[1:2] == ["Running"], timeout=180000)
    run_dir = panel.selected_run().run_dir
    first_checkpoint = load_run(run_dir).subtask("T01").checkpoint
    assert panel.action_cancel.isEnabled() and not panel.action_resume.isEnabled()

    child(window, QAction, "runCancelAction").trigger()
    qtbot.waitUntil(lambda: run_row(panel)[1:2] == ["Cancelled"], timeout=60000)
    assert panel.message.text().startswith("cancelled during T02")
    assert [cells(panel.subtasks_model, row)[1] for row in range(3)] == ["Completed", "Pending", "Pending"]
    qtbot.waitUntil(lambda: panel.action_resume.isEnabled(), timeout=30000)  # its process has ended

    (run_dir / "workspace" / "gate").touch()  # lost on resume: the workspace is T01's checkpoint again
    child(window, QAction, "runResumeAction").trigger()
    assert not panel.action_resume.isEnabled()
    qtbot.waitUntil(lambda: run_row(panel)[1:2] == ["Running"], timeout=60000)
    assert not panel.message.isVisible()
    qtbot.waitUntil(lambda: cells(panel.subtasks_model, 1)[1:2] == ["Running"], timeout=60000)
    (run_dir / "workspace" / "gate").touch()
    qtbot.waitUntil(lambda: run_row(panel)[1:2] == ["Completed"], timeout=180000)
    record = load_run(run_dir)
    assert record.subtask("T01").checkpoint == first_checkpoint and record.subtask("T01").attempts == 1
    assert record.subtask("T02").attempts == 2 and run_row(panel)[5] == "3/3"
