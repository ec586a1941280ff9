"""Autosave and crash recovery for the open project: the journal of unsaved edits
(studio.editing.journal) rewritten a moment after each edit, removed once nothing is unsaved, and
offered back (Recover / Set aside / Discard) when a project opens with one left by a crash or a kill."""

from __future__ import annotations

import weakref
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QTimer, Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from studio.editing import journal as edit_journal
from studio.editing.journal import EditJournal, JournalMismatch
from studio.errors import StudioError
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.workers import worker_pool

# A burst of typing is one write, and the write waits for the edit to be drawn; a kill loses at
# most this much of the last edit.
JOURNAL_DELAY_MS = 300
SHOWN_STEPS = 12  # the recovery dialog lists the last undo steps, not hundreds


class _Write(QRunnable):
    """Encode and write (or remove) the journal on the journal's own thread."""

    def __init__(self, keeper: ProjectRecovery, root: Path, journal: EditJournal | None) -> None:
        super().__init__()
        self.keeper, self.root, self.journal = keeper, root, journal

    def run(self) -> None:
        try:
            if self.journal is None:
                edit_journal.remove_journal(self.root)
                self.keeper.cleared.emit()
            else:
                path = edit_journal.write_journal(self.root, self.journal)
                self.keeper.journaled.emit(str(path))
        except OSError as error:
            self.keeper.failed.emit(f"{edit_journal.journal_path(self.root)}: the unsaved edits could not be "
                                    f"journaled ({error.strerror}); save to keep them")


