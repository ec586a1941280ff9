"""An open project in the window: its session, its undo stack, and the signals views listen to.
Every edit goes through `push`: a widget never changes a file or a model object itself. Every save
and commit goes through `save` and `commit`, the one path that tells the file watcher about the
app's own writes and checks a commit as `dbstudio save` does."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack
from shiboken6 import isValid

from studio.editing.commands import Command
from studio.editing.session import ProjectSession
from studio.errors import StudioError

if TYPE_CHECKING:
    from studio.gui.base.preferences import PreferencesStore
    from studio.gui.base.rater_identity import RaterIdentity
    from studio.gui.base.tasks import Task, TaskRunner
    from studio.gui.base.verdict_watch import VerdictWatcher
    from studio.gui.base.watcher import ProjectWatcher
    from studio.model import CommentThread
    from studio.validation.save_check import SaveResult


class ProjectContext(QObject):
    """One open project: `session` (documents + model), `undo_stack`, and `changed(Changes)`
    emitted after every edit, undo and redo with the files and ids it touched."""

    changed = Signal(object)
    """Changes: files and ids an edit touched; views update only those."""
    reloaded = Signal()
    """The whole project was read again (after a reload from disk): views rebuild."""
    restored = Signal(list)
    """Project files the app put back as last committed (outside the undo stack): the window takes
    them as its own write and reads the project again."""
    saved = Signal(list)
    """Project files (relative paths) the app has just written."""
    committed = Signal(object)
    """SaveResult of a commit just made: its revision and the validation findings left."""
    judging_requested = Signal(str)
    """A run's id: a feature (the runs panel) asks for the judge on that run; the Judging feature
    opens Judge… with it chosen."""
    comments_changed = Signal(str)
    """A subtask or criterion id: a comment thread on it was opened, answered, resolved or reopened."""

    def __init__(self, session: ProjectSession, parent: QObject | None = None,
                 runner: TaskRunner | None = None, preferences: PreferencesStore | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.runner = runner
        """The window's background helper, for the views of this project (None outside a window)."""
        self.preferences = preferences
        """The window's preferences (None outside a window: the rater identity reads its own)."""
        self.undo_stack = QUndoStack(self)
        self._verdict_watcher: VerdictWatcher | None = None
        self._rater_identity: RaterIdentity | None = None
        self._file_watcher: ProjectWatcher | None = None

    def verdict_watcher(self) -> VerdictWatcher:
        """The one watcher of the project's verdict store, shared by every view computed from it (the
        scores, the agreement, the rubric editor's calibration): made on first use, gone with the project."""
        if self._verdict_watcher is None:
            from studio.gui.base.verdict_watch import VerdictWatcher

            self._verdict_watcher = VerdictWatcher(self.session.root, self)
        return self._verdict_watcher

    def rater_identity(self) -> RaterIdentity:
        """Who reviews at this screen (name, role, blind mode), one for every view of the project so
        that the review, the adjudication, the scores, the agreement and the calibration hide alike."""
        if self._rater_identity is None:
            from studio.gui.base.rater_identity import RaterIdentity

            self._rater_identity = RaterIdentity(self, self.preferences)
        return self._rater_identity

    def file_watcher(self) -> ProjectWatcher:
        """The one watcher of the project's files on disk (made on first use, gone with the project):
        `save` tells it about the app's own writes, so they are never reported as someone else's."""
        if self._file_watcher is None:
            from studio.gui.base.watcher import ProjectWatcher

            # Besides the YAML files: every file the session has read, such as an instruction open in a form.
            self._file_watcher = ProjectWatcher(self.session.root,
                                                extra_files=lambda: self.session.documents.editor.known_files(),
                                                parent=self)
        return self._file_watcher

    def push(self, command: Command) -> bool:
        """Apply `command` as one undoable step. A StudioError raised by the edit (a bad path, a
        refused rename) propagates to the caller with nothing changed and nothing pushed."""
        # Apply once outside the stack so that an error leaves the stack untouched, then push a
        # QUndoCommand that already holds the applied state (its first redo is skipped).
        inverse, changes = self.session.apply(command)
        undo_command = _Applied(self, command.label, inverse)
        self.undo_stack.push(undo_command)
        self.changed.emit(changes)
        return True

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    def comment(self, action: str, key: str, text: str = "") -> CommentThread:
        """Carry out a comment action through the core (studio.collab.comments): "add" opens a thread on
        subtask or criterion `key`; "reply", "resolve" and "reopen" act on thread `key`. The thread's
        file is written (not committed); the open project holds the thread as written. StudioError
        when the core refuses."""
        from studio.collab import comments

        root = self.session.root
        if action == "add":
            thread = comments.add_thread(root, key, text)
        elif action == "reply":
            thread = comments.reply(root, key, text)
        elif action in ("resolve", "reopen"):
            thread = (comments.resolve if action == "resolve" else comments.reopen)(root, key)
        else:
            raise ValueError(f"unknown comment action {action!r}")
        self.session.loaded.project.comments[thread.id] = thread
        self.comments_changed.emit(thread.target)
        return thread

    def replace_session(self, session: ProjectSession) -> None:
        """The project as read again from disk: the undo history no longer applies to it."""
        self.session = session
        self.undo_stack.clear()
        self.reloaded.emit()

    def save(self) -> list[str]:
        """Write every edit (a StudioError, such as a file changed on disk, leaves them unsaved)."""
        written = self.session.save()
        self.undo_stack.setClean()
        if self._file_watcher is not None:
            self._file_watcher.acknowledge(written)
        self.saved.emit(written)
        return written

    def commit(self, message: str, runner: TaskRunner,
               on_error: Callable[[StudioError], None] | None = None) -> Task:
        """Save, then commit in the background what the app wrote and the verdicts it stored, with the
        checks of `dbstudio save` (a file that does not load: refused, nothing committed).
        `committed(SaveResult)` when done; a StudioError of the save itself is raised here."""
        self.save()
        session = self.session

        def work() -> SaveResult:
            from studio.validation.save_check import commit_session

            return commit_session(session, message)

        def done(result: SaveResult) -> None:
            if isValid(self):  # the project may have been closed while git worked
                self.committed.emit(result)

        return runner.run("Committing", work, done, on_error)


class _Applied(QUndoCommand):
    """A command already applied when pushed: the stack's first redo does nothing."""

    def __init__(self, context: ProjectContext, label: str, inverse: Command) -> None:
        super().__init__(label)
        self.context = context
        self.pending = inverse
        self.skip_redo = True

    def _swap(self) -> None:
        inverse, changes = self.context.session.apply(self.pending)
        self.pending = inverse
        self.context.changed.emit(changes)

    def redo(self) -> None:
        if self.skip_redo:
            self.skip_redo = False
            return
        self._swap()

    def undo(self) -> None:
        self._swap()
