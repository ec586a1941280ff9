"""The versioning panel: the history of the project, of one file or of one subtask or criterion;
a field-by-field diff between two revisions (or a revision and the working copy); restore a
revision as one undoable edit; commit with a message. Every git read runs on the TaskRunner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio.collab.authors import FieldAuthor, last_changes, revisions_of
from studio.editing.fields import instruction_file, subtask_file
from studio.editing.object_history import object_scope
from studio.editing.restore import restore_command
from studio.errors import StudioError
from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import Task, TaskRunner
from studio.gui.history.field_authors import FieldAuthorsModel, field_authors_view
from studio.gui.widgets.tables import HeadersTableModel
from studio.store import layout
from studio.store.history_scope import WORKING, DiffRow, LogEntry, Scope, compare, object_revisions, scope_log

Index = QModelIndex | QPersistentModelIndex
BATCH = 200


# -- item models ---------------------------------------------------------------------------------
class HistoryModel(HeadersTableModel):
    """The revisions of the scope, newest first. Rows are handed to the view in batches
    (`fetchMore`), so a long history shows at once."""

    HEADERS = ("Revision", "Date", "Author", "Message")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._entries: list[LogEntry] = []
        self._shown = 0

    def set_entries(self, entries: list[LogEntry]) -> None:
        self.beginResetModel()
        self._entries = entries
        self._shown = min(BATCH, len(entries))
        self.endResetModel()

    def entry(self, row: int) -> LogEntry:
        return self._entries[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else self._shown


    def canFetchMore(self, parent: Index) -> bool:  # noqa: N802 (Qt naming)
        return not parent.isValid() and self._shown < len(self._entries)

    def fetchMore(self, parent: Index) -> None:  # noqa: N802 (Qt naming)
        if parent.isValid():
            return
        more = min(BATCH, len(self._entries) - self._shown)
        if more <= 0:
            return
        self.beginInsertRows(QModelIndex(), self._shown, self._shown + more - 1)
        self._shown += more
        self.endInsertRows()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= self._shown:
            return None
        entry = self._entries[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            column = index.column()
            if column == 0:
                return entry.short
            if column == 1:
                return entry.date.astimezone().strftime("%Y-%m-%d %H:%M")
            if column == 2:
                return entry.author
            return entry.message
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{entry.sha}\n{entry.author}, {entry.date.isoformat()}\n\n{entry.message}"
        return None


class DiffModel(HeadersTableModel):
    """Field, old value, new value."""

    HEADERS = ("Field", "Old", "New")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[DiffRow] = []

    def set_rows(self, rows: list[DiffRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)


    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row = self.rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return (row.field, row.old, row.new)[index.column()]
        return None


# -- the panel ---------------------------------------------------------------------------------
class VersioningPanel(QWidget):
    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None, *,
                 after_drawn: Callable[[QObject, Callable[[], None]], None] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("versioningPanel")
        self.context = context
        self.runner = runner
        self.scope = Scope()
        self._log_task: Task | None = None
        self._diff_task: Task | None = None

        self.scope_label = QLabel(self)
        self.scope_label.setObjectName("historyScope")
        font = self.scope_label.font()
        font.setBold(True)
        self.scope_label.setFont(font)
        self.history_model = HistoryModel(self)
        self.history_view = QTableView(self)
        self.history_view.setObjectName("historyView")
        self.history_view.setModel(self.history_model)
        self.history_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.history_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.history_view.verticalHeader().setVisible(False)
        self.history_view.setAlternatingRowColors(True)
        self.history_view.setWordWrap(False)
        header = self.history_view.horizontalHeader()
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        header.moveSection(3, 1)  # the message beside the revision: in a narrow dock it is what reads first
        # Revision, date and author are short: sized from the font, so the message keeps the rest.
        metrics = self.fontMetrics()
        for column, sample in enumerate(("00000000", "0000-00-00 00:00", "Hanna Verbeek")):
            self.history_view.setColumnWidth(column, metrics.horizontalAdvance(sample) + 14)
        self.history_view.selectionModel().selectionChanged.connect(self._selection_changed)

        self.diff_label = QLabel("Select one revision (compared with the working copy) or two.", self)
        self.diff_label.setObjectName("diffCaption")
        self.diff_label.setWordWrap(True)
        self.diff_model = DiffModel(self)
        self.diff_view = QTableView(self)
        self.diff_view.setObjectName("diffView")
        self.diff_view.setModel(self.diff_model)
        self.diff_view.verticalHeader().setVisible(False)
        self.diff_view.setAlternatingRowColors(True)
        self.diff_view.setWordWrap(True)
        self.diff_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        diff_header = self.diff_view.horizontalHeader()
        diff_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        diff_header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        diff_header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        diff_header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.diff_view.setColumnWidth(0, 150)

        self.action_restore = QAction("Restore this revision", self)
        self.action_restore.setObjectName("actionRestoreRevision")
        self.action_restore.setToolTip("Put the selected file or object back as it was at the selected revision "
                                       "(one step you can undo; not saved until you save)")
        self.action_restore.setEnabled(False)
        self.action_restore.triggered.connect(self.restore_selected)
        self.action_refresh = QAction("Refresh", self)
        self.action_refresh.setObjectName("actionRefreshHistory")
        self.action_refresh.triggered.connect(self.refresh)
        self.action_project = QAction("Whole project", self)
        self.action_project.setObjectName("actionProjectHistory")
        self.action_project.triggered.connect(lambda: self.show_file(None))
        self.action_commit = QAction("Commit", self)
        self.action_commit.setObjectName("actionCommit")
        self.action_commit.setToolTip("Save every edit, then record the project's state in its history")
        self.action_commit.triggered.connect(self.commit)
        runner.crashed.connect(lambda *_: self.action_commit.setEnabled(True))
        self.commit_message = QLineEdit(self)
        self.commit_message.setObjectName("commitMessage")
        self.commit_message.setPlaceholderText("What changed, e.g. \"T03: weights after expert review\"")
        self.commit_message.returnPressed.connect(self.action_commit.trigger)
        self.status = QLabel(self)
        self.status.setObjectName("versioningStatus")
        self.status.setWordWrap(True)

        # The scope on its own line, the buttons under it: the dock can stay narrow without clipping either.
        buttons = QHBoxLayout()
        for action in (self.action_project, self.action_refresh, self.action_restore):
            button = QToolButton(self)
            button.setDefaultAction(action)
            buttons.addWidget(button)
        buttons.addStretch(1)
        commit_row = QHBoxLayout()
        commit_row.addWidget(self.commit_message, 1)
        commit_button = QToolButton(self)
        commit_button.setDefaultAction(self.action_commit)
        commit_row.addWidget(commit_button)
        history_box = QWidget(self)
        history_layout = QVBoxLayout(history_box)
        history_layout.setContentsMargins(0, 0, 0, 0)
        history_layout.addWidget(self.scope_label)
        history_layout.addLayout(buttons)
        history_layout.addWidget(self.history_view)
        diff_box = QWidget(self)
        diff_layout = QVBoxLayout(diff_box)
        diff_layout.setContentsMargins(0, 0, 0, 0)
        diff_layout.addWidget(self.diff_label)
        diff_layout.addWidget(self.diff_view)
        self.authors_label = QLabel(self)
        self.authors_label.setObjectName("fieldAuthorsCaption")
        self.authors_model = FieldAuthorsModel(self)
        self.authors_view = field_authors_view(self.authors_model, self)
        self.authors_box = QWidget(self)
        authors_layout = QVBoxLayout(self.authors_box)
        authors_layout.setContentsMargins(0, 0, 0, 0)
        authors_layout.addWidget(self.authors_label)
        authors_layout.addWidget(self.authors_view)
        self.authors_box.setVisible(False)  # only for a subtask or criterion
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(history_box)
        splitter.addWidget(diff_box)
        splitter.addWidget(self.authors_box)
        splitter.setStretchFactor(1, 1)  # room to spare goes to the diff, whose rows wrap long texts
        remember_splitter(splitter, "versions/history-diff")
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(splitter, 1)
        layout.addLayout(commit_row)
        layout.addWidget(self.status)
        context.reloaded.connect(self.refresh)
        context.committed.connect(self._committed)
        # The first log once the window has drawn the project (`after_drawn`, Shell.after_drawn): reading
        # it imports GitPython on the TaskRunner, which would compete with that paint for the interpreter.
        if after_drawn is None:
            QTimer.singleShot(0, self, lambda: self.show_file(None))
        else:
            after_drawn(self, lambda: self.show_file(None))

    # -- scope -------------------------------------------------------------------------------
    def show_file(self, rel: str | None) -> None:
        """Show the history of one project file (None: of the whole project)."""
        self._set_scope(Scope("file", rel, (rel,)) if rel else Scope())

    def show_object(self, kind: str, object_id: str) -> None:
        """Show the history of one criterion or subtask (field-by-field diffs between revisions)."""
        try:
            scope = object_scope(self.context.session.documents, object_id, kind)
        except StudioError as error:
            self._report(str(error))
            return
        self._set_scope(scope)

    def _set_scope(self, scope: Scope) -> None:
        self.scope = scope
        self.scope_label.setText(scope.label)
        self.refresh()

    def refresh(self) -> None:
        """Read the log of the scope again (in the background)."""
        if self._log_task is not None:
            self._log_task.cancel()
        scope = self.scope
        root = self.context.session.root
        self.history_model.set_entries([])
        self.diff_model.set_rows([])
        self.authors_model.set_rows([])
        self.authors_box.setVisible(scope.kind in ("subtask", "criterion"))
        self.authors_label.setText(f"Who changed each field of {scope.key} last" if scope.key else "")
        self._update_actions()

        def work() -> tuple[list[LogEntry], list[FieldAuthor]]:
            from studio.store.history import ProjectRepository  # gitpython: on the TaskRunner

            repo = ProjectRepository(root)
            if scope.kind not in ("subtask", "criterion"):
                return scope_log(repo, scope), []
            revisions = object_revisions(repo, scope)  # read once, for the log and the authors alike
            return [entry for entry, _, _ in revisions], last_changes(revisions_of(revisions))

        self._log_task = self.runner.run(f"Reading the history ({scope.label.lower()})", work,
                                         self._show_log, self._report)

    def _show_log(self, found: tuple[list[LogEntry], list[FieldAuthor]]) -> None:
        entries, authors = found
        self.authors_model.set_rows(authors)
        self.history_model.set_entries(entries)
        if not entries:
            self._report("No saved revision yet." if self.scope.kind is None else
                         f"No saved revision changes {self.scope.key}.")

    # -- diff --------------------------------------------------------------------------------
    def selected_entries(self) -> list[LogEntry]:
        rows = sorted({index.row() for index in self.history_view.selectionModel().selectedRows()})
        return [self.history_model.entry(row) for row in rows]

    def _selection_changed(self) -> None:
        self._update_actions()
        entries = self.selected_entries()
        if self._diff_task is not None:
            self._diff_task.cancel()
        if not entries or len(entries) > 2:
            self.diff_model.set_rows([])
            self.diff_label.setText("Select one revision (compared with the working copy) or two.")
            return
        old = entries[-1].sha  # rows are newest first
        new = entries[0].sha if len(entries) == 2 else WORKING
        caption = f"{entries[-1].short} → {entries[0].short if new else 'working copy'}"
        self.diff_label.setText(f"Comparing {caption} …")
        scope = self.scope
        root = self.context.session.root
        overlay = self._unsaved()

        def work() -> list[DiffRow]:
            from studio.store.history import ProjectRepository

            return compare(ProjectRepository(root), scope, old, new, overlay)

        def done(rows: list[DiffRow]) -> None:
            self.diff_model.set_rows(rows)
            self.diff_view.resizeRowsToContents()
            self.diff_label.setText(f"{caption}: " + (f"{len(rows)} field{'s' if len(rows) != 1 else ''} changed" if rows else "no change"))

        self._diff_task = self.runner.run("Comparing revisions", work, done, self._report)

    def _unsaved(self) -> dict[str, bytes | None]:
        """Edited files as they would be saved (read here, on the UI thread that owns them)."""
        documents = self.context.session.documents
        return {rel: documents.read_bytes(rel) for rel in sorted(documents.dirty)}

    # -- restore -----------------------------------------------------------------------------
    def _restore_files(self) -> list[str]:
        scope = self.scope
        if scope.kind == "file":
            return [scope.key]
        if scope.kind == "criterion":
            return list(scope.files)
        if scope.kind == "subtask":
            documents = self.context.session.documents
            files = [subtask_file(scope.key),
                     layout.checkpoint_rubric_file(Path(), scope.key).as_posix()]
            try:
                files.append(instruction_file(documents, scope.key))
            except StudioError:
                pass
            return files
        return []

    def _update_actions(self) -> None:
        entries = self.selected_entries() if self.history_view.selectionModel() else []
        self.action_restore.setEnabled(len(entries) == 1 and bool(self._restore_files()))

    def restore_selected(self) -> None:
        """Put the scope's files (or the criterion) back as they were at the selected revision,
        as one edit on the undo stack. Nothing is written to disk until the project is saved."""
        entries = self.selected_entries()
        files = self._restore_files()
        if len(entries) != 1 or not files:
            self._report("Select one revision of a file, subtask or criterion to restore.")
            return
        entry = entries[0]
        scope = self.scope
        root = self.context.session.root

        def work() -> dict[str, bytes | None]:
            from studio.store.history import ProjectRepository

            repo = ProjectRepository(root)
            return {rel: repo.read_at(entry.sha, rel) for rel in files}

        def done(old: dict[str, bytes | None]) -> None:
            try:
                self.context.push(restore_command(self.context.session.documents, scope, entry.short, old))
            except StudioError as error:
                self._report(str(error))
                return
            self._report(f"Restored {scope.key} as of {entry.short} (undo to take it back; save to keep it).")

        self.runner.run(f"Reading revision {entry.short}", work, done, self._report)

    # -- commit ------------------------------------------------------------------------------
    def commit(self) -> None:
        """Save every edit, then commit with the message, through the project's one commit path."""
        message = self.commit_message.text().strip()
        if not message:
            self._report("Write a message saying what changed, then commit.")
            self.commit_message.setFocus()
            return

        def failed(error: StudioError) -> None:
            self.action_commit.setEnabled(True)
            self._report(str(error))

        try:
            self.context.commit(message, self.runner, failed)
        except StudioError as error:
            self._report(str(error))
            return
        self.action_commit.setEnabled(False)

    def _committed(self, result: Any) -> None:
        """A commit made here or from the File menu: the history has a new revision."""
        if not self.action_commit.isEnabled():  # this panel's own commit: its message is used up
            self.action_commit.setEnabled(True)
            self.commit_message.clear()
        revision = result.revision
        self._report(f"Committed {revision.short}: {revision.message}")
        self.refresh()

    def _report(self, message: Any) -> None:
        self.status.setText(str(message))
