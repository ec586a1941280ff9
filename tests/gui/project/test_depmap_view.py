"""The dependency map tab on a real copy of the sample: its items, the impact of a selection, a
handoff added by dragging, undo, export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGraphicsView, QInputDialog

from studio.cli.main import main
from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.project.depmap_view import DependencyMapTab, NodeItem
from studio.review.graph import DELIVERABLE, MATERIAL, OUTPUT, SUBTASK
from studio.store import layout
from tests.gui.shell_support import sample_copy

CORRECTED = "M12"  # the CFO email that corrects the FY2025 EBITDA of M02 and M09


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return sample_copy(tmp_path, monkeypatch)


@pytest.fixture
def tab(qtbot, sample: Path) -> DependencyMapTab:
    widget = DependencyMapTab(ProjectContext(ProjectSession(sample)))
    qtbot.addWidget(widget)
    widget.resize(1400, 800)
    widget.show()
    return widget


def _centre(tab: DependencyMapTab, node: tuple[str, str]) -> QPoint:
    item = tab.view.items_by_node[node]
    tab.view.centerOn(item)
    return tab.view.mapFromScene(item.sceneBoundingRect().center())


def test_scene_has_one_item_per_subtask_material_and_output(tab: DependencyMapTab) -> None:
    project = tab.context.session.loaded.project
    items = [i for i in tab.view.scene().items() if isinstance(i, NodeItem)]
    keys = sorted(item.node for item in items)
    expected = sorted([(SUBTASK, s) for s in project.timeline()]
                      + [(MATERIAL, m.id) for m in project.materials.materials]
                      + [(OUTPUT, o) for o in project.outputs()]
                      + [(DELIVERABLE, d.id) for d in project.info.delivery.final_deliverables])
    assert keys == expected
    assert tab.view.objectName() == "dependencyMap" and tab.impact_table.objectName() == "impactPanel"


def test_selecting_the_corrected_material_highlights_what_dbstudio_impact_reports(
        qtbot, tab: DependencyMapTab, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["impact", str(sample), "--changed", CORRECTED, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = ({(SUBTASK, s["id"]) for s in report["subtasks"]} | {(OUTPUT, o) for o in report["outputs"]}
                | {(MATERIAL, m) for m in report["generated_materials"]}
                | {(DELIVERABLE, d) for d in report["final_deliverables"]})
    assert tab.view.highlighted_nodes() == set()
    QTest.mouseClick(tab.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     _centre(tab, (MATERIAL, CORRECTED)))
    assert tab.view.selected_node() == (MATERIAL, CORRECTED)
    assert tab.view.highlighted_nodes() == expected
    model = tab.impact_model
    shown = [(model.index(r, 0).data(), model.index(r, 1).data()) for r in range(model.rowCount())]
    assert shown == [(c["scope"], c["id"]) for c in report["criteria"]]
    # M12 corrects M02, read by T01 before the correction: T01's criteria come first.
    assert model.index(0, 0).data() == "T01"
    rubric = tab.context.session.loaded.project.rubric("T01")
    first = next(c for c in rubric.criteria if c.key == model.index(0, 1).data())
    assert model.index(0, 3).data() == first.text and model.index(0, 2).data() == f"{first.weight:g}"
    tab.view.scene().clearSelection()
    assert tab.view.highlighted_nodes() == set() and model.rowCount() == 0


def test_impact_model_passes_the_model_tester(qtmodeltester, tab: DependencyMapTab) -> None:
    tab.view.select_node((MATERIAL, CORRECTED))
    assert tab.impact_model.rowCount() > 0
    qtmodeltester.check(tab.impact_model)


def test_double_click_asks_to_open_the_object(qtbot, tab: DependencyMapTab) -> None:
    with qtbot.waitSignal(tab.open_requested) as opened:
        QTest.mouseDClick(tab.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                          _centre(tab, (SUBTASK, "T03")))
    assert opened.args == ["subtask", "T03"]


def _drag(tab: DependencyMapTab, source: tuple[str, str], target: tuple[str, str]) -> None:
    viewport = tab.view.viewport()
    tab.view.fitInView(tab.view.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
    start = tab.view.mapFromScene(tab.view.items_by_node[source].sceneBoundingRect().center())
    end = tab.view.mapFromScene(tab.view.items_by_node[target].sceneBoundingRect().center())
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, (start + end) / 2)
    QTest.mouseMove(viewport, end)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


def test_dragging_an_output_to_a_later_subtask_adds_one_handoff_and_undo_restores_the_bytes(
        qtbot, tab: DependencyMapTab, sample: Path) -> None:
    path = sample / layout.DEPENDENCIES_FILE
    before = path.read_bytes()
    count = len(tab.context.session.loaded.project.dependencies.handoffs)
    source, target = (OUTPUT, "T01:outputs/earnings_quality_note.md"), (SUBTASK, "T09")
    assert source in tab.view.items_by_node
    _drag(tab, source, target)
    dialog = tab.carries_dialog
    assert isinstance(dialog, QInputDialog) and dialog.objectName() == "handoffCarriesDialog"
    qtbot.waitUntil(dialog.isVisible)
    dialog.setTextValue("the credit view as of T01")
    dialog.accept()
    assert tab.context.save()
    after = path.read_text(encoding="utf-8")
    handoffs = tab.context.session.loaded.project.dependencies.handoffs
    assert len(handoffs) == count + 1
    added = [h for h in handoffs if h.artifact == source[1] and h.to == "T09"]
    assert len(added) == 1 and added[0].carries == "the credit view as of T01"
    comments = [line for line in before.decode().splitlines() if line.lstrip().startswith("#")]
    assert comments and all(line in after.splitlines() for line in comments)
    assert (OUTPUT, source[1]) in tab.view.items_by_node  # the map was laid out again
    tab.context.undo_stack.undo()
    tab.context.save()
    assert path.read_bytes() == before


def test_dragging_onto_an_earlier_subtask_adds_nothing(qtbot, tab: DependencyMapTab, sample: Path) -> None:
    before = (sample / layout.DEPENDENCIES_FILE).read_bytes()
    _drag(tab, (OUTPUT, "T06:outputs/financing_model.xlsx"), (SUBTASK, "T02"))
    assert tab.carries_dialog is None
    assert tab.context.undo_stack.count() == 0
    assert (sample / layout.DEPENDENCIES_FILE).read_bytes() == before


def test_export_writes_png_and_svg(tab: DependencyMapTab, tmp_path: Path) -> None:
    tab.view.export_image(tmp_path / "map.png")
    tab.view.export_image(tmp_path / "map.svg")
    assert (tmp_path / "map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (tmp_path / "map.svg").read_text(encoding="utf-8")
    assert "<svg" in svg and "Dependency map" in svg
    QApplication.processEvents()


def test_view_menu_opens_the_map_as_a_tab_laid_out_in_the_background(qtbot, sample: Path) -> None:
    from tests.gui.shell_support import idle, open_window

    window = open_window(qtbot, sample)
    window.findChild(QAction, "actionShowDependencyMap").trigger()
    idle(qtbot, window)
    view = window.editor_tabs.currentWidget().findChild(QGraphicsView, "dependencyMap")
    assert view is not None and (SUBTASK, "T01") in view.items_by_node
    window.findChild(QAction, "actionShowDependencyMap").trigger()
    assert window.editor_tabs.count() == 1  # the same tab again
    # A double-click on an output opens the form of the subtask producing it.
    item = view.items_by_node[(OUTPUT, "T02:outputs/fleet_and_permit_findings.md")]
    view.centerOn(item)
    QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                      view.mapFromScene(item.sceneBoundingRect().center()))
    assert window.editor_tabs.tabText(window.editor_tabs.currentIndex()) == "Subtask T02"


def test_a_connector_selects_the_node_it_stands_for_and_a_double_click_goes_there(tab: DependencyMapTab) -> None:
    from studio.gui.project.depmap_view import ConnectorItem
    from studio.views.depmap import DependencyMap, layout_map

    assert tab.view.connectors == []  # the sample is drawn with every edge routed
    dmap = DependencyMap.build(tab.context.session.loaded.project)
    tab.view.show_layout(dmap, layout_map(dmap, routed_crossings=0))  # as a huge project would be drawn
    stand_ins = [i for i in tab.view.scene().items() if isinstance(i, ConnectorItem)]
    assert stand_ins and len(stand_ins) == len(tab.view.connectors)
    # Still exactly one node item per node: connectors are not nodes.
    assert len([i for i in tab.view.scene().items() if isinstance(i, NodeItem)]) == len(dmap.nodes)
    far = max(tab.view.connectors, key=lambda c: abs(c.rect().x() - tab.view.items_by_node[c.node].rect().x()))
    tab.view.centerOn(far)
    QTest.mouseClick(tab.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     tab.view.mapFromScene(far.sceneBoundingRect().center()))
    assert tab.view.selected_node() == far.node
    assert far.highlighted  # the stand-in marks the selection, far from the node itself
    real = tab.view.items_by_node[far.node]
    assert not tab.view.viewport().rect().contains(tab.view.mapFromScene(real.sceneBoundingRect().center()))
    QTest.mouseDClick(tab.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                      tab.view.mapFromScene(far.sceneBoundingRect().center()))
    assert tab.view.viewport().rect().contains(tab.view.mapFromScene(real.sceneBoundingRect().center()))
    assert tab.view.selected_node() == far.node


def test_the_map_opens_on_the_start_of_the_timeline(tab: DependencyMapTab) -> None:
    first = tab.view.items_by_node[(SUBTASK, tab.context.session.loaded.project.timeline()[0])]
    assert tab.view.viewport().rect().contains(tab.view.mapFromScene(first.sceneBoundingRect().center()))
    assert tab.view.transform().m11() >= 0.6  # readable, not shrunk to a thumbnail
    # The view knows the map's size: it scrolls to a node at the far end.
    assert tab.view.horizontalScrollBar().maximum() > 0
    last = tab.view.items_by_node[(SUBTASK, tab.context.session.loaded.project.timeline()[-1])]
    tab.view.go_to(last.node)
    assert tab.view.viewport().rect().contains(tab.view.mapFromScene(last.sceneBoundingRect().center()))
    assert last.pen().width() > first.pen().width()  # the selected node is drawn with a heavier pen
