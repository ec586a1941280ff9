"""Sync from the window: the status bar says where the clone stands, File > Sync with Remote
merges by object, a conflict opens the conflict view (base, mine, theirs side by side), and
settling it there commits the merge and shows the project as merged."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QPushButton, QTableWidget

from studio.gui.base.actions import ActionId
from tests.collab.conftest import edit
from tests.collab.test_sync import C02_TEXT, RUBRIC, both_weigh, weight_of
from tests.gui.shell_support import git, idle, open_window


def _criterion_in_window(window, criterion: str):
    return next(item for _, item in window.context.session.loaded.project.all_criteria() if item.id == criterion)


def _weight_in_window(window, criterion: str) -> int | None:
    return _criterion_in_window(window, criterion).weight


def _conflicting(team) -> None:
    edit(team.ben, RUBRIC, C02_TEXT, C02_TEXT.replace("records", "states"))
    both_weigh(team, ana=8, ben=6)
    assert team.sync(team.ana)[0] == 0


def test_the_status_bar_a_clean_sync_and_its_reload(qtbot, team):
    edit(team.ana, RUBRIC, C02_TEXT, C02_TEXT.replace("records", "states"))
    team.save(team.ana, "Ana: wording")
    assert team.sync(team.ana)[0] == 0
    window = open_window(qtbot, team.ben)
    label = window.findChild(QLabel, "syncStatus")
    qtbot.waitUntil(lambda: label.text() == "origin: ↑0 ↓0", timeout=10000)  # as of the last fetch
    window.registry[ActionId.SYNC].trigger()
    idle(qtbot, window)
    qtbot.waitUntil(lambda: label.text() == "origin: ↑0 ↓0" and not window.runner.busy, timeout=10000)
    qtbot.waitUntil(lambda: "states the Venlo" in _criterion_in_window(window, "T03-C02").text, timeout=10000)
    assert git(team.ben, "log", "-1", "--format=%s").strip() == "Ana: wording"


def test_a_conflict_opens_the_view_and_settling_it_there_commits_the_merge(qtbot, team):
    _conflicting(team)
    window = open_window(qtbot, team.ben)
    label = window.findChild(QLabel, "syncStatus")
    window.registry[ActionId.SYNC].trigger()
    qtbot.waitUntil(lambda: window.editor_tabs.currentWidget() is not None
                    and window.editor_tabs.currentWidget().objectName() == "conflictView", timeout=20000)
    view = window.editor_tabs.currentWidget()
    table = view.findChild(QTableWidget, "conflictTable")
    qtbot.waitUntil(lambda: table.rowCount() == 1, timeout=10000)
    assert [table.item(0, column).text() for column in range(5)] == [
        RUBRIC, "criteria[T03-C01].weight", "7", "6", "8"]
    panes = {name: view.findChild(QPlainTextEdit, name).toPlainText()
             for name in ("conflictBase", "conflictOurs", "conflictTheirs", "conflictValue")}
    assert panes == {"conflictBase": "7", "conflictOurs": "6", "conflictTheirs": "8", "conflictValue": "6"}
    qtbot.waitUntil(lambda: label.text() == "merge: 1 conflict(s) to resolve", timeout=10000)
    # while undecided the window shows ours, and the clean part of the merge already
    qtbot.waitUntil(lambda: _weight_in_window(window, "T03-C01") == 6, timeout=10000)
    qtbot.mouseClick(view.findChild(QPushButton, "takeTheirsButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: table.rowCount() == 0 and not window.runner.busy, timeout=20000)
    assert "No conflicts" in view.findChild(QLabel, "conflictSummary").text()
    assert weight_of(team.ben, "T03-C01") == 8
    assert len(git(team.ben, "log", "-1", "--format=%P").split()) == 2  # the merge, committed
    assert git(team.ben, "status", "--porcelain") == ""
    qtbot.waitUntil(lambda: _weight_in_window(window, "T03-C01") == 8, timeout=10000)  # read again
    qtbot.waitUntil(lambda: label.text() == "origin: ↑2 ↓0", timeout=10000)  # Ben's commit and the merge


def test_a_value_edited_in_the_view_settles_the_conflict(qtbot, team):
    _conflicting(team)
    assert team.sync(team.ben)[0] == 1  # the sync from the command line; the app settles it
    window = open_window(qtbot, team.ben)
    window.registry[ActionId.CONFLICTS].trigger()
    view = window.editor_tabs.currentWidget()
    table = view.findChild(QTableWidget, "conflictTable")
    qtbot.waitUntil(lambda: table.rowCount() == 1, timeout=10000)
    value = view.findChild(QPlainTextEdit, "conflictValue")
    value.setPlainText("5")
    qtbot.mouseClick(view.findChild(QPushButton, "useValueButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: table.rowCount() == 0 and not window.runner.busy, timeout=20000)
    assert weight_of(team.ben, "T03-C01") == 5
    assert "criteria[T03-C01].weight: set by hand" in git(team.ben, "log", "-1", "--format=%B")
