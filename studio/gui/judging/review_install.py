"""The Judging menu of the main window: the review view and the adjudication queue, each a tab of
the editor area, over one review session of the open project."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from studio.gui.base.actions import ActionId, MenuId
from studio.gui.base.shell import Shell
from studio.store.layout import touched_scopes

if TYPE_CHECKING:
    from studio.editing.changes import Changes
    from studio.gui.judging.adjudication_view import AdjudicationView
    from studio.gui.judging.review_models import ReviewSession
    from studio.gui.judging.review_view import ReviewView
    from studio.judging.queue import ReviewQueue


class ReviewTabs(QObject):
    """Opens (once per project) the Review and Adjudication tabs; forgets them when the project changes."""

    def __init__(self, shell: Shell) -> None:
        super().__init__(shell)
        self.shell = shell
        self.runner = shell.runner
        self.session: ReviewSession | None = None
        self.review_view: ReviewView | None = None
        self.adjudication_view: AdjudicationView | None = None
        self._then: list[Any] = []
        actions = shell.actions
        self.action_review = actions.add(
            ActionId.REVIEW_VERDICTS, "&Review Verdicts…", self.open_review, shortcut="Ctrl+Shift+V",
            tip="Review the judge's verdicts side by side with the evidence (P/F/N keys)")
        self.action_adjudication = actions.add(
            ActionId.ADJUDICATE, "&Adjudicate Differences…", self.open_adjudication, shortcut="Ctrl+Shift+J",
            tip="Settle the decisions where raters differ")
        actions.add_to_menu(MenuId.JUDGING, [ActionId.REVIEW_VERDICTS, ActionId.ADJUDICATE])
        shell.project_opened.connect(lambda _context: self._forget())
        shell.project_closed.connect(self._forget)

    def _context(self) -> Any:
        return self.shell.context

    def _forget(self) -> None:
        """The window closed its tabs with the project: start afresh for the next one."""
        self.session = None
        self.review_view = None
        self.adjudication_view = None
        self._then.clear()

    def _with_session(self, then: Any) -> None:
        """Read the open project's verdict store in the background, once; then `then(session)`."""
        context = self._context()
        if context is None:
            self.shell.show_message("Open a project to review its verdicts")
            return
        if self.session is not None:
            then(self.session)
            return
        self._then.append(then)
        if len(self._then) > 1:
            return  # already reading
        from studio.judging.queue import ReviewQueue

        loaded = context.session.loaded

        def read() -> ReviewQueue:
            queue = ReviewQueue(loaded)
            queue.reload()
            return queue

        def done(queue: ReviewQueue) -> None:
            if self._context() is not context:
                return
            self._ready(queue)

        def failed(error: Any) -> None:
            self._then.clear()
            self.shell.show_error(error)

        self.runner.run("Reading the verdicts", read, done, failed)

    def _ready(self, queue: ReviewQueue) -> None:
        from studio.gui.judging.review_models import ReviewSession

        context = self._context()
        identity = context.rater_identity() if context is not None else None
        self.session = ReviewSession(queue, self, on_written=self.shell.refresh_git, identity=identity)
        if context is not None:
            context.reloaded.connect(lambda: self._project_reloaded(queue))
            context.changed.connect(lambda changes: self._project_edited(queue, changes))
        waiting, self._then = self._then, []
        for then in waiting:
            then(self.session)

    def _project_reloaded(self, queue: ReviewQueue) -> None:
        """The project was read again (rubrics may have changed): read the queue again too."""
        context = self._context()
        if self.session is None or self.session.queue is not queue or context is None:
            return
        queue.loaded = context.session.loaded
        self.session.reload()

    def _project_edited(self, queue: ReviewQueue, changes: Changes) -> None:
        """A rubric edit changes criteria (and which verdicts are current): read the queue again."""
        if touched_scopes(changes.files):
            self._project_reloaded(queue)

    def _show_tab(self, widget: QWidget, title: str) -> None:
        self.shell.show_tab(widget, title, on_closed=self._closed)

    def _closed(self, gone: QObject | None = None) -> None:
        from shiboken6 import isValid

        if self.review_view is not None and (gone is self.review_view or not isValid(self.review_view)):
            self.review_view = None
        if self.adjudication_view is not None and (gone is self.adjudication_view
                                                   or not isValid(self.adjudication_view)):
            self.adjudication_view = None

    def open_review(self) -> None:
        def show(session: ReviewSession) -> None:
            from studio.gui.judging.review_view import ReviewView

            if self.review_view is None:
                self.review_view = ReviewView(session, self.runner, self.shell.tabs)
            self._show_tab(self.review_view, "Review")

        self._with_session(show)

    def open_adjudication(self) -> None:
        def show(session: ReviewSession) -> None:
            from studio.gui.judging.adjudication_view import AdjudicationView

            if self.adjudication_view is None:
                self.adjudication_view = AdjudicationView(session, self.shell.tabs)
            self._show_tab(self.adjudication_view, "Adjudication")

        self._with_session(show)

    def show_criterion(self, scope: str, criterion_id: str) -> None:
        """Open the review on one criterion's decisions where judge and expert disagree."""
        def show(_session: ReviewSession) -> None:
            self.open_review()
            if self.review_view is not None:
                self.review_view.show_criterion(scope, criterion_id)

        self._with_session(show)


def install_review(shell: Shell) -> ReviewTabs:
    """The review's actions (`reviewAction`, `adjudicationAction`) in the Judging menu."""
    return ReviewTabs(shell)