class ProjectRecovery(QObject):
    """Keeps the journal of one open project's unsaved edits, and offers a journal found on open."""

    journaled = Signal(str)
    """The journal was written with every unsaved edit (its path)."""
    cleared = Signal()
    """The journal was removed: nothing is unsaved (saved, undone or discarded)."""
    failed = Signal(str)
    """The journal could not be written (a full disk, a read-only folder): what to do."""
    answered = Signal(str)
    """The expert's answer to the recovery offer: 'recovered', 'set aside' or 'discarded'."""

    def __init__(self, context: ProjectContext, parent: QObject | None = None) -> None:
        super().__init__(parent if parent is not None else context)
        self.context = context
        self.root = context.session.root
        self.dialog: RecoveryDialog | None = None
        self._pending: EditJournal | None = None  # a journal found on open: not overwritten until answered
        # One thread of its own, so writes land in order and never wait behind a review or a git call.
        self._pool = worker_pool(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(JOURNAL_DELAY_MS)
        self._timer.timeout.connect(self.write_now)
        self._closed = False
        # Plain functions, not bound slots: the context deletes its undo stack (which then says it
        # is clean) before this object, and PySide cannot call a bound slot of an object whose
        # parent is going. Once the context goes, its signals mean nothing here.
        keeper = weakref.ref(self)

        def edited(*_: object) -> None:
            alive = keeper()
            if alive is not None and not alive._closed:
                alive._edited()

        def clean_changed(clean: bool) -> None:
            alive = keeper()
            if alive is not None and not alive._closed:
                alive._clean_changed(clean)

        def closing(*_: object) -> None:
            alive = keeper()
            if alive is not None:
                alive._closed = True
                alive._timer.stop()
        context.destroyed.connect(closing)
        context.changed.connect(edited)
        context.reloaded.connect(edited)
        context.undo_stack.cleanChanged.connect(clean_changed)

    # -- keeping the journal -----------------------------------------------------------------
    def _edited(self, *_: object) -> None:
        if self._pending is None:
            self._timer.start()

    def _clean_changed(self, clean: bool) -> None:
        # Saved or discarded: the journal goes at once, not after the pause; the project may be
        # closed (and this object deleted) before the timer would fire.
        if clean and self._pending is None:
            self.write_now()
        else:
            self._edited()

    def write_now(self) -> None:
        """Bring the journal up to date with the unsaved edits (the timer calls this)."""
        self._timer.stop()
        if self._pending is not None:
            return
        stack = self.context.undo_stack
        journal = None
        if not stack.isClean():  # undone back to the saved state: nothing to recover
            steps = [stack.text(number) for number in range(stack.index())]
            journal = edit_journal.capture(self.context.session.documents, steps)
        self._pool.start(_Write(self, self.root, journal))

    def wait(self) -> bool:
        """Block until the journal on disk holds every edit made so far (closing, tests): a write
        still waiting for its pause is made now."""
        if self._timer.isActive():
            self.write_now()
        return self._pool.waitForDone()

    # -- offering a journal back ----------------------------------------------------------------
    def offer(self, parent: QWidget) -> RecoveryDialog | None:
        """Open the recovery dialog when the project has a journal; None when it has none."""
        try:
            found = edit_journal.read_journal(self.root)
        except StudioError as error:
            found, problem = None, str(error)
        else:
            problem = ""
        if found is None and not problem:
            return None
        stale = edit_journal.stale_files(self.root, found) if found is not None else []
        if stale:
            problem = str(JournalMismatch(edit_journal.journal_path(self.root), stale))
        self._pending = found
        self.dialog = RecoveryDialog(found, problem, parent)
        self.dialog.recover_button.clicked.connect(self.recover)
        self.dialog.set_aside_button.clicked.connect(self.set_aside)
        self.dialog.discard_button.clicked.connect(self.discard)
        # Closed without an answer (Escape, the title bar): the journal is kept aside, never lost,
        # and the edits made from now on are journaled again.
        self.dialog.rejected.connect(self.set_aside)
        self.dialog.open()
        self.dialog.focus_first()
        return self.dialog

    def recover(self) -> None:
        """Apply the journal to the project as one undoable edit (the window shows it unsaved)."""
        if self._pending is None:
            return
        try:
            command = edit_journal.recovery_command(self.root, self._pending)
            self._pending = None
            self.context.push(command)
        except StudioError as error:  # a JournalMismatch: a file changed on disk while the dialog was open
            if self.dialog is not None:
                self.dialog.show_problem(str(error))
            return
        self._close("recovered")

    def set_aside(self) -> None:
        """Keep the journal under a dated name, for comparing by hand; new edits start a new one."""
        if not edit_journal.journal_path(self.root).exists():  # already answered
            self._pending = None
            return
        try:
            kept = edit_journal.set_aside(self.root)
        except OSError as error:
            if self.dialog is not None:
                self.dialog.show_problem(f"{edit_journal.journal_path(self.root)}: cannot be set aside "
                                         f"({error.strerror})")
            return
        self._pending = None
        self._close("set aside", f"The unsaved edits are kept in {kept}")

    def discard(self) -> None:
        edit_journal.remove_journal(self.root)
        self._pending = None
        self._close("discarded")

    def _close(self, answer: str, note: str = "") -> None:
        if self.dialog is not None:
            self.dialog.note = note
            self.dialog.accept()
        self.answered.emit(answer)


class RecoveryDialog(QDialog):
    """What the journal holds and the three answers; Recover first and focused when it fits."""

    def __init__(self, journal: EditJournal | None, problem: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("recoveryDialog")
        self.setWindowTitle("Recover unsaved edits")
        self.note = ""
        self.message = QLabel(self)
        self.message.setObjectName("recoveryMessage")
        self.message.setWordWrap(True)
        self.steps = QLabel(self)
        self.steps.setObjectName("recoverySteps")
        self.steps.setWordWrap(True)
        self.recover_button = QPushButton("Recover", self)
        self.recover_button.setObjectName("recoverButton")
        self.set_aside_button = QPushButton("Set aside", self)
        self.set_aside_button.setObjectName("recoverySetAsideButton")
        self.discard_button = QPushButton("Discard", self)
        self.discard_button.setObjectName("recoveryDiscardButton")
        if journal is not None and not problem:
            self.message.setText("The project was closed with unsaved edits (the app crashed or was stopped): "
                                 f"{journal.describe()}. Recover them? They come back unsaved, as one step you can undo.")
            shown = journal.steps[-SHOWN_STEPS:]
            more = len(journal.steps) - len(shown)
            self.steps.setText("\n".join(([f"… and {more} earlier"] if more else []) + [f"• {step}" for step in shown]))
        else:
            self.message.setText(f"Unsaved edits were left by an earlier session, but they cannot be applied. {problem}")
            self.recover_button.setEnabled(False)
            self.recover_button.hide()
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.recover_button, self.set_aside_button, self.discard_button):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        self.first_button().setDefault(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.steps)
        layout.addLayout(buttons)

    def first_button(self) -> QPushButton:
        return self.recover_button if self.recover_button.isEnabled() else self.set_aside_button

    def focus_first(self) -> None:
        """The focus on the first answer: typing cannot land anywhere else (issue 21, defect 2)."""
        self.first_button().setFocus()

    def show_problem(self, text: str) -> None:
        self.message.setText(text)
        self.recover_button.setEnabled(False)
        self.recover_button.hide()
        self.set_aside_button.setDefault(True)
        self.set_aside_button.setFocus()
