"""The Judging menu of the main window: the review view and the adjudication queue, each a tab of
the editor area, over one review session of the open project."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow, QTabWidget, QWidget

from studio.gui.base.live_results import touches_rubric
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.menu import judging_action, judging_menu

if TYPE_CHECKING:
    from studio.editing.changes import Changes
    from studio.gui.judging.adjudication_view import AdjudicationView
    from studio.gui.judging.review_models import ReviewSession
    from studio.gui.judging.review_view import ReviewView
    from studio.judging.queue import ReviewQueue


class ReviewTabs(QObject):
    """Opens (once per project) the Review and Adjudication tabs; forgets them when the project changes."""

    def __init__(self, window: QMainWindow, runner: TaskRunner) -> None:
        super().__init__(window)
        self.window = window
        self.runner = runner
        self.session: ReviewSession | None = None
        self.review_view: ReviewView | None = None
        self.adjudication_view: AdjudicationView | None = None
        self._then: list[Any] = []
        self.action_review = judging_action(
            window, "reviewAction", "&Review Verdicts…",
            "Review the judge's verdicts side by side with the evidence (P/F/N keys)", self.open_review, "Ctrl+Shift+V")
        self.action_adjudication = judging_action(
            window, "adjudicationAction", "&Adjudicate Differences…", "Settle the decisions where raters differ",
            self.open_adjudication, "Ctrl+Shift+J")
        opened = getattr(window, "project_opened", None)
        closed = getattr(window, "project_closed", None)
        if opened is not None and closed is not None:
            opened.connect(lambda _folder: self._forget())
            closed.connect(self._forget)

    def _context(self) -> Any:
        return getattr(self.window, "context", None)

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
            self.window.statusBar().showMessage("Open a project to review its verdicts", 5000)
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
            show = getattr(self.window, "show_error", None)
            if show is not None:
                show(error)

        self.runner.run("Reading the verdicts", read, done, failed)

    def _ready(self, queue: ReviewQueue) -> None:
        from studio.gui.judging.review_models import ReviewSession

        refresh = getattr(self.window, "refresh_git", None)
        context = self._context()
        identity = context.rater_identity() if context is not None else None
        self.session = ReviewSession(queue, self, on_written=refresh, identity=identity)
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
        if touches_rubric(changes):
            self._project_reloaded(queue)

    def _tabs(self) -> QTabWidget | None:
        found = self.window.findChild(QTabWidget, "editorTabs")
        return found if isinstance(found, QTabWidget) else None

    def _show_tab(self, widget: QWidget, title: str) -> None:
        tabs = self._tabs()
        if tabs is None:
            widget.show()
            return
        if tabs.indexOf(widget) < 0:
            tabs.addTab(widget, title)
            widget.destroyed.connect(self._closed)  # the tab's close button deletes the view
        tabs.setCurrentWidget(widget)
        widget.setFocus()

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
                self.review_view = ReviewView(session, self.runner, self.window)
            self._show_tab(self.review_view, "Review")

        self._with_session(show)

    def open_adjudication(self) -> None:
        def show(session: ReviewSession) -> None:
            from studio.gui.judging.adjudication_view import AdjudicationView

            if self.adjudication_view is None:
                self.adjudication_view = AdjudicationView(session, self.window)
            self._show_tab(self.adjudication_view, "Adjudication")

        self._with_session(show)

    def show_criterion(self, scope: str, criterion_id: str) -> None:
        """Open the review on one criterion's decisions where judge and expert disagree."""
        def show(_session: ReviewSession) -> None:
            self.open_review()
            if self.review_view is not None:
                self.review_view.show_criterion(scope, criterion_id)

        self._with_session(show)


def install_review(window: QMainWindow, runner: TaskRunner) -> ReviewTabs:
    """The review's actions (`reviewAction`, `adjudicationAction`) at the top of the window's Judging
    menu (`menuJudging`, made before the View menu when no other part has made it yet)."""
    tabs = ReviewTabs(window, runner)
    menu = judging_menu(window)
    if not menu.actions():
        menu.addActions([tabs.action_review, tabs.action_adjudication])
    else:  # another part (the scores) added its actions first: the review comes first all the same
        first = menu.actions()[0]
        menu.insertActions(first, [tabs.action_review, tabs.action_adjudication])
        menu.insertSeparator(first)
    return tabs
