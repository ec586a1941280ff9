"""The window's one action registry: every menu and every action has a typed id (its object name),
so a feature adds its actions to a menu by id and finds another's by id, never by searching the
widget tree (Picard keeps its actions in one enum-keyed registry the same way)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu


class MenuId(Enum):
    """The menu bar's menus, in the order they appear (value: object name, title)."""

    FILE = ("menuFile", "&File")
    EDIT = ("menuEdit", "&Edit")
    PROJECT = ("menuProject", "&Project")
    RUNS = ("menuRuns", "R&uns")
    JUDGING = ("menuJudging", "&Judging")
    VIEW = ("menuView", "&View")

    @property
    def object_name(self) -> str:
        return self.value[0]

    @property
    def title(self) -> str:
        return self.value[1]


class ActionId(Enum):
    """Every action of the window; the value is the action's object name (docs/gui.md lists them)."""

    NEW_PROJECT = "actionNewProject"
    OPEN_PROJECT = "actionOpenProject"
    SAVE = "actionSave"
    COMMIT = "actionCommit"
    RELOAD = "actionReload"
    CLOSE_PROJECT = "actionCloseProject"
    QUIT = "actionQuit"
    UNDO = "actionUndo"
    REDO = "actionRedo"
    REVIEW_NOW = "actionReview"
    OPEN_RUBRIC = "actionOpenRubric"
    EDIT_IMPACT = "actionEditImpact"
    SHOW_TIMELINE = "actionShowTimeline"
    SHOW_DEPENDENCY_MAP = "actionShowDependencyMap"
    EXPORT_RUBRICS = "actionExportRubrics"
    IMPORT_RUBRICS = "actionImportRubrics"
    DRAFT_CRITERIA = "actionDraftCriteria"
    ADD_STAGE = "actionAddStage"
    ADD_SUBTASK = "actionAddSubtask"
    IMPORT_MATERIAL = "actionImportMaterial"
    IMPORT_MATERIAL_FOLDER = "actionImportMaterialFolder"
    ADD_HANDOFF = "actionAddHandoff"
    EDIT_HANDOFF = "actionEditHandoff"
    ADD_DELIVERABLE = "actionAddDeliverable"
    ADD_REFERENCE = "actionAddReference"
    RENAME = "actionRename"
    REMOVE = "actionRemove"
    MOVE_UP = "actionMoveUp"
    MOVE_DOWN = "actionMoveDown"
    START_RUN = "runStartAction"
    CANCEL_RUN = "runCancelAction"
    RESUME_RUN = "runResumeAction"
    OPEN_CHECKPOINTS = "runCheckpointsAction"
    JUDGE_RUN = "runJudgeAction"
    REVIEW_VERDICTS = "reviewAction"
    ADJUDICATE = "adjudicationAction"
    JUDGE = "judgeAction"
    SCORES = "scoresAction"
    AGREEMENT = "agreementAction"
    JUDGE_ERROR = "judgeErrorAction"
    MUTATION = "mutationAction"
    LINEAGE = "lineageAction"
    OPEN_BENCHMARK = "benchmarkOpenAction"
    SYNC = "actionSync"
    CONFLICTS = "actionConflicts"


class ActionRegistry(QObject):
    """The menus of one window (made up front, in MenuId order) and the actions features add to them.

    An action added with `needs_project=True` is enabled only while a project is open
    (`set_project_open`). Each action is also added to the window, so its shortcut works anywhere in it.
    """

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._actions: dict[ActionId, QAction] = {}
        self._needs_project: set[ActionId] = set()
        self._menus: dict[MenuId, QMenu] = {}
        for menu_id in MenuId:
            menu = window.menuBar().addMenu(menu_id.title)
            menu.setObjectName(menu_id.object_name)
            self._menus[menu_id] = menu

    def add(self, action_id: ActionId, text: str, slot: Callable[[], Any], *, shortcut: Any = None, tip: str = "",
            menu: MenuId | None = None, needs_project: bool = False, on_window: bool = True) -> QAction:
        """Make the action `action_id` (once: a second add of the same id is a programming error)."""
        if action_id in self._actions:
            raise ValueError(f"action {action_id.name} is registered twice")
        action = QAction(text, self._window)
        action.setObjectName(action_id.value)
        set_shortcut(action, shortcut)
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return self.adopt(action_id, action, menu=menu, needs_project=needs_project, on_window=on_window)

    def adopt(self, action_id: ActionId, action: QAction, *, menu: MenuId | None = None, needs_project: bool = False,
              on_window: bool = True) -> QAction:
        """Register an action made elsewhere (the undo group's Undo and Redo) under `action_id`."""
        if action_id in self._actions:
            raise ValueError(f"action {action_id.name} is registered twice")
        action.setObjectName(action_id.value)
        self._actions[action_id] = action
        if needs_project:
            self._needs_project.add(action_id)
        if on_window:
            self._window.addAction(action)
        if menu is not None:
            self._menus[menu].addAction(action)
        return action

    def __getitem__(self, action_id: ActionId) -> QAction:
        return self._actions[action_id]

    def __contains__(self, action_id: object) -> bool:
        return action_id in self._actions

    def get(self, action_id: ActionId) -> QAction | None:
        return self._actions.get(action_id)

    def menu(self, menu_id: MenuId) -> QMenu:
        return self._menus[menu_id]

    def add_to_menu(self, menu_id: MenuId, actions: Iterable[ActionId], *, separator_before: bool = False) -> None:
        """Put registered actions in a menu, after a separator when the menu already holds something."""
        menu = self._menus[menu_id]
        if separator_before and menu.actions():
            menu.addSeparator()
        menu.addActions([self._actions[action_id] for action_id in actions])

    def set_project_open(self, is_open: bool) -> None:
        """Enable the actions that need a project, or disable them when none is open."""
        for action_id in self._needs_project:
            self._actions[action_id].setEnabled(is_open)


def set_shortcut(action: QAction, shortcut: Any) -> None:
    """A standard key (all its platform bindings), a key sequence text, or None."""
    if isinstance(shortcut, QKeySequence.StandardKey):
        action.setShortcuts(QKeySequence.keyBindings(shortcut))
    elif shortcut:
        action.setShortcut(QKeySequence(shortcut))
