"""The dependency map tab: the core's laid-out map drawn in a QGraphicsView (`dependencyMap`),
the impact of the selected node highlighted, its criteria in a side table (`impactPanel`), and a
handoff added by dragging from an output to a later subtask. The map zooms (Ctrl+wheel, +/-, the
buttons), fits in the view (Fit, Ctrl+0), and has an overview in its corner to pan with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QSplitter,
    QStyle,
    QStyleOptionGraphicsItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from studio.errors import StudioError
from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import Task, TaskRunner
from studio.gui.project.depmap_minimap import DependencyMiniMap
from studio.gui.widgets.tables import HeadersTableModel
from studio.review.graph import DELIVERABLE, MATERIAL, OUTPUT, SUBTASK, Node
from studio.views.depmap import (
    AffectedCriterion,
    DependencyMap,
    MapLayout,
    affected_criteria,
    connector_label,
    impact_nodes,
    impact_of_node,
    layout_map,
)

FILL = {MATERIAL: "#fdf1d6", SUBTASK: "#dce8f7", OUTPUT: "#e3f3e1", DELIVERABLE: "#eadcf5"}
HIGHLIGHT = QColor("#d9480f")
SELECTED = QColor("#1c5fb8")
NODE_ROLE = 0  # QGraphicsItem.data key holding the (kind, id) of a node item
ZOOM_STEP = 1.25
MIN_ZOOM, MAX_ZOOM = 0.05, 4.0
OVERVIEW_WIDTH, OVERVIEW_MAX_HEIGHT, OVERVIEW_MARGIN = 220, 140, 8


class ImpactCriteriaModel(HeadersTableModel):
    """The criteria a change reaches: scope, id, weight and text (read-only)."""

    HEADERS = ("Scope", "Criterion", "Weight", "Text")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[AffectedCriterion] = []

    def show(self, rows: list[AffectedCriterion]) -> None:
        # A new selection is a wholly new list: a reset says so in one step.
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rows(self) -> list[AffectedCriterion]:
        return list(self._rows)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            weight = "" if row.weight is None else f"{row.weight:g}"
            return (row.scope, row.id, weight, row.text)[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

def _label(box: QGraphicsRectItem, label: str, rect: QRectF, italic: bool = False) -> None:
    """A box's label, centred and shrunk to fit its width."""
    text = QGraphicsSimpleTextItem(label, box)
    font = text.font()
    font.setPointSizeF(8.0)
    font.setItalic(italic)
    text.setFont(font)
    bounds = text.boundingRect()
    scale = min(1.0, (rect.width() - 6) / max(bounds.width(), 1.0))
    text.setScale(scale)
    text.setPos(rect.x() + (rect.width() - bounds.width() * scale) / 2,
                rect.y() + (rect.height() - bounds.height() * scale) / 2)


class NodeItem(QGraphicsRectItem):
    """One node of the map: a box in its kind's colour with its label elided to the box."""

    def __init__(self, node: Node, label: str, rect: QRectF) -> None:
        super().__init__(rect)
        self.node = node
        self.setData(NODE_ROLE, node)
        self.setBrush(QBrush(QColor(FILL.get(node[0], "#ffffff"))))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setToolTip(f"{node[0]} {node[1]}")
        _label(self, label, rect)
        self.set_highlighted(False)

    def set_highlighted(self, on: bool) -> None:
        self.highlighted = on
        self._style()

    def _style(self) -> None:
        if self.isSelected():  # the node whose impact is shown: blue, thicker than the impact's orange
            self.setPen(QPen(SELECTED, 3.0))
        else:
            self.setPen(QPen(HIGHLIGHT, 2.5) if self.highlighted else QPen(QColor("#555555"), 1.0))

    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: Any) -> Any:  # noqa: N802 (Qt naming)
        if change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
            self._style()
        return super().itemChange(change, value)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        plain = QStyleOptionGraphicsItem(option)
        plain.state &= ~QStyle.StateFlag.State_Selected  # the pen shows the selection, not Qt's dashed frame
        super().paint(painter, plain, widget)


