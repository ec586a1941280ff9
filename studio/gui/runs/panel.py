"""The Runs dock (`runsDock`, panel `runsPanel`): the open project's trial runs, the subtasks of
the selected run with what each left (status, exit code, time-out, duration, tokens), the tail
of the log of the subtask going (or selected), and the actions to start, cancel and resume a run
and to browse its checkpoints. The runs themselves execute in processes of their own
(`run_monitor`), so the window never waits for a container."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QFontDatabase, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.actions import ActionId, MenuId
from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.shell import Shell
from studio.gui.base.tasks import TaskRunner
from studio.gui.runs.models import RunsModel, SubtasksModel
from studio.gui.runs.monitor import RunMonitor
from studio.runs import overview as runs_data
from studio.runs.overview import RunView

RESUMABLE = ("failed", "cancelled", "interrupted", "pending")
MESSAGE_STYLE = {
    "failed": "#runMessage { background: #fdecea; color: #8c1d18; padding: 4px 8px; }",
    "interrupted": "#runMessage { background: #fff4ce; color: #5c4400; padding: 4px 8px; }",
    "cancelled": "#runMessage { background: #f1f1f1; color: #3c3c3c; padding: 4px 8px; }",
}


def _table(name: str, parent: QWidget) -> QTableView:
    view = QTableView(parent)
    view.setObjectName(name)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    view.horizontalHeader().setHighlightSections(False)
    return view


class RunsPanel(QWidget):
    judge_requested = Signal(str)
    """The id of the run the user asked to judge."""

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runsPanel")
        self.runner = runner
        self.project_dir: Path | None = None
        self.runs_dir: Path | None = None
        self.monitor = RunMonitor(runner, self)
        self.browsers: list[QWidget] = []
        self._picked_subtask: str | None = None  # a subtask the user selected: its log stays shown

        self.action_start = self._action("runStartAction", "&New Run…", self.new_run,
                                         "Run a harness through the project's timeline in Docker")
        self.action_cancel = self._action("runCancelAction", "&Cancel Run", self.cancel_run,
                                          "Stop the selected run; resuming reruns the subtask that was going")
        self.action_resume = self._action("runResumeAction", "&Resume Run", self.resume_run,
                                          "Go on from the selected run's last checkpoint")
        self.action_checkpoints = self._action("runCheckpointsAction", "Open C&heckpoints…", self.open_checkpoints,
                                               "Browse and compare the selected run's checkpoints")
        self.action_judge = self._action("runJudgeAction", "&Judge Run…", self.judge_run,
                                         "Open Judge… on the selected run (its checkpoints and final package)")
        toolbar = QToolBar(self)
        toolbar.setObjectName("runsToolBar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        style = self.style()
        for action, pixmap in ((self.action_start, style.StandardPixmap.SP_MediaPlay),
                               (self.action_cancel, style.StandardPixmap.SP_MediaStop),
                               (self.action_resume, style.StandardPixmap.SP_MediaSeekForward),
                               (self.action_checkpoints, style.StandardPixmap.SP_DirOpenIcon),
                               (self.action_judge, style.StandardPixmap.SP_DialogApplyButton)):
            action.setIcon(style.standardIcon(pixmap))
            toolbar.addAction(action)

        self.runs_model = RunsModel(self)
        self.runs_view = _table("runsTable", self)
        self.runs_view.setModel(self.runs_model)
        header = self.runs_view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 190), (1, 96), (3, 190), (4, 128), (5, 72)):
            self.runs_view.setColumnWidth(column, width)

        self.subtasks_model = SubtasksModel(self)
        self.subtasks_view = _table("runSubtasksTable", self)
        self.subtasks_view.setModel(self.subtasks_model)
        header = self.subtasks_view.horizontalHeader()
        header.setStretchLastSection(True)
        for column, width in ((0, 80), (1, 96), (2, 72), (3, 76), (4, 100)):
            self.subtasks_view.setColumnWidth(column, width)

        self.message = QLabel(self)
        self.message.setObjectName("runMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self.log_title = QLabel("Log", self)
        self.log_title.setObjectName("runLogTitle")
        self.log_view = QPlainTextEdit(self)
        self.log_view.setObjectName("runLogTail")
        self.log_view.setReadOnly(True)
        self.log_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log_view.setPlaceholderText("The harness's output appears here as it runs.")

        log_box = QWidget(self)
        log_layout = QVBoxLayout(log_box)
        log_layout.setContentsMargins(0, 0, 0, 0)
        log_layout.setSpacing(2)
        log_layout.addWidget(self.log_title)
        log_layout.addWidget(self.log_view, 1)
        lower = QSplitter(Qt.Orientation.Horizontal, self)
        lower.addWidget(self.subtasks_view)
        lower.addWidget(log_box)
        lower.setStretchFactor(0, 1)
        lower.setStretchFactor(1, 1)
        lower.setSizes([560, 560])
        remember_splitter(lower, "runs/subtasks-log")
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("runsSplitter")
        self.splitter.addWidget(self.runs_view)
        self.splitter.addWidget(lower)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 2)
        remember_splitter(self.splitter, "runs/runs-subtasks")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(toolbar)
        layout.addWidget(self.message)
        layout.addWidget(self.splitter, 1)

        self.runs_view.selectionModel().currentRowChanged.connect(self._run_selected)
        self.subtasks_view.selectionModel().currentRowChanged.connect(self._subtask_selected)
        self.monitor.runs_listed.connect(self._listed)
        self.monitor.run_updated.connect(self._updated)
        self.monitor.log_updated.connect(self._show_log)
        self.monitor.process_ended.connect(self._process_ended)
        self.update_actions()

    def _action(self, name: str, text: str, slot: Any, tip: str) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def actions_list(self) -> list[QAction]:
        return [self.action_start, self.action_cancel, self.action_resume, self.action_checkpoints]

    # -- the project -----------------------------------------------------------------------
    def set_project(self, project_dir: Path | None) -> None:
        """Show the runs of the project in `project_dir` (None: no project)."""
        self.project_dir = Path(project_dir) if project_dir is not None else None
        self.set_runs_dir(runs_data.runs_dir_of(self.project_dir) if self.project_dir is not None else None)

    def set_runs_dir(self, runs_dir: Path | None) -> None:
        self.runs_dir = runs_dir
        self._picked_subtask = None
        self.runs_model.set_runs([])
        self.subtasks_model.set_run(None)
        self._show_message(None)
        self.monitor.set_runs_dir(runs_dir)
        self.update_actions()

    def _listed(self, runs: list[RunView]) -> None:
        self.runs_model.set_runs(runs)
        if runs:
            self.select_run(self.runs_model.rows[0].run_id)
        self.update_actions()

    # -- selection and updates -------------------------------------------------------------
    def selected_run(self) -> RunView | None:
        index = self.runs_view.currentIndex()
        return self.runs_model.view(index.row()) if index.isValid() else None

    def select_run(self, run_id: str) -> None:
        row = self.runs_model.row_of(run_id)
        if row >= 0:
            self.runs_view.selectionModel().setCurrentIndex(
                self.runs_model.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)

    def _run_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._picked_subtask = None
        run = self.runs_model.view(current.row()) if current.isValid() else None
        self.subtasks_model.set_run(run)
        self._show_run(run)

    def _subtask_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        sub = self.subtasks_model.view(current.row()) if current.isValid() else None
        run = self.selected_run()
        if sub is None or run is None:
            return
        self._picked_subtask = sub.id
        self._follow_log(run)

    def _updated(self, run: RunView) -> None:
        first = self.runs_model.rowCount() == 0
        self.runs_model.update(run)
        selected = self.selected_run()
        if first or selected is None:
            self.select_run(run.run_id)
        elif selected.run_id == run.run_id:
            self.subtasks_model.set_run(run)
            self._show_run(run)
        self.update_actions()

    def _show_run(self, run: RunView | None) -> None:
        self._show_message(run)
        self._follow_log(run)
        self.update_actions()

    def _show_message(self, run: RunView | None) -> None:
        if run is None or not run.message:
            self.message.hide()
            return
        self.message.setStyleSheet(MESSAGE_STYLE.get(run.status, ""))
        self.message.setText(run.message)
        self.message.show()

    def _follow_log(self, run: RunView | None) -> None:
        subtask = self._picked_subtask or (run.current_subtask() if run is not None else None)
        if run is None or subtask is None:
            self.log_title.setText("Log")
            self.monitor.set_log(None)
            return
        path = run.log_path(subtask)
        self.log_title.setText(f"Log of {subtask} — {path.name}")
        if self.monitor.log_path != path:
            self.monitor.set_log(path)

    def _show_log(self, text: str) -> None:
        bar = self.log_view.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        if text == self.log_view.toPlainText():
            return
        self.log_view.setPlainText(text)
        if at_end:  # follow the file, unless the user scrolled up to read
            self.log_view.moveCursor(QTextCursor.MoveOperation.End)
            bar.setValue(bar.maximum())

    def _process_ended(self, run_dir: Path, code: int, output: str) -> None:
        run = self.monitor.view(run_dir)
        if code != 0 and (run is None or not run.message) and output:
            self.message.setStyleSheet(MESSAGE_STYLE["failed"])
            self.message.setText(f"The run's process ended with code {code}: {output.strip()}")
            self.message.show()
        self.update_actions()

    def update_actions(self) -> None:
        run = self.selected_run()
        going_here = set(self.monitor.going_here())
        self.action_start.setEnabled(self.project_dir is not None)
        self.action_cancel.setEnabled(run is not None and run.going)
        self.action_resume.setEnabled(run is not None and run.status in RESUMABLE
                                      and run.run_dir not in going_here)
        self.action_checkpoints.setEnabled(run is not None and bool(run.checkpoints()))
        self.action_judge.setEnabled(run is not None and not run.going and bool(run.checkpoints()))

    # -- actions -----------------------------------------------------------------------------
    def judge_run(self) -> None:
        """Ask for Judge… on the selected run (`judge_requested`; the window routes it to the Judging feature)."""
        run = self.selected_run()
        if run is not None:
            self.judge_requested.emit(run.run_id)

    def new_run(self) -> QWidget | None:
        """Open the start-a-run dialog (`runDialog`)."""
        from studio.gui.runs.run_dialog import RunDialog, RunRequest

        if self.project_dir is None or self.runs_dir is None:
            return None
        project_dir = self.project_dir

        def submit(request: RunRequest, on_started: Any, on_error: Any) -> None:
            def started(run: RunView) -> None:
                if self.runs_dir is not None and run.run_dir.parent.resolve() != self.runs_dir.resolve():
                    self.set_runs_dir(run.run_dir.parent)  # the user picked another runs folder
                self._updated(run)
                self.select_run(run.run_id)
                on_started()

            settings = runs_data.settings(request.cpus, request.memory_gib, request.network)
            self.monitor.start(project_dir, request.harness, request.image, settings, request.runs_dir,
                               started, on_error)

        dialog = RunDialog(self.runner, self.runs_dir, submit, self.window())
        dialog.open()
        return dialog

    def cancel_run(self) -> None:
        run = self.selected_run()
        if run is not None:
            self.monitor.cancel(run.run_dir, self._error)

    def resume_run(self) -> None:
        run = self.selected_run()
        if run is None:
            return
        self._show_message(None)
        self.monitor.launch(run.run_dir)
        self.update_actions()

    def open_checkpoints(self) -> QWidget | None:
        """The checkpoint browser (`checkpointBrowser`) of the selected run."""
        from studio.gui.runs.checkpoint_browser import CheckpointBrowser

        run = self.selected_run()
        if run is None or not run.checkpoints():
            return None
        browser = CheckpointBrowser(run, self.runner, self.window())
        browser.destroyed.connect(lambda _obj=None, b=browser: self.browsers.remove(b) if b in self.browsers else None)
        self.browsers.append(browser)
        browser.show()
        return browser

    def _error(self, error: StudioError) -> None:
        window: Any = self.window()
        if hasattr(window, "show_error"):
            window.show_error(error)
        else:
            self.message.setText(str(error))
            self.message.show()


def install_runs(shell: Shell) -> RunsPanel:
    """The Runs dock (tabbed with the findings), its switch in the View menu and the Runs menu."""
    panel = RunsPanel(shell.runner, shell.window)
    shell.add_dock("runsDock", "Runs", panel, Qt.DockWidgetArea.BottomDockWidgetArea, tab_with="findingsDock")
    actions = shell.actions
    for action_id, action in ((ActionId.START_RUN, panel.action_start), (ActionId.CANCEL_RUN, panel.action_cancel),
                              (ActionId.RESUME_RUN, panel.action_resume),
                              (ActionId.OPEN_CHECKPOINTS, panel.action_checkpoints),
                              (ActionId.JUDGE_RUN, panel.action_judge)):
        actions.adopt(action_id, action)
    actions.add_to_menu(MenuId.RUNS, [ActionId.START_RUN])
    actions.add_to_menu(MenuId.RUNS, [ActionId.CANCEL_RUN, ActionId.RESUME_RUN], separator_before=True)
    actions.add_to_menu(MenuId.RUNS, [ActionId.OPEN_CHECKPOINTS, ActionId.JUDGE_RUN], separator_before=True)

    def judge(run_id: str) -> None:  # through the project context: the runs feature knows no judging
        context = shell.context
        if context is not None:
            context.judging_requested.emit(run_id)

    panel.judge_requested.connect(judge)

    def opened(context: Any) -> None:  # the runs are read once the window has drawn the project
        root = context.session.root

        def read() -> None:
            if shell.context is context:  # not closed or replaced meanwhile
                panel.set_project(root)
        shell.after_drawn(panel, read)

    shell.project_opened.connect(opened)
    shell.project_closed.connect(lambda: panel.set_project(None))
    return panel
