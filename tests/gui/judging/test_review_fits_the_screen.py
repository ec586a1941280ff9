"""Defect 3 of issue 21: the Review tab made the window 1,824-1,836 px wide on a 1,600 px screen, and it
could not be shrunk. Every judging tab lays out in 1,366 x 768 and up: the window resized to that size
keeps it, and each view's minimum size fits in what the window gives it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from tests.judging.review_project import review_project

SMALL_SCREEN = (1366, 768)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return review_project(tmp_path)


def laid_out(window) -> None:
    """Let the window take the size its contents ask for (what a real screen does after a resize)."""
    for _ in range(3):
        QApplication.processEvents()
        window.layout().activate()


def test_the_judging_tabs_fit_a_1366_by_768_screen(qtbot, project: Path) -> None:
    from tests.gui.shell_support import open_window

    window = open_window(qtbot, project)
    window.context.rater_identity().set_name("Anna Lindqvist-Berglund")
    tabs = window.editor_tabs
    window.review.action_review.trigger()
    qtbot.waitUntil(lambda: window.review.review_view is not None, timeout=20000)
    views = {"review": window.review.review_view}
    window.review.action_adjudication.trigger()
    qtbot.waitUntil(lambda: window.review.adjudication_view is not None, timeout=20000)
    views["adjudication"] = window.review.adjudication_view
    for name, action in (("scores", window.scores_hook.action_scores), ("agreement", window.scores_hook.action_agreement)):
        action.trigger()
        views[name] = tabs.currentWidget()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=60000)
    for name, view in views.items():
        tabs.setCurrentWidget(view)
        for _ in range(2):  # the second time on a settled layout: the first may meet a pending one
            window.resize(*SMALL_SCREEN)
            laid_out(window)
        assert window.width() <= SMALL_SCREEN[0], f"{name}: the window is {window.width()} px wide"
        assert window.minimumSizeHint().width() <= SMALL_SCREEN[0], name
        available = tabs.contentsRect().width()
        assert view.minimumSizeHint().width() <= available, (
            f"{name}: needs {view.minimumSizeHint().width()} px, the tab has {available}")
