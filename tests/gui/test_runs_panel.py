"""The runs panel: its models updated in place, following runs whose records and logs change on
disk, the start-a-run dialog's messages, and (real Docker, real containers) a script-harness run
started from the panel, followed to its end, and its checkpoints compared."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.gui.runs_data import TAIL_BYTES, read_run, tail
from studio.gui.runs_models import RunsModel, SubtasksModel
from studio.gui.runs_panel import RunsPanel
from studio.gui.tasks import TaskRunner
from studio.runs.lock import holding_run
from studio.runs.record import RunStatus
from tests.gui.runs_support import make_run, set_progress


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


def test_the_log_tail_reads_only_the_end_of_a_big_log(tmp_path: Path):
    log = tmp_path / "T01.log"
    log.write_text("".join(f"line {n} " + "x" * 200 + "\n" for n in range(5000)), encoding="utf-8")
    text = tail(log)
    lines = text.splitlines()
    assert len(lines) == 200 and lines[-1].startswith("line 4999 ") and lines[0].startswith("line 4800 ")
    assert len(text.encode()) <= TAIL_BYTES
    assert tail(tmp_path / "absent.log") == ""


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
