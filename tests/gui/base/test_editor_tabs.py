"""The editor area's keyed tabs: one per (kind, id), raised when asked for again, forgotten and
deleted when their close button is pressed, all closed with the project."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTabWidget

from studio.gui.base.editor_tabs import EditorTabs


def test_a_tab_is_shown_once_per_key_and_raised_when_asked_for_again(qtbot):
    area = QTabWidget()
    qtbot.addWidget(area)
    tabs = EditorTabs(area)
    first, second = QLabel("T01"), QLabel("F1")
    tabs.show(("subtask", "T01"), first, "Subtask T01")
    tabs.show(("deliverable", "F1"), second, "Deliverable F1")
    assert area.count() == 2 and area.currentWidget() is second
    assert tabs.show(("subtask", "T01"), first, "Subtask T01") is first
    assert area.count() == 2 and area.currentWidget() is first
    assert tabs.get(("subtask", "T01")) is first and tabs.keys() == [("subtask", "T01"), ("deliverable", "F1")]


def test_closing_a_tab_forgets_its_key_and_says_so(qtbot):
    area = QTabWidget()
    area.setTabsClosable(True)
    qtbot.addWidget(area)
    tabs = EditorTabs(area)
    editor = QLabel("T01")
    tabs.show(("subtask", "T01"), editor, "Subtask T01")
    area.addTab(QLabel("a feature's own tab"), "Review")  # no key: closed alike
    with qtbot.waitSignal(tabs.closed, timeout=1000) as closed:
        area.tabCloseRequested.emit(area.indexOf(editor))
    assert closed.args == [("subtask", "T01")]
    assert tabs.get(("subtask", "T01")) is None and area.count() == 1
    with qtbot.waitSignal(editor.destroyed, timeout=1000):
        pass  # deleted on the next turn of the event loop
    area.tabCloseRequested.emit(0)
    assert area.count() == 0


def test_closing_the_project_closes_every_tab(qtbot):
    area = QTabWidget()
    qtbot.addWidget(area)
    tabs = EditorTabs(area)
    tabs.show(("rubric", ""), QLabel("rubric"), "Rubric")
    area.addTab(QLabel("unkeyed"), "Scores")
    tabs.close_all()
    assert area.count() == 0 and tabs.keys() == []
