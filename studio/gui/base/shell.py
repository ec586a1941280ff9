"""What a feature sees of the window: the open project's context (and signals when it changes), the
one background helper, the action registry, the editor tabs, the docks, and where messages and
errors go. Features are installed with a Shell and never reach into the window itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabWidget, QWidget

from studio.gui.base.actions import ActionRegistry, MenuId
from studio.gui.base.preferences import PreferencesStore
from studio.gui.base.tasks import TaskRunner

if TYPE_CHECKING:
    from studio.gui.base.project_context import ProjectContext


@runtime_checkable
class FieldFocus(Protocol):
    """An editor whose rows are named after the object's fields: a finding opens it at the field at fault."""

    def focus_field(self, field: str) -> bool: ...


class Shell(QObject):
    """The window's services for its features. `context` is the window's open project; the window
    announces a new one (or none) with `project_opened(context)` and `project_closed()`."""

    project_opened = Signal(object)
    """A project (its ProjectContext) is now shown and ready for edits."""
    project_closed = Signal()
    """The open project was closed: the window shows no project."""

    def __init__(self, window: QMainWindow, runner: TaskRunner, tabs: QTabWidget, actions: ActionRegistry, *,
                 context: Callable[[], ProjectContext | None], show_error: Callable[[Any], None],
                 refresh_git: Callable[[], None], preferences: PreferencesStore | None = None,
                 open_project: Callable[[Path], None] | None = None,
                 after_drawn: Callable[[QObject, Callable[[], None]], None] | None = None) -> None:
        super().__init__(window)
        self.preferences = preferences if preferences is not None else PreferencesStore(self)
        """The user's preferences (who reviews, in which role, blind or not), shared by every feature."""
        self._window = window
        self.runner = runner
        self.tabs = tabs
        self.actions = actions
        self._show_error = show_error
        self._refresh_git = refresh_git
        self._docks: dict[str, QDockWidget] = {}
        self._context = context
        self._open_project = open_project
        self._after_drawn = after_drawn

    # -- the project ---------------------------------------------------------------------------
    @property
    def context(self) -> ProjectContext | None:
        """The open project's context (None: no project is open)."""
        return self._context()

    def announce(self, context: ProjectContext | None) -> None:
        """Called by the window only, once it shows `context` (None: no project)."""
        self.actions.set_project_open(context is not None)
        if context is None:
            self.project_closed.emit()
        else:
            self.project_opened.emit(context)

    # -- where things go -----------------------------------------------------------------------
    @property
    def window(self) -> QMainWindow:
        """The parent of a feature's dialogs."""
        return self._window

    def show_error(self, error: Any) -> None:
        """A problem the user can fix (a StudioError): a message box, and the first line in the status bar."""
        self._show_error(error)

    def show_message(self, text: str, msecs: int = 5000) -> None:
        self._window.statusBar().showMessage(text, msecs)

    def add_status_widget(self, widget: QWidget) -> None:
        """A permanent part of the window's status bar (left of the git state)."""
        self._window.statusBar().insertPermanentWidget(0, widget)

    def open_project(self, folder: Path, then: Callable[[ProjectContext], None] | None = None) -> None:
        """Open the project in `folder` in this window, by the window's one opening path (the same checks
        as File > Open); `then(context)` once it is shown."""
        if self._open_project is None:
            self.show_message(f"{folder}: this window cannot open projects")
            return
        if then is not None:
            def opened(context: ProjectContext) -> None:
                self.project_opened.disconnect(opened)
                if Path(context.session.root).resolve() == Path(folder).resolve():
                    then(context)
            self.project_opened.connect(opened)
        self._open_project(Path(folder))

    def after_drawn(self, receiver: QObject, then: Callable[[], None]) -> None:
        """Call `then` once the window has drawn what it shows now (unless `receiver` is deleted by
        then): a background read that fills a panel starts after the paint that shows an opened
        project, instead of competing with it for the interpreter."""
        if self._after_drawn is None:
            QTimer.singleShot(0, receiver, then)
        else:
            self._after_drawn(receiver, then)

    def refresh_git(self) -> None:
        """Read the project's git state again (after a feature wrote or committed files)."""
        self._refresh_git()

    def show_tab(self, widget: QWidget, title: str, on_closed: Callable[[QWidget], None] | None = None) -> None:
        """Show `widget` as a tab of the editor area (added on first show); `on_closed(widget)` once its tab
        is closed (the tab's close button deletes the view)."""
        if self.tabs.indexOf(widget) < 0:
            self.tabs.addTab(widget, title)
            if on_closed is not None:
                widget.destroyed.connect(lambda *_, gone=widget: on_closed(gone))
        self.tabs.setCurrentWidget(widget)
        widget.setFocus()

    def add_dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea, *,
                 tab_with: str | None = None, view_menu: bool = True) -> QDockWidget:
        """A dock of the window (object name `name`), its switch in the View menu, tabbed with the dock
        `tab_with` once the window is first shown (unless a restored layout placed it elsewhere)."""
        dock = QDockWidget(title, self._window)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self._window.addDockWidget(area, dock)
        self._docks[name] = dock
        if view_menu:  # after the other docks' switches, before the views
            menu = self.actions.menu(MenuId.VIEW)
            docks_end = next((action for action in menu.actions() if action.isSeparator()), None)
            menu.insertAction(docks_end, dock.toggleViewAction()) if docks_end else menu.addAction(dock.toggleViewAction())
        partner = self._docks.get(tab_with) if tab_with else None
        if partner is not None:
            _TabOnFirstShow(self._window, partner, dock)
        return dock

    def dock(self, name: str) -> QDockWidget:
        return self._docks[name]


class _TabOnFirstShow(QObject):
    """Tabs a dock with another once the window is first shown. Tabbing a second pair of docks before
    the window is shown leaves a stray copy of the tab bar drawn over the window (Qt 6.11); after the
    first show it does not. A layout restored from the settings that already places the dock is kept."""

    def __init__(self, window: QMainWindow, partner: QDockWidget, dock: QDockWidget) -> None:
        super().__init__(window)
        self.window_, self.partner, self.dock = window, partner, dock
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt naming)
        if watched is self.window_ and event.type() == QEvent.Type.Show:
            self.window_.removeEventFilter(self)
            QTimer.singleShot(0, self, self.place)
        return False

    def place(self) -> None:
        window, dock = self.window_, self.dock
        area = window.dockWidgetArea(self.partner)
        placed_by_user = dock.isFloating() or window.dockWidgetArea(dock) != area
        if not placed_by_user and dock not in window.tabifiedDockWidgets(self.partner):
            window.tabifyDockWidget(self.partner, dock)
            self.partner.raise_()
