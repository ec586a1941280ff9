"""Finding one's way on the dependency map of the sample's 10 subtasks: zoom (Ctrl+wheel, +/-, the
buttons), Fit (every node in view) and the overview (the part in view outlined; a click pans)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolButton

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.project.depmap_view import DependencyMapTab, DependencyMapView
from studio.review.graph import SUBTASK
from tests.gui.shell_support import child, sample_copy


@pytest.fixture
def tab(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DependencyMapTab:
    widget = DependencyMapTab(ProjectContext(ProjectSession(sample_copy(tmp_path, monkeypatch))))
    qtbot.addWidget(widget)
    widget.resize(1400, 800)
    widget.show()
    qtbot.waitExposed(widget)
    assert len(widget.context.session.loaded.project.timeline()) == 10
    return widget


def _subtasks_in_view(view: DependencyMapView) -> list[str]:
    shown = view.viewport().rect()
    return [node[1] for node, item in view.items_by_node.items() if node[0] == SUBTASK
            and shown.contains(view.mapFromScene(item.sceneBoundingRect()).boundingRect())]


def _wheel(view: DependencyMapView, steps: int, modifiers: Qt.KeyboardModifier) -> None:
    at = QPointF(view.viewport().rect().center())
    event = QWheelEvent(at, QPointF(view.viewport().mapToGlobal(at.toPoint())), QPoint(0, 0), QPoint(0, 120 * steps),
                        Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), event)


def test_fit_shows_every_subtask_and_the_buttons_zoom(qtbot, tab: DependencyMapTab) -> None:
    view = tab.view
    assert len(_subtasks_in_view(view)) < 10  # the start of the timeline, at a readable scale
    QTest.mouseClick(child(tab, QToolButton, "dependencyMapFit"), Qt.MouseButton.LeftButton)
    # Once the scroll bars the fit made unnecessary are gone (Qt lays them out on its next turn):
    qtbot.waitUntil(lambda: not view.horizontalScrollBar().isVisible())
    assert sorted(_subtasks_in_view(view)) == sorted(tab.context.session.loaded.project.timeline())
    assert view.viewport().rect().contains(view.mapFromScene(view.scene().itemsBoundingRect()).boundingRect())
    tab.resize(1000, 700)  # a fitted map stays whole as the view shrinks
    qtbot.waitUntil(lambda: view.viewport().rect().contains(
        view.mapFromScene(view.scene().itemsBoundingRect()).boundingRect()))
    fitted = view.zoom()
    QTest.mouseClick(child(tab, QToolButton, "dependencyMapZoomIn"), Qt.MouseButton.LeftButton)
    assert view.zoom() == pytest.approx(fitted * 1.25)
    assert tab.zoom_label.text() == f"{view.zoom():.0%}"
    QTest.mouseClick(child(tab, QToolButton, "dependencyMapZoomOut"), Qt.MouseButton.LeftButton)
    assert view.zoom() == pytest.approx(fitted)


def test_keys_and_ctrl_wheel_zoom_and_a_plain_wheel_scrolls(qtbot, tab: DependencyMapTab) -> None:
    view = tab.view
    view.setFocus()
    start = view.zoom()
    QTest.keyClick(view, Qt.Key.Key_Plus)
    assert view.zoom() == pytest.approx(start * 1.25)
    QTest.keyClick(view, Qt.Key.Key_Minus)
    QTest.keyClick(view, Qt.Key.Key_Minus)
    assert view.zoom() == pytest.approx(start / 1.25)
    QTest.keyClick(view, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(_subtasks_in_view(view)) == 10)
    qtbot.waitUntil(lambda: not view.horizontalScrollBar().isVisible())
    fitted = view.zoom()
    centre = view.mapToScene(view.viewport().rect().center())
    _wheel(view, 2, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() == pytest.approx(fitted * 1.25 ** 2)
    # The point under the mouse stays under it (here the middle of the view).
    assert (view.mapToScene(view.viewport().rect().center()) - centre).manhattanLength() < 4 / view.zoom()
    zoomed = view.zoom()
    _wheel(view, -1, Qt.KeyboardModifier.NoModifier)
    assert view.zoom() == pytest.approx(zoomed)  # without Ctrl the wheel scrolls, as before


def test_the_overview_outlines_the_part_in_view_and_a_click_pans_there(qtbot, tab: DependencyMapTab) -> None:
    view = tab.view
    overview = view.overview
    assert overview.objectName() == "dependencyMiniMap" and overview.isVisible()
    assert view.viewport().geometry().contains(overview.geometry())  # in the map's corner
    scene = view.scene().sceneRect()
    # The overview shows the whole map.
    assert QRect(QPoint(0, 0), overview.viewport().size()).adjusted(-1, -1, 1, 1).contains(
        overview.mapFromScene(scene).boundingRect())
    assert overview.visible_rect() == view.mapToScene(view.viewport().rect()).boundingRect()
    last = view.items_by_node[(SUBTASK, tab.context.session.loaded.project.timeline()[-1])]
    assert last.node[1] not in _subtasks_in_view(view)
    target = overview.mapFromScene(last.sceneBoundingRect().center())
    QTest.mouseClick(overview.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target)
    assert last.node[1] in _subtasks_in_view(view)
    assert overview.visible_rect().contains(last.sceneBoundingRect().center())
    # A drag keeps panning with the mouse.
    first = view.items_by_node[(SUBTASK, tab.context.session.loaded.project.timeline()[0])]
    QTest.mousePress(overview.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target)
    QTest.mouseMove(overview.viewport(), overview.mapFromScene(first.sceneBoundingRect().center()))
    QTest.mouseRelease(overview.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       overview.mapFromScene(first.sceneBoundingRect().center()))
    assert first.node[1] in _subtasks_in_view(view)