class ConnectorItem(QGraphicsRectItem):
    """A connector: a dashed stand-in for a node far back on the timeline whose edge would cross
    too many columns. A click selects the node it stands for; a double-click goes to it."""

    def __init__(self, node: Node, target: Node, label: str, rect: QRectF) -> None:
        super().__init__(rect)
        self.node, self.target = node, target
        self.setBrush(QBrush(QColor(FILL.get(node[0], "#ffffff")).lighter(104)))
        self.setToolTip(f"{node[0]} {node[1]}, further back on the timeline (feeds {target[1]}).\n"
                        "Double-click to go to it.")
        _label(self, label, rect, italic=True)
        self.set_highlighted(False)

    def set_highlighted(self, on: bool) -> None:
        self.highlighted = on
        self.setPen(QPen(HIGHLIGHT, 2.0, Qt.PenStyle.DashLine) if on
                    else QPen(QColor("#777777"), 1.0, Qt.PenStyle.DashLine))


class DependencyMapView(QGraphicsView):
    """The map itself. Signals: `open_requested(kind, id)` on a double-click, `node_selected`."""

    open_requested = Signal(str, str)
    handoff_dropped = Signal(str, str)  # (output ref, later subtask) at the end of a drag
    node_selected = Signal(object)  # the selected (kind, id), or None
    view_moved = Signal()
    """The part of the map in view changed (a zoom, a scroll, a resize)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dependencyMap")
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        # a resized view (a dock or the splitter moved) keeps what was in its middle in view
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.items_by_node: dict[Node, NodeItem] = {}
        self.connectors: list[ConnectorItem] = []
        self.columns: dict[Node, int] = {}
        self._drag_source: Node | None = None
        self._drag_line: QGraphicsLineItem | None = None
        self.scene().selectionChanged.connect(self._selection_changed)
        self.horizontalScrollBar().valueChanged.connect(self.view_moved)
        self.verticalScrollBar().valueChanged.connect(self.view_moved)
        # After Fit the map stays fitted as the view resizes (the scroll bars the fit made
        # unnecessary going away is such a resize), until the user zooms or scrolls.
        self._fitted = False
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.actionTriggered.connect(self._unfit)
        self.overview = DependencyMiniMap(self, self)
        self.overview.pan_requested.connect(self.pan_to)
        self.view_moved.connect(self.overview.viewport().update)
        self.scene().sceneRectChanged.connect(lambda _rect: self._place_overview())

    # -- zoom, fit and the overview --------------------------------------------------------
    def zoom(self) -> float:
        """The scale the map is drawn at (1.0: the layout's own size)."""
        return self.transform().m11()

    def zoom_by(self, factor: float, anchor: QPoint | None = None) -> None:
        """Scale by `factor` within MIN_ZOOM..MAX_ZOOM, keeping the scene point under `anchor` (a
        viewport position: the mouse for Ctrl+wheel) where it is; the view's centre otherwise."""
        self._fitted = False
        current = self.zoom()
        factor = max(MIN_ZOOM, min(MAX_ZOOM, current * factor)) / current
        if abs(factor - 1.0) < 1e-9:
            return
        anchor = anchor if anchor is not None else self.viewport().rect().center()
        before = self.mapToScene(anchor)
        centre = self.mapToScene(self.viewport().rect().center())
        self.scale(factor, factor)
        after = self.mapToScene(anchor)
        self.centerOn(centre - (after - before))
        self.view_moved.emit()

    def pan_to(self, point: QPointF) -> None:
        """Centre the view on a scene point (a click in the overview)."""
        self._fitted = False
        self.centerOn(point)

    def _unfit(self, _action: int = 0) -> None:
        self._fitted = False

    def zoom_in(self) -> None:
        self.zoom_by(ZOOM_STEP)

    def zoom_out(self) -> None:
        self.zoom_by(1 / ZOOM_STEP)

    def fit(self) -> None:
        """The whole map in view (however small that makes it)."""
        self.resetTransform()
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
        self._fitted = True
        self.view_moved.emit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y() / 120
            if steps:
                self.zoom_by(ZOOM_STEP ** steps, event.position().toPoint())
            event.accept()
            return
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_in()
        elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            self.zoom_out()
        elif key == Qt.Key.Key_0 and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.fit()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._fitted:
            self.fit()
        self._place_overview()
        self.view_moved.emit()

    def _place_overview(self) -> None:
        """The overview in the map's bottom-right corner, shaped like the map."""
        rect = self.scene().sceneRect()
        area = self.viewport().geometry()
        width = min(OVERVIEW_WIDTH, max(area.width() // 4, 60))
        height = int(min(OVERVIEW_MAX_HEIGHT, max(40.0, width * rect.height() / max(rect.width(), 1.0))))
        self.overview.setGeometry(area.right() - width - OVERVIEW_MARGIN, area.bottom() - height - OVERVIEW_MARGIN,
                                  width, height)
        self.overview.raise_()
        self.overview.fit()

    def show_layout(self, dmap: DependencyMap, layout: MapLayout) -> None:
        selected = self.selected_node()
        scene = self.scene()
        scene.blockSignals(True)
        scene.clear()
        first = not self.items_by_node
        self.items_by_node = {}
        self.connectors = []
        self.columns = {node: n.column for node, n in dmap.nodes.items()}
        for edge in layout.edges:
            scene.addItem(_edge_item(edge.points, dashed=edge.via_connector))
        for node, box in layout.boxes.items():
            item = NodeItem(node, dmap.nodes[node].label, QRectF(box.x, box.y, box.width, box.height))
            scene.addItem(item)
            self.items_by_node[node] = item
        for connector in layout.connectors:
            box = connector.box
            stand_in = ConnectorItem(connector.node, connector.target, connector_label(dmap.nodes[connector.node]),
                                     QRectF(box.x, box.y, box.width, box.height))
            scene.addItem(stand_in)
            self.connectors.append(stand_in)
        scene.blockSignals(False)
        # after unblocking: the view sizes its scroll bars on the scene's sceneRectChanged
        scene.setSceneRect(QRectF(0, 0, layout.width, layout.height).adjusted(-10, -10, 10, 10))
        if first:
            self.show_start()
        elif self._fitted:
            self.fit()  # the edited map, whole again
        if selected in self.items_by_node:
            self.items_by_node[selected].setSelected(True)
        else:
            self._selection_changed()

    def show_start(self) -> None:
        """Open on the start of the timeline at a readable scale: the whole map when it fits at
        60 % or more, otherwise the first subtask at full size."""
        rect = self.scene().sceneRect()
        view = self.viewport().rect()
        fit = min(view.width() / max(rect.width(), 1.0), view.height() / max(rect.height(), 1.0))
        self.resetTransform()
        if fit >= 0.6:
            self.scale(min(fit, 1.0), min(fit, 1.0))
            self.centerOn(rect.center())
        else:
            first = min((item for node, item in self.items_by_node.items() if node[0] == SUBTASK),
                        key=lambda item: item.rect().x(), default=None)
            if first is not None:
                centre = first.rect().center()
                self.centerOn(QPointF(centre.x() + view.width() / 2 - 120, centre.y()))
        self.view_moved.emit()

    def go_to(self, node: Node) -> None:
        """Select a node and bring it into view."""
        item = self.items_by_node.get(node)
        if item is not None:
            self.select_node(node)
            self.centerOn(item)

    def selected_node(self) -> Node | None:
        for item in self.scene().selectedItems():
            if isinstance(item, NodeItem):
                return item.node
        return None

    def select_node(self, node: Node) -> None:
        self.scene().clearSelection()
        self.items_by_node[node].setSelected(True)

    def highlight(self, nodes: set[Node]) -> None:
        for node, item in self.items_by_node.items():
            item.set_highlighted(node in nodes)
        selected = self.selected_node()
        for connector in self.connectors:  # a stand-in also marks the selected node itself
            connector.set_highlighted(connector.node in nodes or connector.node == selected)

    def highlighted_nodes(self) -> set[Node]:
        return {node for node, item in self.items_by_node.items() if item.highlighted}

    def _selection_changed(self) -> None:
        self.node_selected.emit(self.selected_node())

    def node_at(self, position: QPoint) -> Node | None:
        item = self._item_at(position)
        return item.node if isinstance(item, NodeItem) else None

    def _item_at(self, position: QPoint) -> NodeItem | ConnectorItem | None:
        for item in self.items(position):
            while item is not None and not isinstance(item, NodeItem | ConnectorItem):
                item = item.parentItem()
            if isinstance(item, NodeItem | ConnectorItem):
                return item
        return None

    # -- mouse: double-click opens, a drag from an output proposes a handoff ---------------
    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item = self._item_at(event.position().toPoint())
        if isinstance(item, ConnectorItem):
            self.go_to(item.node)
            event.accept()
            return
        node = self.node_at(event.position().toPoint())
        if node is not None:
            self.open_requested.emit(node[0], node[1])
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        super().mousePressEvent(event)
        item = self._item_at(event.position().toPoint())
        if isinstance(item, ConnectorItem) and event.button() == Qt.MouseButton.LeftButton:
            self.select_node(item.node)  # its impact shows without leaving this part of the map
            return
        node = self.node_at(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and node is not None and node[0] == OUTPUT:
            self._drag_source = node

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_source is None:
            super().mouseMoveEvent(event)
            return
        start = self.items_by_node[self._drag_source].rect().center()
        end = self.mapToScene(event.position().toPoint())
        if self._drag_line is None:
            self._drag_line = self.scene().addLine(start.x(), start.y(), end.x(), end.y(),
                                                   QPen(HIGHLIGHT, 1.5, Qt.PenStyle.DashLine))
        else:
            self._drag_line.setLine(start.x(), start.y(), end.x(), end.y())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        source, self._drag_source = self._drag_source, None
        if self._drag_line is not None:
            self.scene().removeItem(self._drag_line)
            self._drag_line = None
        super().mouseReleaseEvent(event)
        target = self.node_at(event.position().toPoint())
        if source is not None and target is not None and self.accepts_handoff(source, target):
            self.handoff_dropped.emit(source[1], target[1])

    def accepts_handoff(self, source: Node, target: Node) -> bool:
        """Only an output onto a subtask later on the timeline makes a handoff."""
        return (source[0] == OUTPUT and target[0] == SUBTASK
                and self.columns.get(target, -1) > self.columns.get(source, 10**9))

    def export_image(self, path: Path | str) -> None:
        """Write the whole map as SVG (by the file's suffix) or as a PNG image."""
        path = Path(path)
        scene = self.scene()
        rect = scene.sceneRect()
        if path.suffix.lower() == ".svg":
            from PySide6.QtSvg import QSvgGenerator

            generator = QSvgGenerator()
            generator.setFileName(str(path))
            generator.setSize(QSize(int(rect.width()), int(rect.height())))
            generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
            generator.setTitle("Dependency map")
            painter = QPainter(generator)
        else:
            image = QImage(int(rect.width() * 2), int(rect.height() * 2), QImage.Format.Format_ARGB32)
            image.fill(QColor("white"))
            painter = QPainter(image)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        scene.render(painter, QRectF(), rect)
        painter.end()
        if path.suffix.lower() != ".svg" and not image.save(str(path)):
            raise StudioError(f"Could not write the image {path}: choose a folder you can write to")


def _edge_item(points: tuple[tuple[float, float], ...], dashed: bool = False) -> QGraphicsPathItem:
    """dot's spline (1 + 3n control points) as cubic segments, with a small arrow head."""
    path = QPainterPath(QPointF(*points[0]))
    for i in range(1, len(points) - 2, 3):
        path.cubicTo(QPointF(*points[i]), QPointF(*points[i + 1]), QPointF(*points[i + 2]))
    end, before = QPointF(*points[-1]), QPointF(*points[-2]) if len(points) > 1 else QPointF(*points[-1])
    direction = end - before
    length = max((direction.x() ** 2 + direction.y() ** 2) ** 0.5, 1e-6)
    unit = direction / length
    normal = QPointF(-unit.y(), unit.x())
    path.moveTo(end + unit * 6)
    path.lineTo(end - normal * 3)
    path.lineTo(end + normal * 3)
    path.lineTo(end + unit * 6)
    item = QGraphicsPathItem(path)
    item.setPen(QPen(QColor("#888888"), 1.0, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine))
    item.setZValue(-1)
    return item


class DependencyMapTab(QWidget):
    """The map with its impact panel, kept up to date with the project's edits."""

    open_requested = Signal(str, str)

    def __init__(self, context: ProjectContext, runner: TaskRunner | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dependencyMapTab")
        self.context = context
        self.runner = runner
        self.view = DependencyMapView(self)
        self.impact_model = ImpactCriteriaModel(self)
        self.impact_table = QTableView(self)
        self.impact_table.setObjectName("impactPanel")
        self.impact_table.setModel(self.impact_model)
        header = self.impact_table.horizontalHeader()
        for column in range(3):  # scope, id and weight are short: as wide as their content
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.impact_table.verticalHeader().hide()
        self.impact_table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.impact_table.setWordWrap(True)
        self.impact_table.setAlternatingRowColors(True)
        zoom_bar = QHBoxLayout()
        zoom_bar.setContentsMargins(0, 0, 0, 0)
        for name, text, tip, slot in (
                ("dependencyMapZoomOut", "−", "Zoom out (-, Ctrl+wheel)", self.view.zoom_out),
                ("dependencyMapZoomIn", "+", "Zoom in (+, Ctrl+wheel)", self.view.zoom_in),
                ("dependencyMapFit", "Fit", "The whole map in view (Ctrl+0)", self.view.fit)):
            button = QToolButton(self)
            button.setText(text)
            button.setObjectName(name)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            zoom_bar.addWidget(button)
        self.zoom_label = QLabel(self)
        self.zoom_label.setObjectName("dependencyMapZoom")
        zoom_bar.addWidget(self.zoom_label)
        zoom_bar.addStretch(1)
        self.view.view_moved.connect(lambda: self.zoom_label.setText(f"{self.view.zoom():.0%}"))
        export = QPushButton("Export PNG/SVG…", self)
        export.setObjectName("exportDependencyMap")
        export.clicked.connect(self.choose_export)
        splitter = QSplitter(self)
        map_side = QWidget(splitter)
        map_layout = QVBoxLayout(map_side)
        map_layout.setContentsMargins(0, 0, 0, 0)
        map_layout.addLayout(zoom_bar)
        map_layout.addWidget(self.view)
        splitter.addWidget(map_side)
        side = QWidget(splitter)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.impact_table)
        side_layout.addWidget(export)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([2000, 1000])  # the map first: the criteria panel takes a third, room for their text
        remember_splitter(splitter, "dependency-map/map-criteria")
        self.message = QLabel(self)
        self.message.setObjectName("dependencyMapMessage")
        self.message.setWordWrap(True)
        self.message.hide()
        outer = QVBoxLayout(self)
        outer.addWidget(self.message)
        outer.addWidget(splitter)
        self.dmap: DependencyMap | None = None
        self.carries_dialog: QInputDialog | None = None
        self.view.node_selected.connect(self._show_impact)
        self.view.open_requested.connect(self.open_requested)
        self.view.handoff_dropped.connect(self.ask_handoff)
        self._task: Task | None = None
        # Bound slots: Qt drops the connections when this tab is deleted.
        context.changed.connect(self._on_changed)
        context.reloaded.connect(self.refresh)
        self.refresh()

    def _on_changed(self, _changes: object) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Lay the map out again (on the background helper when the window gives one: dot is
        a separate process)."""
        dmap = DependencyMap.build(self.context.session.loaded.project)
        if self.runner is None:
            try:
                self._laid_out((dmap, layout_map(dmap)))
            except StudioError as error:
                self._layout_failed(error)
        else:
            if self._task is not None:
                self._task.cancel()  # an older project state: its layout is not wanted any more
            self._task = self.runner.run("Laying out the dependency map", lambda: (dmap, layout_map(dmap)),
                                         self._laid_out, self._layout_failed)

    def _laid_out(self, result: tuple[DependencyMap, MapLayout]) -> None:
        if not isValid(self):  # the tab was closed while dot ran
            return
        self._task = None
        self.dmap, layout = result
        self.message.hide()
        self.view.show_layout(self.dmap, layout)

    def _layout_failed(self, error: StudioError) -> None:
        if isValid(self):
            self._task = None
            self.message.setText(str(error))
            self.message.show()

    def _show_impact(self, node: Node | None) -> None:
        if node is None:
            self.view.highlight(set())
            self.impact_model.show([])
            return
        loaded = self.context.session.loaded
        report = impact_of_node(loaded, node)
        self.view.highlight(impact_nodes(report))
        self.impact_model.show(affected_criteria(loaded, report))

    def ask_handoff(self, source_ref: str, to_subtask: str) -> QInputDialog:
        """Ask what the handoff carries (without blocking), then add it as one undoable edit."""
        dialog = QInputDialog(self)
        dialog.setObjectName("handoffCarriesDialog")
        dialog.setWindowTitle("Add handoff")
        dialog.setLabelText(f"{source_ref} → {to_subtask}\nWhat must survive the handoff (optional):")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.textValueSelected.connect(lambda text: self.add_handoff(source_ref, to_subtask, text.strip()))
        dialog.finished.connect(dialog.deleteLater)
        self.carries_dialog = dialog
        dialog.open()
        return dialog

    def add_handoff(self, source_ref: str, to_subtask: str, carries: str) -> bool:
        from studio.editing.dependencies import add_handoff

        try:
            command = add_handoff(self.context.session.documents, source_ref, to_subtask, carries or None)
            return self.context.push(command)
        except StudioError as error:
            from PySide6.QtWidgets import QMessageBox

            QMessageBox.warning(self, "Add handoff", str(error))
            return False

    def choose_export(self) -> None:
        dialog = QFileDialog(self, "Export dependency map", "", "PNG image (*.png);;SVG drawing (*.svg)")
        dialog.setObjectName("exportDependencyMapDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.fileSelected.connect(self.view.export_image)
        dialog.open()
