"""The main window: assembles the explorer, the editor tabs, the findings and versioning docks, the
actions and the status bar around one open project (a ProjectContext). Long work goes to the one
TaskRunner; the panels themselves live in their own modules."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QEvent, QModelIndex, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QShowEvent, QUndoGroup
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.collector import collector_paused
from studio.crashlog import write_crash_log
from studio.errors import StudioError
from studio.gui.base.actions import ActionId, ActionRegistry, MenuId
from studio.gui.base.after_paint import AfterPaint
from studio.gui.base.editor_tabs import EditorTabs
from studio.gui.base.preferences import PreferencesStore
from studio.gui.base.reload_bar import ReloadBar
from studio.gui.base.shell import FieldFocus, Shell
from studio.gui.base.status_bar import StatusParts
from studio.gui.base.tasks import TaskRunner
from studio.gui.base.watcher import ProjectWatcher
from studio.gui.benchmark.install import install_benchmark
from studio.gui.collab.install import install_collab
from studio.gui.judging.menu import install_scores
from studio.gui.judging.review_install import install_review
from studio.gui.project.actions import ProjectActions
from studio.gui.project.explorer_model import ID_ROLE, KIND_ROLE, ExplorerModel
from studio.gui.project.explorer_view import ExplorerView, local_files
from studio.gui.project.findings_model import FindingsModel
from studio.gui.project.findings_view import FindingsView
from studio.gui.runs.monitor import hold_close
from studio.gui.runs.panel import install_runs
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

# The window is drawn before the project core (pydantic models, loader, review, git, the
# spreadsheet and YAML libraries) is imported: those load on the TaskRunner with the project,
# or on first use of the panel or dialog that needs them (see docs/gui.md, start-up).
if TYPE_CHECKING:
    from studio.editing.changes import Changes
    from studio.editing.session import ProjectSession
    from studio.gui.base.project_context import ProjectContext
    from studio.gui.base.recovery import ProjectRecovery
    from studio.gui.history.versioning import VersioningPanel
    from studio.gui.project.depmap_view import DependencyMapTab
    from studio.gui.project.timeline_view import TimelineView
    from studio.gui.rubric.editor import RubricEditor
    from studio.gui.widgets.dialogs import CrashDialog
    from studio.validation.findings import Finding

APP_NAME = "DeliverBench Studio"
# The keys of the editor tabs that show a view of the whole project rather than one object's editor.
RUBRIC_TAB, TIMELINE_TAB, DEPENDENCY_MAP_TAB = ("rubric", ""), ("timeline", ""), ("dependency-map", "")
VIEW_TABS = (RUBRIC_TAB, TIMELINE_TAB, DEPENDENCY_MAP_TAB)
REVIEW_DELAY_MS = 400  # after the last edit: typing a title does not start a review per keystroke


class MainWindow(QMainWindow):
    project_opened = Signal(str)
    """The folder of a project now shown and ready for edits."""
    project_closed = Signal()
    """The open project was closed (the window shows no project)."""
    findings_refreshed = Signal()
    """The findings dock shows the review of the project as it is now."""
    committed = Signal(str)
    """The short id of a commit just made from the window."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle(APP_NAME)
        self.runner = TaskRunner(self)
        self.preferences = PreferencesStore(self)
        self.preferences.unreadable.connect(self.show_error)
        self.registry = ActionRegistry(self)  # the menus first: the menu bar keeps MenuId's order
        self.editor_tabs = QTabWidget(self)
        self.shell = Shell(self, self.runner, self.editor_tabs, self.registry, context=lambda: self.context,
                           show_error=self.show_error, refresh_git=self.refresh_git, preferences=self.preferences,
                           open_project=self.open_project,
                           after_drawn=lambda receiver, then: self.after_paint.call(receiver, then))
        self.context: ProjectContext | None = None
        self.recovery: ProjectRecovery | None = None  # the open project's journal of unsaved edits
        self.watcher: ProjectWatcher | None = None
        self.versioning: VersioningPanel | None = None
        self._generation = 0  # bumped by every edit, reload and open: a review of an older one is dropped
        self._external: set[str] = set()
        self._closing = False

        self.explorer_model = ExplorerModel(self)
        self.explorer = ExplorerView(self)
        self.explorer.setObjectName("projectExplorer")
        self.explorer.setModel(self.explorer_model)
        self.explorer.activated.connect(self._explorer_activated)
        self.explorer.files_dropped.connect(self.import_files)
        self.explorer.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.explorer.header().setStretchLastSection(False)
        # the reads that fill the panels of an opened project start once its explorer is drawn
        self.after_paint = AfterPaint(self.explorer.viewport())
        self.explorer_dock = self._dock("explorerDock", "Project", self.explorer, Qt.DockWidgetArea.LeftDockWidgetArea)

        self.findings_model = FindingsModel(self)
        self.findings_view = FindingsView(self.findings_model, self)
        self.findings = self.findings_view.table
        self.findings_view.finding_activated.connect(self.jump_to_finding)
        self.findings_dock = self._dock("findingsDock", "Findings", self.findings_view,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)

        self.versioning_holder = QLabel("Open a project to see its history.", self)
        self.versioning_holder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.versioning_dock = self._dock("versioningDock", "Versions", self.versioning_holder,
                                          Qt.DockWidgetArea.RightDockWidgetArea)
        # the preview (pymupdf, openpyxl) is built when a material is first selected
        self.preview: Any = None
        self.preview_dock = self._dock("previewDock", "Preview", QLabel("Select a material to see its file.", self),
                                       Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.versioning_dock, self.preview_dock)
        self.versioning_dock.raise_()

        self.editor_tabs.setObjectName("editorTabs")
        self.editor_tabs.setTabsClosable(True)
        self.editor_tabs.setDocumentMode(True)
        self.editor_tabs.setMovable(True)
        self.tabs = EditorTabs(self.editor_tabs)
        self.reload_bar = ReloadBar(self)
        self.reload_bar.reload_requested.connect(self.reload_from_disk)
        self.reload_bar.keep_mine_requested.connect(self.keep_mine)
        self.reload_label = self.reload_bar.label
        central = QWidget(self)
        layout_ = QVBoxLayout(central)
        layout_.setContentsMargins(0, 0, 0, 0)
        layout_.setSpacing(0)
        layout_.addWidget(self.reload_bar)
        layout_.addWidget(self.editor_tabs)
        self.setCentralWidget(central)

        self.status = StatusParts(self.statusBar(), self)
        self.git_label = self.status.git_label
        self.runner.busy_changed.connect(self.status.show_busy)
        self.runner.crashed_with.connect(self.show_crash)
        self.findings_model.counts_changed.connect(self.status.show_counts)

        self.review_timer = QTimer(self)
        self.review_timer.setSingleShot(True)
        self.review_timer.setInterval(REVIEW_DELAY_MS)
        self.review_timer.timeout.connect(self.refresh_findings)
        self._review_task: Any = None

        self.undo_group = QUndoGroup(self)
        self.edits = ProjectActions(self.shell, self.explorer)
        self._build_actions()
        # the features that are not the window's own: each adds its docks, tabs and actions through the shell
        self.runs_panel = install_runs(self.shell)
        self.runs_dock = self.shell.dock("runsDock")
        self.review = install_review(self.shell)  # the Judging menu: review and adjudication tabs
        self.scores_hook = install_scores(self.shell)  # then scores, trajectories and agreement
        self.benchmark = install_benchmark(self.shell)  # File > Open Benchmark…: many projects and systems
        self.collab = install_collab(self.shell)  # File > Sync with Remote, Resolve Conflicts…, the sync state
        self._update_actions()
        self.setAcceptDrops(True)
        self.resize(1400, 880)
        self._default_layout = not self._restore_layout()

    # -- construction ----------------------------------------------------------------------
    def _dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        return self.shell.add_dock(name, title, widget, area, view_menu=False)  # its View switch: _build_actions

    def _build_actions(self) -> None:
        key = QKeySequence.StandardKey
        registry = self.registry
        a = registry.add
        self.action_new = a(ActionId.NEW_PROJECT, "&New Project…", self.new_project, shortcut=key.New,
                            tip="Create a project from a template", menu=MenuId.FILE)
        self.action_open = a(ActionId.OPEN_PROJECT, "&Open Project…", self.choose_project, shortcut=key.Open,
                             tip="Open a project folder", menu=MenuId.FILE)
        file_menu = registry.menu(MenuId.FILE)
        self.recent_menu = QMenu("Open &Recent", self)
        self.recent_menu.setObjectName("menuRecentProjects")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addMenu(self.recent_menu)
        file_menu.addSeparator()
        self.action_save = a(ActionId.SAVE, "&Save", self.save, shortcut=key.Save,
                             tip="Write the edits to the project's files", menu=MenuId.FILE, needs_project=True)
        self.action_commit = a(ActionId.COMMIT, "Save and &Commit…", self.commit, shortcut="Ctrl+Shift+S",
                               tip="Save, then record the saved files in the project's history", menu=MenuId.FILE,
                               needs_project=True)
        self.action_reload = a(ActionId.RELOAD, "Re&load from Disk", self.reload_from_disk,
                               tip="Read the project's files again", menu=MenuId.FILE, needs_project=True)
        file_menu.addSeparator()
        self.action_close = a(ActionId.CLOSE_PROJECT, "&Close Project", self.close_project, shortcut=key.Close,
                              menu=MenuId.FILE, needs_project=True)
        self.action_quit = a(ActionId.QUIT, "&Quit", self.close, shortcut="Ctrl+Q", menu=MenuId.FILE)

        self.action_undo = self.undo_group.createUndoAction(self, "&Undo")
        self.action_undo.setShortcuts(QKeySequence.keyBindings(key.Undo))
        self.action_redo = self.undo_group.createRedoAction(self, "&Redo")
        self.action_redo.setShortcuts(QKeySequence.keyBindings(key.Redo))
        registry.adopt(ActionId.UNDO, self.action_undo, menu=MenuId.EDIT)
        registry.adopt(ActionId.REDO, self.action_redo, menu=MenuId.EDIT)
        registry.add_to_menu(MenuId.EDIT, [ActionId.RENAME, ActionId.REMOVE, ActionId.MOVE_UP, ActionId.MOVE_DOWN],
                             separator_before=True)

        registry.add_to_menu(MenuId.PROJECT, [*self.edits.add_action_ids(), ActionId.IMPORT_MATERIAL_FOLDER,
                                              ActionId.EDIT_HANDOFF])
        self.action_rubric = a(ActionId.OPEN_RUBRIC, "&Rubric Editor", lambda: self.open_rubric(None),
                               shortcut="Ctrl+R", tip="Every criterion of the project in one table", needs_project=True)
        self.action_review = a(ActionId.REVIEW_NOW, "Re&view Now", self.refresh_findings, shortcut="F5",
                               tip="Run validation and review on the project as it is now", needs_project=True)
        self.action_edit_impact = a(ActionId.EDIT_IMPACT, "Edit &Impact", self.show_edit_impact,
                                    tip="Which judged scores the unsaved rubric edits make stale, and which orders "
                                        "they can change", needs_project=True)
        registry.add_to_menu(MenuId.PROJECT, [ActionId.OPEN_RUBRIC, ActionId.EDIT_IMPACT, ActionId.REVIEW_NOW],
                             separator_before=True)
        self.action_export_rubrics = a(ActionId.EXPORT_RUBRICS, "&Export Rubrics to Excel…", self.export_rubrics,
                                       tip="Write every criterion to a workbook experts can edit in Excel",
                                       needs_project=True)
        self.action_import_rubrics = a(ActionId.IMPORT_RUBRICS, "&Import Rubrics from Excel…", self.import_rubrics,
                                       tip="Review the changes of an edited workbook, then apply them as one step",
                                       needs_project=True)
        self.action_draft_criteria = a(ActionId.DRAFT_CRITERIA, "&Draft Criteria with an LLM…", self.draft_criteria,
                                       tip="Criteria proposed by an LLM from the instruction, a correction or the "
                                           "contract, added as drafts only when you accept them",
                                       needs_project=True)
        registry.add_to_menu(MenuId.PROJECT, [ActionId.EXPORT_RUBRICS, ActionId.IMPORT_RUBRICS,
                                              ActionId.DRAFT_CRITERIA], separator_before=True)

        view_menu = registry.menu(MenuId.VIEW)
        for dock in (self.explorer_dock, self.findings_dock, self.versioning_dock, self.preview_dock):
            view_menu.addAction(dock.toggleViewAction())
        self._view_menu_docks_end = view_menu.addSeparator()
        self.action_timeline = a(ActionId.SHOW_TIMELINE, "Release &Timeline", self.open_timeline,
                                 tip="What arrives when: stages, subtasks and materials at their release points",
                                 menu=MenuId.VIEW, needs_project=True)
        self.action_dependency_map = a(ActionId.SHOW_DEPENDENCY_MAP, "&Dependency Map", self.open_dependency_map,
                                       tip="What feeds what: select a node to see everything a change to it reaches",
                                       menu=MenuId.VIEW, needs_project=True)

        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("mainToolBar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.addActions([self.action_new, self.action_open, self.action_save, self.action_commit])
        toolbar.addSeparator()
        toolbar.addActions([self.action_undo, self.action_redo])
        toolbar.addSeparator()
        toolbar.addActions([self.edits.action_add_subtask, self.edits.action_import_material, self.action_rubric])
        style = self.style()
        for action, pixmap in ((self.action_new, style.StandardPixmap.SP_FileIcon),
                               (self.action_open, style.StandardPixmap.SP_DialogOpenButton),
                               (self.action_save, style.StandardPixmap.SP_DialogSaveButton),
                               (self.action_commit, style.StandardPixmap.SP_DialogApplyButton),
                               (self.action_undo, style.StandardPixmap.SP_ArrowBack),
                               (self.action_redo, style.StandardPixmap.SP_ArrowForward),
                               # every toolbar button with an icon: a row half text-only read as unfinished
                               (self.edits.action_add_subtask, style.StandardPixmap.SP_FileDialogNewFolder),
                               (self.edits.action_import_material, style.StandardPixmap.SP_ArrowDown),
                               (self.action_rubric, style.StandardPixmap.SP_FileDialogDetailedView)):
            action.setIcon(style.standardIcon(pixmap))

        self.explorer.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.explorer.customContextMenuRequested.connect(self._explorer_menu)
        self.explorer.selectionModel().currentChanged.connect(self._current_changed)

    def _explorer_menu(self, position: Any) -> None:
        menu = QMenu(self)
        menu.addActions(self.edits.add_actions())
        menu.addSeparator()
        menu.addActions([self.edits.action_rename, self.edits.action_remove, self.edits.action_move_up,
                         self.edits.action_move_down])
        menu.popup(self.explorer.viewport().mapToGlobal(position))

    def _current_changed(self, *_args: Any) -> None:
        self._update_actions()
        current = self.current_object()
        if current is not None and current[0] == "material":
            self.preview_material(current[1])
        if self.versioning is None or self.context is None or current is None:
            return
        kind, object_id = current
        if kind in ("subtask", "criterion"):
            self.versioning.show_object(kind, object_id)
        else:
            from studio.validation.objects import history_file

            self.versioning.show_file(history_file(self.context.session.loaded.project, kind, object_id))

    def preview_material(self, material_id: str) -> None:
        """Show a material's file in the preview dock."""
        from studio.gui.widgets.preview import MaterialPreview

        if self.preview is None:
            self.preview = MaterialPreview(self.runner, self.preview_dock)
            self.preview_dock.setWidget(self.preview)
        material = self.context.session.loaded.project.material(material_id) if self.context else None
        documents = self.context.session.documents if self.context else None
        self.preview.show_file(documents.viewable_path(f"{layout.MATERIALS_DIR}/{material.file}")
                               if documents and material and material.file else None)

    def _update_actions(self) -> None:
        self.registry.set_project_open(self.context is not None)
        self.edits.update_enabled()

    # -- spreadsheets ----------------------------------------------------------------------
    def export_rubrics(self) -> None:
        from studio.gui.rubric.import_dialog import export_rubrics_dialog

        if self.context is not None:
            written = export_rubrics_dialog(self.context, self)
            if written is not None:
                self.statusBar().showMessage(f"Rubrics written to {written}", 5000)

    def import_rubrics(self) -> None:
        from studio.gui.rubric.import_dialog import import_rubrics_dialog

        if self.context is not None:
            import_rubrics_dialog(self.context, self, self.runner)

    def draft_criteria(self) -> None:
        from studio.gui.rubric.draft_dialog import DraftDialog

        if self.context is not None:
            current = self.explorer.current_object()
            scope = current[1] if current is not None and current[0] == "subtask" else None
            DraftDialog(self.context, self.runner, self, scope).open()

    # -- opening and closing ---------------------------------------------------------------
    def open_project(self, folder: Path | str) -> None:
        """Read the project in `folder` in the background; `project_opened` when it is shown."""
        folder = Path(folder)
        self._generation += 1
        generation = self._generation
        self.statusBar().showMessage(f"Opening {folder}…")

        def opening() -> ProjectSession:
            # The project core loads on the TaskRunner. Its imports and the loaded project are a few
            # hundred thousand objects, none of them garbage: the UI thread's collector waits until
            # they are built instead of walking them every quarter second while they are.
            with collector_paused():
                if "studio.editing.opening" not in sys.modules:
                    import studio.editing.opening  # noqa: F401

                    # Modules live as long as the app: the collector need never walk them again.
                    gc.freeze()
                from studio.editing.opening import open_project

                return open_project(folder)

        self.runner.run(f"Opening {folder.name}", opening,
                        lambda session: self._opened(generation, folder, session), self.show_error)

    def _opened(self, generation: int, folder: Path, session: ProjectSession) -> None:
        from studio.gui.base.project_context import ProjectContext
        from studio.gui.base.recovery import ProjectRecovery
        from studio.gui.history.versioning import VersioningPanel

        if generation != self._generation:
            return  # another project was asked for meanwhile
        self._teardown()
        context = ProjectContext(session, self, runner=self.runner, preferences=self.preferences)
        self.context = context
        self.recovery = ProjectRecovery(context)
        context.changed.connect(self._on_changed)
        context.reloaded.connect(self._on_reloaded)
        context.restored.connect(self._on_restored)
        context.undo_stack.cleanChanged.connect(self._clean_changed)
        self.undo_group.addStack(context.undo_stack)
        self.undo_group.setActiveStack(context.undo_stack)
        from studio.editing.timeline import stages_in_text

        self.explorer_model.stages_source = lambda: stages_in_text(context.session.documents)
        self.explorer_model.set_project(session.loaded.project)
        self._expand_explorer()
        self.versioning = VersioningPanel(context, self.runner, self.versioning_dock,
                                          after_drawn=self.shell.after_drawn)
        self.versioning_dock.setWidget(self.versioning)
        self.watcher = context.file_watcher()
        self.watcher.files_changed.connect(self._on_files_changed)
        context.saved.connect(self._saved)
        context.committed.connect(self._committed)
        self._update_title()
        self.setWindowModified(False)
        # The repository's state follows in the background, once the project is drawn (GitPython is
        # not needed to edit, and importing it would compete with that paint for the interpreter).
        self.status.show_git(None)  # not the last project's state meanwhile
        self.shell.after_drawn(self, self.refresh_git)
        self.statusBar().showMessage(f"Opened {session.root}", 5000)
        self._remember_recent(session.root)
        self.shell.announce(context)
        self._update_actions()
        self.recovery.offer(self)  # unsaved edits a crash or a kill left: Recover / Set aside / Discard
        self.project_opened.emit(str(folder))
        # The first review waits for the pause too: the window is drawn and answers before it starts.
        self.review_timer.start()

    def _clean_changed(self, clean: bool) -> None:
        self.setWindowModified(not clean)

    def _expand_explorer(self) -> None:
        """Show the timeline down to the subtasks, and the materials' release points."""
        model = self.explorer_model
        rows = [model.index(0, 0), model.index(1, 0)]
        for index in rows:
            model.fetchMore(index)
        project_row = rows[0]
        rows += [model.index(row, 0, project_row) for row in range(model.rowCount(project_row))]
        for index in rows:
            model.fetchMore(index)
            self.explorer.expand(index)
        self.explorer.resizeColumnToContents(1)

    def _teardown(self) -> None:
        """Forget the open project (its tabs, panels, watcher and undo stack)."""
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher.deleteLater()
            self.watcher = None
        self.tabs.close_all()
        if self.versioning is not None:
            self.versioning_dock.setWidget(self.versioning_holder)
            self.versioning.deleteLater()
            self.versioning = None
        if self.context is not None:
            self.undo_group.removeStack(self.context.undo_stack)
            self.context.deleteLater()
            self.context = None
            self.recovery = None  # went with the context
        self._external.clear()
        if self.preview is not None:
            self.preview.show_file(None)
        self.reload_bar.hide()
        self.explorer_model.set_project(None)
        self.findings_model.clear()
        self.status.show_git(None)
        self.status.show_counts(None)
        self.review_timer.stop()

    def close_project(self) -> None:
        def close() -> None:
            self._generation += 1
            self._teardown()
            self._update_title()
            self.setWindowModified(False)
            self.shell.announce(None)
            self._update_actions()
            self.project_closed.emit()
        self.when_saved_or_discarded(close)

    def choose_project(self) -> None:
        from studio.gui.widgets.dialogs import file_dialog
        from studio.store.workspace import default_workspace

        def choose() -> None:
            # A dialog object opened without blocking (not the static call): tests and screen
            # readers find it by its name and type the folder into it like any other form.
            dialog = file_dialog(self, "openProjectDialog", "Open project folder", str(default_workspace()),
                                 QFileDialog.FileMode.Directory)
            dialog.fileSelected.connect(lambda folder: self.open_project(Path(folder)) if folder else None)
            dialog.open()
        self.when_saved_or_discarded(choose)

    def new_project(self) -> None:
        from studio.gui.widgets.dialogs import NewProjectDialog
        from studio.store.workspace import create_project, default_workspace, project_templates

        dialog = NewProjectDialog(default_workspace(), project_templates(), self)

        def create() -> None:
            folder, project_id, title, template = dialog.values
            self.runner.run(f"Creating {project_id}", lambda: create_project(folder, project_id, title, template),
                            lambda _repo: self.open_project(folder), self.show_error)
        dialog.accepted.connect(lambda: self.when_saved_or_discarded(create))
        dialog.open()

    def _update_title(self) -> None:
        if self.context is None:
            self.setWindowTitle(APP_NAME)
            return
        info = self.context.session.loaded.project.info
        title = info.title if info else self.context.session.root.name
        self.setWindowTitle(f"{title}[*] — {APP_NAME}")

    # -- recent projects -------------------------------------------------------------------
    def recent_projects(self) -> list[str]:
        return list(self.preferences.current.recent_projects)

    def _remember_recent(self, folder: Path) -> None:
        self.preferences.remember_project(str(folder))

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for folder in self.recent_projects():
            action = self.recent_menu.addAction(folder)
            action.triggered.connect(lambda _c=False, f=folder: self.when_saved_or_discarded(
                lambda: self.open_project(Path(f))))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    # -- edits, review, explorer -----------------------------------------------------------
    def _on_changed(self, changes: Changes) -> None:
        assert self.context is not None
        self._generation += 1
        self.explorer_model.refresh(self.context.session.loaded.project, changes.files)
        self._close_tabs_of_missing()
        self._update_title()
        self.review_timer.start()

    def _on_reloaded(self) -> None:
        assert self.context is not None
        self._generation += 1
        self.explorer_model.set_project(self.context.session.loaded.project)
        self._expand_explorer()
        self._close_tabs_of_missing()
        self._update_title()
        self.refresh_findings()

    def refresh_findings(self) -> None:
        """Validate and review the project as it is now, in the background; an older result is dropped."""
        self.review_timer.stop()
        if self.context is None:
            return
        if self._review_task is not None:
            self._review_task.cancel()
        loaded, generation = self.context.session.loaded, self._generation

        def review() -> list[Finding]:
            from studio.review.runner import review_loaded

            return review_loaded(loaded).findings
        self._review_task = self.runner.run("Reviewing", review,
                                            lambda findings: self._show_findings(generation, findings),
                                            self.show_error)

    def _show_findings(self, generation: int, findings: list[Finding]) -> None:
        if generation != self._generation:
            return  # the project changed since: the review of the newer state follows
        self.findings_model.set_findings(findings)
        self.findings_refreshed.emit()

    def _explorer_activated(self, index: QModelIndex) -> None:
        if index.data(KIND_ROLE) == "handoff":  # a handoff has no form: its dialog edits it in place
            self.registry[ActionId.EDIT_HANDOFF].trigger()
            return
        self.open_object(index.data(KIND_ROLE), index.data(ID_ROLE))

    def current_object(self) -> tuple[str, str] | None:
        """(kind, id) of the explorer's current row."""
        return self.explorer.current_object()

    def select_in_explorer(self, kind: str, object_id: str) -> bool:
        return self.explorer.select(kind, object_id)

    # -- editors ---------------------------------------------------------------------------
    @property
    def rubric_editor(self) -> RubricEditor | None:
        return cast("RubricEditor | None", self.tabs.get(RUBRIC_TAB))

    @property
    def timeline_view(self) -> TimelineView | None:
        return cast("TimelineView | None", self.tabs.get(TIMELINE_TAB))

    @property
    def dependency_map(self) -> DependencyMapTab | None:
        return cast("DependencyMapTab | None", self.tabs.get(DEPENDENCY_MAP_TAB))

    def open_object(self, kind: str, object_id: str) -> QWidget | None:
        """Show the editor of an object in a tab (the rubric editor for a rubric)."""
        from studio.gui.project import editors

        if self.context is None:
            return None
        if kind == "rubric":
            return self.open_rubric(object_id)
        if kind not in editors.KINDS:
            return None
        widget = self.tabs.get((kind, object_id)) or editors.open_editor(self.context, kind, object_id, self.editor_tabs)
        return self.tabs.show((kind, object_id), widget,
                              f"{kind.capitalize()} {object_id}" if kind != "project" else "Project")

    def open_rubric(self, scope: str | None) -> RubricEditor | None:
        from studio.gui.rubric.editor import RubricEditor

        if self.context is None:
            return None
        editor = self.rubric_editor
        if editor is None:
            editor = RubricEditor(self.context, self.editor_tabs, self.runner)
            # a criterion flagged for low judge agreement opens the review on its disagreeing decisions
            editor.disagreementsRequested.connect(self.review.show_criterion)
        self.tabs.show(RUBRIC_TAB, editor, "Rubric")
        editor.show_scope(scope)
        return editor

    def show_edit_impact(self) -> None:
        """The rubric editor with its Edit impact panel in front."""
        editor = self.open_rubric(None)
        if editor is not None:
            editor.show_edit_impact()

    def open_timeline(self) -> TimelineView | None:
        from studio.gui.project.timeline_view import TimelineView

        if self.context is None:
            return None
        view = self.timeline_view
        if view is None:
            view = TimelineView(self.context, self.editor_tabs)
            view.open_requested.connect(self.open_object)
            view.refused.connect(self.show_error)
        self.tabs.show(TIMELINE_TAB, view, "Release Timeline")
        return view

    def open_dependency_map(self) -> DependencyMapTab | None:
        from studio.gui.project.depmap_view import DependencyMapTab

        if self.context is None:
            return None
        depmap = self.dependency_map
        if depmap is None:
            depmap = DependencyMapTab(self.context, self.runner, self.editor_tabs)
            depmap.open_requested.connect(self._open_from_map)
        self.tabs.show(DEPENDENCY_MAP_TAB, depmap, "Dependency Map")
        return depmap

    def _open_from_map(self, kind: str, object_id: str) -> None:
        # An output is edited in the form of the subtask that produces it.
        self.open_object(*(("subtask", object_id.split(":", 1)[0]) if kind == "output" else (kind, object_id)))

    def _close_tabs_of_missing(self) -> None:
        """An editor of an object that an edit removed has nothing left to show."""
        for kind, object_id in self.tabs.keys():
            if (kind, object_id) not in VIEW_TABS and not self.explorer_model.find(kind, object_id).isValid():
                self.tabs.close_key((kind, object_id))

    # -- findings --------------------------------------------------------------------------
    def jump_to_finding(self, finding: Finding) -> QWidget | None:
        """Open the editor of the object at fault (the criterion in the rubric editor)."""
        from studio.validation.objects import field_at, object_of_finding

        if self.context is None:
            return None
        kind, object_id = object_of_finding(self.context.session.loaded.project, finding)
        if kind == "criterion":
            scope = self._scope_of_criterion(finding, object_id)
            editor = self.open_rubric(scope)
            if editor is not None:
                editor.select_criterion(object_id)
            self.select_in_explorer("rubric", scope)
            return editor
        widget = self.open_object(kind, object_id)
        self.select_in_explorer(kind, object_id)
        field = field_at(self.context.session.documents, kind, object_id, finding.file, finding.line)
        if isinstance(widget, FieldFocus) and field:  # the field at fault gets the focus
            widget.focus_field(field)
        return widget

    def _scope_of_criterion(self, finding: Finding, criterion_id: str) -> str:
        parts = finding.file.split("/")
        if len(parts) == 3 and parts[0] == layout.SUBTASKS_DIR:
            return parts[1]
        if finding.file == layout.FINAL_RUBRIC_FILE or self.context is None:
            return FINAL_SCOPE
        found = self.context.session.loaded.project.index.checkpoint_criteria.get(criterion_id)
        return found[0] if found else FINAL_SCOPE

    # -- saving ----------------------------------------------------------------------------
    def save(self) -> bool:
        """Write the edits; a file changed on disk by someone else is refused, never overwritten."""
        from studio.store.editing import ExternalEditError

        if self.context is None:
            return False
        try:
            self.context.save()
        except ExternalEditError as error:
            self._external.add(error.rel)
            self._show_reload_bar()
            self.show_error(error)
            return False
        except StudioError as error:
            self.show_error(error)
            return False
        return True

    def _saved(self, written: list[str]) -> None:
        """Any save through the project context (the File menu, the Versions panel, a reload)."""
        self.statusBar().showMessage(f"Saved {len(written)} file(s)" if written else "Nothing to save", 5000)
        self.refresh_git()

    def commit(self) -> None:
        """Save, then ask for a message and commit through the project context (on the TaskRunner)."""
        from studio.gui.widgets.dialogs import CommitDialog

        if self.context is None or not self.save():
            return
        dialog = CommitDialog([], self)
        context = self.context

        def run_commit() -> None:
            try:
                context.commit(dialog.message.strip(), self.runner, self.show_error)
            except StudioError as error:  # the save before it was refused (a file changed on disk)
                self.show_error(error)
        dialog.accepted.connect(run_commit)
        dialog.open()

    def _committed(self, result: Any) -> None:
        short = result.revision.short
        self.statusBar().showMessage(f"Committed {short}", 5000)
        self.refresh_git()
        self.committed.emit(short)

    def refresh_git(self) -> None:
        if self.context is None:
            return
        from studio.store.git_state import read_git_state

        root, context = self.context.session.root, self.context
        self.runner.run("Reading git state", lambda: read_git_state(root),
                        lambda state: self.status.show_git(state) if context is self.context else None,
                        self.show_error)

    def when_saved_or_discarded(self, then: Callable[[], None]) -> None:
        """Run `then` now, or once the user saved or discarded the unsaved edits (not on Cancel)."""
        if self.context is None or not self.context.modified:
            then()
            return
        box = QMessageBox(QMessageBox.Icon.Question, APP_NAME,
                          "The project has unsaved edits. Save them first?",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("unsavedEditsDialog")
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # no closed box lingers under its name

        def answered(button: int) -> None:
            if button == QMessageBox.StandardButton.Save and not self.save():
                return
            if button in (QMessageBox.StandardButton.Save, QMessageBox.StandardButton.Discard):
                if self.context is not None:
                    self.context.undo_stack.setClean()  # what is left unsaved was given up
                then()
        box.finished.connect(answered)
        box.open()

    # -- changes on disk -------------------------------------------------------------------
    def _on_files_changed(self, files: list[str]) -> None:
        self._external.update(files)
        self._show_reload_bar()

    def _show_reload_bar(self) -> None:
        if self.context is None:
            self.reload_bar.hide()
            return
        self.reload_bar.show_changes(self._external, set(self.context.session.documents.dirty))

    def keep_mine(self) -> None:
        """Keep the window's version of the files changed on disk, merged with the disk's field by field
        in a dialog (a choice per field); the merged version is then what the window holds, saveable."""
        from studio.editing.merge import file_conflict

        if self.context is None:
            return
        context = self.context
        files = sorted(self._external)
        try:
            conflicts = [found for found in (file_conflict(context.session.documents, rel) for rel in files)
                         if found.changes]
        except (StudioError, OSError) as error:
            self.show_error(error if isinstance(error, StudioError) else StudioError(str(error)))
            return
        if not conflicts:  # the two versions are the same: nothing to choose
            self._kept_mine(context, files, [], [])
            return
        from studio.gui.history.merge_dialog import KeepMineDialog

        dialog = KeepMineDialog(conflicts, self)
        dialog.accepted.connect(lambda: self._kept_mine(context, files, conflicts, dialog.model.choices()))
        dialog.open()

    def _kept_mine(self, context: ProjectContext, files: list[str], conflicts: list[Any],
                   choices: list[list[bool]]) -> None:
        from studio.editing.commands import Compound
        from studio.editing.merge import accept_disk_as_base, merge_command

        if context is not self.context:
            return
        merges = [merge_command(conflict, take) for conflict, take in zip(conflicts, choices, strict=True)
                  if any(take)]
        try:
            if merges:
                context.push(Compound("Keep mine, merged with the version on disk", merges))
        except StudioError as error:
            self.show_error(error)
            return
        for rel in files:  # the disk's version is now the one the window's edits are based on
            accept_disk_as_base(context.session.documents, rel)
        if self.watcher is not None:
            self.watcher.acknowledge(files)
        self._external.difference_update(files)
        if self.preview is not None:
            self.preview.show_file(None)
        self._show_reload_bar()
        self.statusBar().showMessage(f"Kept your version of {', '.join(files)}, merged: save to write it", 8000)

    def reload_from_disk(self) -> None:
        """Read the project again. Unsaved edits to files changed on disk are dropped (the user chose
        Reload); unsaved edits to other files are saved first so that nothing is lost."""
        if self.context is None:
            return
        context = self.context
        changed = self._external
        other_edits = context.session.documents.dirty - changed
        if other_edits and not (changed & context.session.documents.dirty):
            if not self.save():
                return
        root = context.session.root

        def reload() -> ProjectSession:
            from studio.editing.session import ProjectSession

            return ProjectSession(root)
        self.runner.run("Reloading", reload, lambda session: self._reloaded(context, session),
                        self.show_error)

    def _on_restored(self, files: list[str]) -> None:
        """Files put back from history by a form: the app's own write, not an outside edit; then the
        project is read again, as Reload from Disk does."""
        if self.watcher is not None:
            self.watcher.acknowledge(files)
        self.reload_from_disk()

    def _reloaded(self, context: ProjectContext, session: ProjectSession) -> None:
        if context is not self.context:
            return
        self._external.clear()
        if self.preview is not None:
            self.preview.show_file(None)
        self.reload_bar.hide()
        context.replace_session(session)
        if self.watcher is not None:
            self.watcher.rescan()
        self.statusBar().showMessage("Reloaded from disk", 5000)
        self.refresh_git()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt naming)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow() and self.watcher is not None:
            self.watcher.check_soon()  # the look at the disk runs on a worker, not here
        super().changeEvent(event)

    # -- drag and drop ---------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt naming)
        if self.context is not None and local_files(event.mimeData()):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: Any) -> None:  # noqa: N802 (Qt naming)
        if self.context is not None and local_files(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt naming)
        files = local_files(event.mimeData())
        if self.context is None or not files:
            return
        event.acceptProposedAction()
        self.import_files(files, None)

    def import_files(self, files: list[Path], before_subtask: str | None) -> None:
        self.edits.import_materials(files, before_subtask)

    # -- errors ----------------------------------------------------------------------------
    def show_error(self, error: StudioError) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, APP_NAME, str(error), QMessageBox.StandardButton.Ok, self)
        box.setObjectName("errorMessage")
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # no closed box lingers under its name
        box.open()
        self.statusBar().showMessage(str(error).splitlines()[0][:200], 10000)

    def show_crash(self, label: str, error: BaseException) -> CrashDialog:
        """An unexpected error: write the crash log (as the CLI does) and say where it is."""
        import traceback

        from studio.gui.widgets.dialogs import CrashDialog

        log = write_crash_log(f"gui: {label}", sys.argv[1:], error)
        first = str(error).strip().splitlines()
        summary = f"{type(error).__name__}: {first[0]}" if first else type(error).__name__
        dialog = CrashDialog(label, summary[:300], log, "".join(traceback.format_exception(error)), self)
        dialog.open()
        return dialog

    # -- layout ----------------------------------------------------------------------------
    def _restore_layout(self) -> bool:
        """Put the window and its docks where the user left them; False on a first start."""
        settings = QSettings()
        geometry = settings.value("MainWindow/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = settings.value("MainWindow/state")
        return state is not None and self.restoreState(state)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt naming)
        super().showEvent(event)
        if self._default_layout:  # first start: proportions that read well on a laptop screen
            self._default_layout = False
            self.resizeDocks([self.explorer_dock, self.versioning_dock], [400, 440], Qt.Orientation.Horizontal)
            self.resizeDocks([self.findings_dock], [220], Qt.Orientation.Vertical)

    def save_layout(self) -> None:
        settings = QSettings()
        settings.setValue("MainWindow/geometry", self.saveGeometry())
        settings.setValue("MainWindow/state", self.saveState())

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt naming)
        if self.context is not None and self.context.modified and not self._closing:
            event.ignore()

            def close_now() -> None:
                self._closing = True
                self.close()
            self.when_saved_or_discarded(close_now)
            return
        if hold_close(self, self.runs_panel.monitor, event):  # a run started here is going: leave it or stop it
            return
        self.save_layout()
        self.review_timer.stop()
        if self.preview is not None:
            self.preview.show_file(None)  # closes the file it showed (on the helper, waited for below)
        self.runner.wait()
        if self.recovery is not None:
            self.recovery.wait()  # a journal removal after Save or Discard reaches the disk
        if self.watcher is not None:
            self.watcher.stop()
        super().closeEvent(event)
