"""The release timeline (`releaseTimeline`) on a copy of the sample: its items, dragging a chip as
one undoable edit, the review finding of a late release, keyboard, zoom, export, and the window's action."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QImage, QWheelEvent
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit

from studio.editing.materials import set_release
from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.project.timeline_view import TimelineExportError, TimelineView
from studio.review.runner import review_loaded
from studio.store.workspace import sample_project
from tests.gui.shell_support import child, open_window, press, sample_copy, shown_dialog, type_into


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


@pytest.fixture
def view(qtbot, root: Path) -> TimelineView:
    context = ProjectContext(ProjectSession(root))
    widget = TimelineView(context)
    context.setParent(widget)
    qtbot.addWidget(widget)
    widget.resize(1900, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def centre_of(view: TimelineView, kind: str, object_id: str) -> QPoint:
    item = view.item(kind, object_id)
    assert item is not None
    return view.mapFromScene(item.sceneBoundingRect().center())


def drag(view: TimelineView, start: QPoint, end: QPoint) -> None:
    viewport = view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    middle = QPoint((start.x() + end.x()) // 2, (start.y() + end.y()) // 2)
    for point in (start + QPoint(5, 0), middle, end):
        QTest.mouseMove(viewport, point)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


def release_point_x(view: TimelineView, before: str | None) -> float:
    return next(point.x for point in view.layout_.release_points if point.before == before)


def test_the_scene_holds_one_item_per_subtask_material_and_reference(view: TimelineView):
    project = view.context.session.loaded.project
    assert view.objectName() == "releaseTimeline"
    assert sorted(item.data(1) for item in view.items_of("subtask")) == sorted(project.timeline())
    assert sorted(item.data(1) for item in view.items_of("material")) == sorted(
        m.id for m in project.materials.materials)
    assert len(view.items_of("material")) == 18 and len(view.items_of("reference")) == 4
    assert len(view.items_of("correction")) == 2  # M12 corrects M02 and M09
    tip = view.item("material", "M12").toolTip()
    for part in ("CFO email restating FY2025 EBITDA", "Client feedback", "scenario assumption", "T06, T07"):
        assert part in tip
    assert "never shown to the agent" in view.item("reference", "R01").toolTip()
    texts = {item.text() for item in view.scene().items() if hasattr(item, "text")}
    assert "Evaluator only - never shown to the agent" in texts
    assert "Scripted feedback (generated)" in texts  # the legend


def test_the_release_point_under_a_dragged_chip_is_shaded(view: TimelineView):
    viewport = view.viewport()
    start = centre_of(view, "material", "M08")
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, view.mapFromScene(QPointF(release_point_x(view, "T05") + 40, view.mapToScene(start).y())))
    shaded = [item for item in view.scene().items() if item.toolTip() == "Release before T05"]
    assert len(shaded) == 1 and shaded[0].isVisible()
    assert shaded[0].sceneBoundingRect().left() <= release_point_x(view, "T05") + 1
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(1, 0))
    assert not [item for item in view.scene().items() if item.toolTip().startswith("Release ")]
    assert view.context.undo_stack.count() == 0  # dropped where it was picked up: a click


def test_dragging_a_chip_is_one_undoable_edit_that_keeps_comments(view: TimelineView, root: Path, qtbot):
    original = (root / "materials.yaml").read_bytes()
    start = centre_of(view, "material", "M08")  # released before T03, which lists it as an input
    target_x = release_point_x(view, "T05") + 40
    end = view.mapFromScene(QPointF(target_x, view.item("material", "M08").sceneBoundingRect().center().y()))
    drag(view, start, end)

    context = view.context
    assert context.undo_stack.count() == 1
    assert view.layout_.chip("M08").release == "T05"
    assert view.item("material", "M08").sceneBoundingRect().x() > release_point_x(view, "T05")
    context.save()
    moved = (root / "materials.yaml").read_text(encoding="utf-8")
    assert moved.startswith("# Files the agent receives, and when.")
    entry = moved[moved.index("- id: M08"):moved.index("- id: M09")]
    assert "subtask: T05" in entry
    assert moved.replace("subtask: T05", "subtask: T03", 1) != moved
    # not refused: the late release is a review finding naming the subtasks that list it
    findings = [f for f in review_loaded(context.session.loaded).findings if f.code == "validate.not-yet-released"]
    assert {f.object_id for f in findings} == {"T03", "T04"}
    assert all("M08" in f.message for f in findings)
    assert view.layout_.chip("M08").late_for == ("T03", "T04")

    context.undo_stack.undo()
    context.save()
    assert (root / "materials.yaml").read_bytes() == original
    assert view.layout_.chip("M08").release == "T03"


def test_dropping_a_chip_at_start_and_a_click_that_does_not_move(view: TimelineView, root: Path):
    start = centre_of(view, "material", "M13")
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    assert view.context.undo_stack.count() == 0 and view.selected() == ("material", "M13")
    end = view.mapFromScene(QPointF(release_point_x(view, None) + 30, view.mapToScene(start).y()))
    drag(view, start, end)
    assert view.context.undo_stack.count() == 1
    assert view.context.session.loaded.project.material("M13").release.at == "start"
    view.context.save()
    text = (root / "materials.yaml").read_text(encoding="utf-8")
    entry = text[text.index("- id: M13"):text.index("- id: M14")]
    assert "at: start" in entry and "subtask:" not in entry


def test_a_refused_drop_changes_nothing_and_says_why(view: TimelineView, root: Path, qtbot):
    original = (root / "materials.yaml").read_bytes()
    start = centre_of(view, "material", "M14")  # generated: never at start
    before = view.item("material", "M14").sceneBoundingRect()
    end = view.mapFromScene(QPointF(release_point_x(view, None) + 30, before.center().y()))
    with qtbot.waitSignal(view.refused) as refused:
        drag(view, start, end)
    assert "generated" in str(refused.args[0])
    assert view.context.undo_stack.count() == 0
    assert view.item("material", "M14").sceneBoundingRect() == before  # the chip went back
    assert (root / "materials.yaml").read_bytes() == original


def test_zoom_and_scroll_survive_an_edit(view: TimelineView, qtbot):
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() == pytest.approx(1.25)
    QTest.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() == pytest.approx(1.25)
    view.horizontalScrollBar().setValue(300)
    assert view.move_material("M10", "T05")
    assert view.zoom() == pytest.approx(1.25) and view.horizontalScrollBar().value() == 300
    view.fit_to_window()
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    scene = view.scene().sceneRect()
    assert shown.width() >= scene.width() - 1 and shown.height() >= scene.height() - 1
    assert view.zoom() < 1


def test_ctrl_wheel_zooms_and_a_plain_wheel_does_not(view: TimelineView):
    def wheel(modifiers: Qt.KeyboardModifier, delta: int) -> None:
        centre = QPointF(view.viewport().rect().center())
        event = QWheelEvent(centre, QPointF(view.viewport().mapToGlobal(centre.toPoint())), QPoint(0, 0),
                            QPoint(0, delta), Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(view.viewport(), event)

    wheel(Qt.KeyboardModifier.NoModifier, 120)
    assert view.zoom() == pytest.approx(1.0)
    wheel(Qt.KeyboardModifier.ControlModifier, 120)
    assert view.zoom() == pytest.approx(1.25)
    wheel(Qt.KeyboardModifier.ControlModifier, -120)
    wheel(Qt.KeyboardModifier.ControlModifier, -120)
    assert view.zoom() == pytest.approx(0.8)


def test_a_double_click_asks_for_the_editor(view: TimelineView, qtbot):
    with qtbot.waitSignal(view.open_requested) as opened:
        QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                          centre_of(view, "reference", "R03"))
    assert opened.args == ["reference", "R03"]
    with qtbot.waitSignal(view.open_requested) as opened:
        QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                          centre_of(view, "subtask", "T04"))
    assert opened.args == ["subtask", "T04"]
    assert view.context.undo_stack.count() == 0


def test_keyboard_moves_between_chips_and_enter_asks_for_the_editor(view: TimelineView, qtbot):
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Tab)
    assert view.selected() == ("material", "M01")
    QTest.keyClick(view, Qt.Key.Key_Down)
    assert view.selected() == ("material", "M02")
    QTest.keyClick(view, Qt.Key.Key_Up)
    QTest.keyClick(view, Qt.Key.Key_Up)  # the top of the column: stays
    assert view.selected() == ("material", "M01")
    for _ in range(5):
        QTest.keyClick(view, Qt.Key.Key_Right)
    assert view.selected() == ("reference", "R01")  # reading order: the column of T01 holds R01 and R02
    QTest.keyClick(view, Qt.Key.Key_Right)
    QTest.keyClick(view, Qt.Key.Key_Right)
    assert view.selected() == ("material", "M06")  # the first chip released before T02
    QTest.keyClick(view, Qt.Key.Key_Backtab)
    QTest.keyClick(view, Qt.Key.Key_Backtab)
    QTest.keyClick(view, Qt.Key.Key_Backtab)
    assert view.selected() == ("material", "M05")
    assert view.item("material", "M05").isSelected()
    with qtbot.waitSignal(view.open_requested) as opened:
        QTest.keyClick(view, Qt.Key.Key_Return)
    assert opened.args == ["material", "M05"]


def test_export_png_and_svg(view: TimelineView, tmp_path: Path):
    png = view.export_png(tmp_path / "timeline.png")
    image = QImage(str(png))
    assert not image.isNull()
    assert image.width() == int(view.scene().sceneRect().width() * 2)
    assert image.pixelColor(5, 5).name() == "#ffffff" and image.pixelColor(image.width() // 2, 120).name() != "#ffffff"
    svg = view.export_svg(tmp_path / "timeline.svg")
    assert ElementTree.parse(svg).getroot().tag.endswith("svg")
    assert QSvgRenderer(str(svg)).isValid()
    assert "M12" in svg.read_text(encoding="utf-8")
    with pytest.raises(TimelineExportError, match="could not write"):
        view.export_png(tmp_path / "missing" / "timeline.png")


def test_export_from_the_menu_asks_for_the_file(view: TimelineView, tmp_path: Path, qtbot):
    with qtbot.waitActive(view):
        view.activateWindow()
    view.findChild(QAction, "actionTimelineExportSvg").trigger()
    chooser = shown_dialog(qtbot, "timelineExportDialog")
    name = child(chooser, QLineEdit, "fileNameEdit")
    type_into(name, str(tmp_path / "picked"))
    press(name, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: (tmp_path / "picked.svg").exists(), timeout=5000)
    assert QSvgRenderer(str(tmp_path / "picked.svg")).isValid()
    assert "actionTimelineExportPng" in [action.objectName() for action in view.actions()]


def test_the_window_opens_the_timeline_and_its_chips_open_editors(qtbot, tmp_path, monkeypatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    window.findChild(QAction, "actionShowTimeline").trigger()
    timeline = window.findChild(TimelineView, "releaseTimeline")
    assert timeline is not None and window.editor_tabs.currentWidget() is timeline
    timeline.select("material", "M12")
    timeline.setFocus()
    QTest.keyClick(timeline, Qt.Key.Key_Return)
    assert window.editor_tabs.currentWidget().objectName() == "materialEditor"
    window.findChild(QAction, "actionShowTimeline").trigger()
    assert window.editor_tabs.currentWidget() is timeline  # one timeline tab, shown again

    # an edit made elsewhere (as the material editor's release field makes it) and its undo are followed
    window.context.push(set_release(window.context.session.documents, "M11", "T08"))
    assert timeline.layout_.chip("M11").release == "T08"
    window.findChild(QAction, "actionUndo").trigger()
    assert timeline.layout_.chip("M11").release == "T07"
    assert len(timeline.items_of("material")) == 18


def test_a_project_read_again_from_disk_is_redrawn(view: TimelineView, root: Path):
    text = (root / "materials.yaml").read_text(encoding="utf-8")
    (root / "materials.yaml").write_text(text.replace("title: CFO email restating FY2025 EBITDA",
                                                      "title: CFO email, EBITDA restated"), encoding="utf-8")
    view.context.replace_session(ProjectSession(root))
    assert "CFO email, EBITDA restated" in view.item("material", "M12").toolTip()
    assert len(view.items_of("material")) == 18
