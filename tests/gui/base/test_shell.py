"""The action registry and the shell: what features are installed with instead of the window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QTabWidget

from studio.gui.base.actions import ActionId, ActionRegistry, MenuId
from studio.gui.base.shell import Shell
from studio.gui.base.tasks import TaskRunner


def _shell(qtbot, context=None) -> tuple[QMainWindow, Shell, list]:
    window = QMainWindow()
    qtbot.addWidget(window)
    errors: list = []
    registry = ActionRegistry(window)
    tabs = QTabWidget(window)
    window.setCentralWidget(tabs)
    shell = Shell(window, TaskRunner(window), tabs, registry, context=lambda: context, show_error=errors.append,
                  refresh_git=lambda: None)
    return window, shell, errors


def test_the_menus_come_in_their_order_and_an_action_is_found_by_its_id(qtbot) -> None:
    window, shell, _errors = _shell(qtbot)
    assert [a.text() for a in window.menuBar().actions()] == [m.title for m in MenuId]
    calls: list[str] = []
    action = shell.actions.add(ActionId.SCORES, "Scores", lambda: calls.append("scores"), menu=MenuId.JUDGING,
                               needs_project=True)
    assert shell.actions[ActionId.SCORES] is action and action.objectName() == "scoresAction"
    assert shell.actions.menu(MenuId.JUDGING).actions() == [action]
    assert action in window.actions()  # its shortcut works anywhere in the window
    action.trigger()
    assert calls == ["scores"]
    with pytest.raises(ValueError, match="SCORES is registered twice"):
        shell.actions.add(ActionId.SCORES, "Again", lambda: None)


def test_actions_that_need_a_project_follow_the_open_project(qtbot) -> None:
    window, shell, _errors = _shell(qtbot)
    needs = shell.actions.add(ActionId.AGREEMENT, "Agreement", lambda: None, needs_project=True)
    always = shell.actions.add(ActionId.QUIT, "Quit", window.close)
    opened: list = []
    shell.project_opened.connect(opened.append)
    shell.announce(None)
    assert not needs.isEnabled() and always.isEnabled()
    marker = object()
    shell.announce(marker)  # type: ignore[arg-type]
    assert needs.isEnabled() and opened == [marker]


def test_a_tab_shown_twice_is_one_tab_and_its_closing_is_reported(qtbot) -> None:
    window, shell, _errors = _shell(qtbot)
    closed: list = []
    view = QLabel("a view")
    shell.show_tab(view, "View", on_closed=closed.append)
    shell.show_tab(view, "View", on_closed=closed.append)
    assert shell.tabs.count() == 1 and shell.tabs.currentWidget() is view
    with qtbot.waitSignal(view.destroyed):
        shell.tabs.removeTab(0)
        view.deleteLater()
    assert closed == [view]


def test_a_dock_switch_goes_with_the_other_docks_before_the_views(qtbot) -> None:
    window, shell, _errors = _shell(qtbot)
    view_menu = shell.actions.menu(MenuId.VIEW)
    first = shell.add_dock("firstDock", "First", QLabel("1"), Qt.DockWidgetArea.BottomDockWidgetArea)
    view_menu.addSeparator()
    timeline = shell.actions.add(ActionId.SHOW_TIMELINE, "Timeline", lambda: None, menu=MenuId.VIEW)
    second = shell.add_dock("secondDock", "Second", QLabel("2"), Qt.DockWidgetArea.BottomDockWidgetArea,
                            tab_with="firstDock")
    names = [a.text() for a in view_menu.actions()]
    assert names == ["First", "Second", "", "Timeline"] and timeline in view_menu.actions()
    assert shell.dock("secondDock") is second
    window.show()
    qtbot.waitUntil(lambda: second in window.tabifiedDockWidgets(first))


def test_preferences_changed_in_the_window_are_saved_and_announced(qtbot, isolated_preferences) -> None:
    from studio.preferences import RaterRole, load_preferences

    _window, shell, _errors = _shell(qtbot)
    with qtbot.waitSignal(shell.preferences.changed) as changed:
        shell.preferences.update(rater="Anna", role=RaterRole.ADJUDICATOR)
    assert changed.args[0].rater == "Anna"
    assert load_preferences(isolated_preferences / "preferences.yaml").role is RaterRole.ADJUDICATOR


def test_an_unreadable_preferences_file_gives_the_defaults_and_one_message(qtbot, isolated_preferences) -> None:
    isolated_preferences.mkdir()
    (isolated_preferences / "preferences.yaml").write_text("blind: [\n", encoding="utf-8")
    _window, shell, _errors = _shell(qtbot)
    with qtbot.waitSignal(shell.preferences.unreadable) as unreadable:
        assert shell.preferences.current.blind  # the default
    assert "preferences.yaml:" in str(unreadable.args[0]) and "defaults are used" in str(unreadable.args[0])
