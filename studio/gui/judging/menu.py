"""The Judging menu's scores and agreement actions, installed on the main window by one call
(`install_scores`): "Scores and Trajectories" opens the scores view, "Agreement Dashboard" the
agreement dashboard, each as a tab of the editor area. The views (and matplotlib, the judging
core) load only when first opened, so the window starts without them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QTabWidget, QWidget

from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.judge_dialog import JudgeAction

if TYPE_CHECKING:
    from studio.gui.judging.agreement_view import AgreementView
    from studio.gui.judging.scores_view import ScoresView

MENU_NAME = "menuJudging"


def judging_menu(window: QMainWindow) -> QMenu:
    """The window's Judging menu (`menuJudging`), made before the View menu if not there yet: the
    review and the scores each add their actions to the same one."""
    menu = window.findChild(QMenu, MENU_NAME)
    if menu is not None:
        return menu
    menu = QMenu("&Judging", window)
    menu.setObjectName(MENU_NAME)
    view_menu = window.findChild(QMenu, "menuView")
    if view_menu is not None:
        window.menuBar().insertMenu(view_menu.menuAction(), menu)
    else:
        window.menuBar().addMenu(menu)
    return menu


def judging_action(window: QMainWindow, name: str, text: str, tip: str, slot: Callable[[], Any],
                   shortcut: str | None = None) -> QAction:
    """An action of the Judging menu, also on the window so that its shortcut works anywhere in it."""
    action = QAction(text, window)
    action.setObjectName(name)
    action.setStatusTip(tip)
    action.setToolTip(tip)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    action.triggered.connect(lambda _checked=False: slot())
    window.addAction(action)
    return action


class ScoresHook(QObject):
    """The actions and the open views of scores and agreement for one window."""

    def __init__(self, window: QMainWindow, runner: TaskRunner) -> None:
        super().__init__(window)
        self.window = window
        self.runner = runner
        self.scores: ScoresView | None = None
        self.agreement: AgreementView | None = None
        self.action_scores = judging_action(window, "scoresAction", "&Scores and Trajectories",
                                            "Each run's checkpoint and final scores from the verdict store, "
                                            "the trajectory chart and the profiles", self.open_scores)
        self.action_agreement = judging_action(window, "agreementAction", "&Agreement Dashboard",
                                               "Judge-expert agreement, pooled and by target and dimension",
                                               self.open_agreement)
        menu = judging_menu(window)
        if menu.actions():
            menu.addSeparator()
        menu.addActions([self.action_scores, self.action_agreement])
        self.judge = JudgeAction(window, runner)  # Judge… (judge_dialog.py), enabled with a project like the others
        menu.insertAction(self.action_scores, self.judge.action)  # judge, then read the scores
        opened = getattr(window, "project_opened", None)
        closed = getattr(window, "project_closed", None)
        if opened is not None and closed is not None:
            opened.connect(lambda _folder: self._enable(True))
            closed.connect(lambda: self._enable(False))
            opened.connect(self.judge.project_opened)
            closed.connect(self.judge.project_closed)
        self._enable(False)

    def _enable(self, enabled: bool) -> None:
        self.action_scores.setEnabled(enabled)
        self.action_agreement.setEnabled(enabled)

    def _tabs(self) -> QTabWidget | None:
        return self.window.findChild(QTabWidget, "editorTabs")

    def _show(self, view: QWidget | None, make: Any, title: str) -> Any:
        context = getattr(self.window, "context", None)
        tabs = self._tabs()
        if context is None or tabs is None:
            return None
        if view is None or getattr(view, "context", None) is not context or tabs.indexOf(view) < 0:
            view = make(context, tabs)
            tabs.addTab(view, title)
        tabs.setCurrentWidget(view)
        return view

    def open_scores(self) -> ScoresView | None:
        from studio.gui.judging.scores_view import ScoresView

        view = self._show(self.scores, lambda context, tabs: ScoresView(context, self.runner, tabs), "Scores")
        if view is not None and view is not self.scores:
            self.scores = view
            view.destroyed.connect(lambda *_: self._forget("scores", view))
        return view

    def open_agreement(self) -> AgreementView | None:
        from studio.gui.judging.agreement_view import AgreementView

        view = self._show(self.agreement, lambda context, tabs: AgreementView(context, self.runner, tabs),
                          "Agreement")
        if view is not None and view is not self.agreement:
            self.agreement = view
            view.destroyed.connect(lambda *_: self._forget("agreement", view))
        return view

    def _forget(self, name: str, view: QWidget) -> None:
        if getattr(self, name) is view:
            setattr(self, name, None)


def install_scores(window: QMainWindow, runner: TaskRunner) -> ScoresHook:
    """Add the scores and agreement actions to the window's Judging menu."""
    return ScoresHook(window, runner)
