"""File > Sync with Remote (`actionSync`) and File > Resolve Conflicts… (`actionConflicts`), and the
status bar's `syncStatus` (the remote, commits ahead ↑ and behind ↓ as of the last fetch, or the
conflicts a merge waits on). Sync runs `studio.collab.sync` on the background helper: the same
fetch, merge by object and push as `dbstudio sync`; the project is read again afterwards through
the window's Reload. A merge that stops with conflicts opens the conflict view."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QMessageBox

from studio.gui.base.actions import ActionId, MenuId
from studio.gui.base.shell import Shell

if TYPE_CHECKING:
    from studio.collab.sync import SyncResult, SyncStatus
    from studio.gui.base.project_context import ProjectContext
    from studio.gui.collab.conflict_view import ConflictView


class CollabHook(QObject):
    def __init__(self, shell: Shell) -> None:
        super().__init__(shell)
        self.shell = shell
        self.view: ConflictView | None = None
        self.status_label = QLabel(shell.window)
        self.status_label.setObjectName("syncStatus")
        shell.add_status_widget(self.status_label)
        shell.actions.add(ActionId.SYNC, "S&ync with Remote", self.sync, shortcut="Ctrl+Shift+Y", needs_project=True,
                          tip="Fetch the shared repository, merge its changes object by object, push yours "
                              "(docs/collaboration.md)")
        shell.actions.add(ActionId.CONFLICTS, "Resolve &Conflicts…", self.show_conflicts, needs_project=True,
                          tip="The fields a sync could not merge: base, mine and theirs side by side")
        shell.actions.add_to_menu(MenuId.FILE, [ActionId.SYNC, ActionId.CONFLICTS], separator_before=True)
        shell.project_opened.connect(self._opened)
        shell.project_closed.connect(self._closed)

    # -- the status bar -----------------------------------------------------------------------------
    def _opened(self, context: ProjectContext) -> None:
        context.committed.connect(self._committed)
        self.shell.after_drawn(self, self.refresh_status)

    def _committed(self, _result: object) -> None:
        self.refresh_status()

    def _closed(self) -> None:
        self._show_status(None)

    def _status_unknown(self, _error: object) -> None:
        self._show_status(None)

    def refresh_status(self) -> None:
        context = self.shell.context
        if context is None:
            self._show_status(None)
            return
        root = Path(context.session.root)

        def read() -> SyncStatus | None:
            from studio.collab.sync import CollabError, status

            try:
                return status(root)
            except CollabError:
                return None  # not under git: nothing to sync, nothing to show
        self.shell.runner.run("Reading the sync state", read, self._show_status, self._status_unknown)

    def _show_status(self, state: SyncStatus | None) -> None:
        if state is None:
            self.status_label.setText("")
            self.status_label.setToolTip("")
            return
        self.status_label.setText(state.text())
        if state.merging:
            tip = "A sync stopped on conflicts: File > Resolve Conflicts… settles them"
        elif state.remote is None:
            tip = "No shared repository: add one with `dbstudio remote PROJECT add origin URL`"
        else:
            tip = (f"{state.ahead} commit(s) of yours not yet on {state.remote}, {state.behind} of {state.remote}'s "
                   "not yet here (as of the last sync): File > Sync with Remote")
        self.status_label.setToolTip(tip)

    # -- sync ---------------------------------------------------------------------------------------
    def sync(self) -> None:
        context = self.shell.context
        if context is None:
            return
        if context.modified:
            QMessageBox.information(self.shell.window, "Sync with Remote",
                                    "The project has edits that are not saved. Save and Commit them first "
                                    "(File > Save and Commit), then sync.")
            return
        root = Path(context.session.root)

        def work() -> SyncResult:
            from studio.collab.sync import sync

            return sync(root)
        self.shell.runner.run("Syncing", work, self._synced, self._failed)

    def _synced(self, result: SyncResult) -> None:
        self.shell.show_message(result.summary(), 10000)
        if result.merged or not result.clean:
            self.shell.actions[ActionId.RELOAD].trigger()  # the merge changed the files: read them again
        self.refresh_status()
        self.shell.refresh_git()
        if not result.clean:
            self.show_conflicts()

    def _failed(self, error: Any) -> None:
        self.shell.show_error(error)
        self.refresh_status()

    # -- conflicts ------------------------------------------------------------------------------------
    def show_conflicts(self) -> ConflictView | None:
        context = self.shell.context
        if context is None:
            return None
        from studio.gui.collab.conflict_view import ConflictView

        if self.view is None or self.shell.tabs.indexOf(self.view) < 0:
            self.view = ConflictView(Path(context.session.root), self.shell.runner, self.shell.tabs)
            self.view.merge_settled.connect(self._settled)
            self.shell.show_tab(self.view, "Conflicts", on_closed=self._forget)
        else:
            self.shell.show_tab(self.view, "Conflicts")
            self.view.refresh()
        return self.view

    def _forget(self, view: object) -> None:
        if self.view is view:
            self.view = None

    def _settled(self, message: str) -> None:
        """A conflict was settled (or the merge committed or abandoned): the files changed."""
        self.shell.show_message(message, 10000)
        self.shell.actions[ActionId.RELOAD].trigger()
        self.refresh_status()
        self.shell.refresh_git()


def install_collab(shell: Shell) -> CollabHook:
    """Add Sync with Remote, Resolve Conflicts… and the sync state to the window."""
    return CollabHook(shell)
