"""The release timeline (`releaseTimeline`): a QGraphicsView painting the Qt-free layout of
studio.views.timeline. A chip dragged to another release point is one undoable edit
(`set_release` through `context.push`); the scene is rebuilt after every edit, keeping zoom and scroll."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QFont,
    QImage,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.project_context import ProjectContext
from studio.views.timeline import (
    EVALUATOR_LANE_LABEL,
    KIND_LABELS,
    SLOT,
    Box,
    TimelineLayout,
    timeline_layout,
)

KIND_ROLE = 0  # item.data(KIND_ROLE): "subtask", "material", "reference" (the items tests count)
ID_ROLE = 1
KIND_COLOURS = {
    "source_record": "#9ec5e8",
    "new_evidence": "#a8d5a2",
    "client_feedback": "#f5c98b",
    "scripted_feedback": "#d3b3e6",
    "template": "#e0e0e0",
}
EVALUATOR_COLOUR = "#f3a6a6"
ZOOM_STEP = 1.25
ZOOM_MIN, ZOOM_MAX = 0.1, 8.0


def _rect(box: Box) -> QRectF:
    return QRectF(box.x, box.y, box.width, box.height)


class TimelineView(QGraphicsView):
    """The release schedule of the open project as a picture; chips can be dragged between release points."""

    open_requested = Signal(str, str)
    """(kind, id) of the object whose editor the user asked for (Enter or a double-click)."""
    refused = Signal(object)
    """A StudioError: a drop the edit layer refused, or an export that could not be written (nothing changed)."""

    def __init__(self, context: ProjectContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("releaseTimeline")
        self.context = context
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        # time starts on the left: a picture smaller than the window sits at its top left, not centred
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.layout_: TimelineLayout = TimelineLayout()
        self.items_by_id: dict[tuple[str, str], QGraphicsRectItem] = {}
        self._drag: tuple[QGraphicsRectItem, QPointF, QPointF] | None = None  # item, press point, item pos
        self._selected: tuple[str, str] | None = None
        self._target: QGraphicsRectItem | None = None  # the release point under a dragged chip
        # The right-click menu lists these actions; their shortcuts work while the view has focus.
        for name, text, keys, slot in (
                ("actionTimelineZoomIn", "Zoom &In", ["Ctrl+=", "Ctrl++"], self.zoom_in),
                ("actionTimelineZoomOut", "Zoom &Out", ["Ctrl+-"], self.zoom_out),
                ("actionTimelineFit", "&Fit to Window", ["Ctrl+0"], self.fit_to_window),
                ("actionTimelineExportPng", "Export as &PNG…", [], lambda: self.ask_export("png")),
                ("actionTimelineExportSvg", "Export as &SVG…", [], lambda: self.ask_export("svg"))):
            action = QAction(text, self)
            action.setObjectName(name)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(lambda _checked=False, run=slot: run())
            self.addAction(action)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        context.changed.connect(lambda _changes: self.rebuild())
        context.reloaded.connect(self.rebuild)
        self.rebuild()

    # -- the picture ---------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Draw the project as it is now; zoom, scroll and the selected chip stay."""
        horizontal, vertical = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
        self._drag = None
        self._target = None  # cleared with the scene
        self.layout_ = timeline_layout(self.context.session.loaded.project)
        scene = self.scene()
        scene.clear()
        self.items_by_id = {}
        self._draw_lanes_and_bands()
        for mark in self.layout_.subtasks:
            item = self._box(_rect(mark.box), QColor("#ffffff"), f"{mark.subtask_id}  {mark.title}", "subtask",
                             mark.subtask_id)
            item.setToolTip(f"<b>{mark.subtask_id}</b>: {mark.title}<br>Stage {mark.stage_id}, "
                            f"place {mark.position} on the timeline")
        for point in self.layout_.release_points:
            line = scene.addLine(point.x, self.layout_.subtasks[0].box.y if self.layout_.subtasks else 0, point.x,
                                 self.layout_.material_lane.bottom, QPen(QColor("#8a8a8a"), 1, Qt.PenStyle.DashLine))
            line.setZValue(-1)
        for chip in self.layout_.chips:
            item = self._box(_rect(chip.box), QColor(KIND_COLOURS.get(chip.kind, "#cccccc")),
                             f"{chip.material_id}  {chip.title}", "material", chip.material_id)
            item.setToolTip(chip.tooltip)
            if chip.late_for:
                item.setPen(QPen(QColor("#b00020"), 2))
            if chip.generated:
                item.setPen(QPen(QColor("#6a3d9a"), 1.5, Qt.PenStyle.DashLine))
        for reference in self.layout_.references:
            item = self._box(_rect(reference.box), QColor(EVALUATOR_COLOUR), f"{reference.reference_id}  "
                             f"{reference.title}", "reference", reference.reference_id)
            item.setToolTip(reference.tooltip)
        for arrow in self.layout_.arrows:
            self._arrow(QPointF(*arrow.start), QPointF(*arrow.end), f"{arrow.source} corrects {arrow.target}")
        legend_bottom = self._draw_legend()
        scene.setSceneRect(QRectF(0, 0, self.layout_.width, legend_bottom))
        if self._selected in self.items_by_id:
            self.items_by_id[self._selected].setSelected(True)
        self.horizontalScrollBar().setValue(horizontal)
        self.verticalScrollBar().setValue(vertical)

    def _box(self, rect: QRectF, colour: QColor, text: str, kind: str, object_id: str) -> QGraphicsRectItem:
        item = QGraphicsRectItem(rect)
        item.setBrush(QBrush(colour))
        item.setPen(QPen(colour.darker(160), 1))
        item.setData(KIND_ROLE, kind)
        item.setData(ID_ROLE, object_id)
        item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        item.setAcceptHoverEvents(True)
        item.setZValue(2)
        label = QGraphicsSimpleTextItem(self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight,
                                                                      int(rect.width()) - 10), item)
        label.setPos(rect.x() + 5, rect.y() + (rect.height() - label.boundingRect().height()) / 2)
        self.scene().addItem(item)
        self.items_by_id[(kind, object_id)] = item
        return item

    def _label(self, text: str, x: float, y: float, bold: bool = False, colour: str = "#303030") -> None:
        label = self.scene().addSimpleText(text)
        if bold:
            font = QFont(label.font())
            font.setBold(True)
            label.setFont(font)
        label.setBrush(QBrush(QColor(colour)))
        label.setPos(x, y)

    def _draw_lanes_and_bands(self) -> None:
        layout = self.layout_
        scene = self.scene()
        for index, band in enumerate(layout.bands):
            rect = scene.addRect(_rect(band.box), QPen(Qt.PenStyle.NoPen),
                                 QBrush(QColor("#eef2f7" if index % 2 == 0 else "#f7f7f2")))
            rect.setZValue(-3)
            rect.setToolTip(f"Stage {band.stage_id}: {band.title}")
            self._label(f"{band.stage_id}  {band.title}", band.box.x + 6, band.box.y + 4, bold=True)
        lanes = ((layout.material_lane, "Materials, at their release point", "#00000000", "#303030"),
                 (layout.evaluator_lane, EVALUATOR_LANE_LABEL, "#fbe9e9", "#9b1c1c"))
        for lane, text, fill, ink in lanes:
            rect = scene.addRect(_rect(lane), QPen(QColor("#c8c8c8")), QBrush(QColor(fill)))
            rect.setZValue(-2)
            self._label(text, lane.x + 6, lane.y + 3, bold=True, colour=ink)
        if layout.release_points:
            self._label("Start", layout.release_points[0].x + 6, layout.material_lane.y - 20)

    def _arrow(self, start: QPointF, end: QPointF, tip: str) -> None:
        path = QPainterPath(start)
        bend = max(40.0, abs(start.x() - end.x()) / 3)
        path.cubicTo(QPointF(start.x() - bend, start.y()), QPointF(end.x() + bend, end.y()), end)
        head = QPainterPath(end)
        head.lineTo(end + QPointF(9, -5))
        head.lineTo(end + QPointF(9, 5))
        head.closeSubpath()
        pen = QPen(QColor("#b00020"), 1.6)
        item = QGraphicsPathItem(path)
        item.setPen(pen)
        item.setZValue(3)
        item.setToolTip(tip)
        item.setData(KIND_ROLE, "correction")
        self.scene().addItem(item)
        head_item = self.scene().addPath(head, pen, QBrush(QColor("#b00020")))
        head_item.setZValue(3)

    def _draw_legend(self) -> float:
        y = self.layout_.height
        x = self.layout_.evaluator_lane.x
        self._label("Kinds:", x, y + 3, bold=True)
        x += 60
        entries = [(KIND_COLOURS[kind], label) for kind, label in KIND_LABELS.items()]
        entries.append((EVALUATOR_COLOUR, "Evaluator-only reference"))
        for colour, label in entries:
            swatch = self.scene().addRect(QRectF(x, y + 4, 16, 14), QPen(QColor(colour).darker(160)),
                                          QBrush(QColor(colour)))
            swatch.setData(KIND_ROLE, "legend")
            self._label(label, x + 22, y + 3)
            x += 40 + self.fontMetrics().horizontalAdvance(label)
        return y + 30

    # -- queries -------------------------------------------------------------------------------
    def items_of(self, kind: str) -> list[QGraphicsItem]:
        """The scene's items for subtasks, materials or references (KIND_ROLE)."""
        return [item for item in self.scene().items() if item.data(KIND_ROLE) == kind]

    def item(self, kind: str, object_id: str) -> QGraphicsRectItem | None:
        return self.items_by_id.get((kind, object_id))

    def _object_at(self, position: QPointF) -> QGraphicsItem | None:
        item = self.itemAt(position.toPoint())
        while item is not None and item.data(KIND_ROLE) not in ("material", "reference", "subtask"):
            item = item.parentItem()
        return item

    # -- dragging a chip to another release point ----------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt naming)
        item = self._object_at(event.position())
        if event.button() == Qt.MouseButton.LeftButton and isinstance(item, QGraphicsRectItem):
            self.select(item.data(KIND_ROLE), item.data(ID_ROLE))
            if item.data(KIND_ROLE) == "material":
                self._drag = (item, self.mapToScene(event.position().toPoint()), item.pos())
                item.setZValue(5)
                self._target = self.scene().addRect(QRectF(), QPen(QColor("#1f6feb"), 1.5),
                                                    QBrush(QColor(31, 111, 235, 40)))
                self._target.setZValue(1)
                self._target.hide()
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt naming)
        if self._drag is not None:
            item, pressed, start = self._drag
            here = self.mapToScene(event.position().toPoint())
            item.setPos(start + here - pressed)
            self._show_target(self.layout_.release_at(here.x()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt naming)
        if self._drag is None:
            super().mouseReleaseEvent(event)
            return
        item, pressed, start = self._drag
        self._drag = None
        self._hide_target()
        event.accept()
        dropped = self.mapToScene(event.position().toPoint())
        if (dropped - pressed).manhattanLength() < 4:
            item.setPos(start)
            return  # a click, not a drag
        material_id = str(item.data(ID_ROLE))
        item.setPos(start)  # the edit redraws the chip at its new point; refused or unchanged, it goes back
        self.move_material(material_id, self.layout_.release_at(dropped.x()))

    def _show_target(self, before: str | None) -> None:
        """Shade the column of the release point a drop here would choose."""
        if self._target is None:
            return
        points = self.layout_.release_points
        index = next(i for i, point in enumerate(points) if point.before == before)
        right = points[index + 1].x if index + 1 < len(points) else points[index].x + SLOT
        lane = self.layout_.material_lane
        self._target.setRect(QRectF(points[index].x, lane.y, right - points[index].x, lane.height))
        self._target.setToolTip("Release at start" if before is None else f"Release before {before}")
        self._target.show()

    def _hide_target(self) -> None:
        if self._target is not None:
            self.scene().removeItem(self._target)
            self._target = None

    def move_material(self, material_id: str, before_subtask: str | None) -> bool:
        """Release `material_id` at start (None) or before a subtask, as one undoable edit. A refused
        move (a generated material to start) is reported by `edit_refused` and changes nothing."""
        from studio.editing.materials import set_release

        chip = self.layout_.chip(material_id)
        if chip is None or chip.release == before_subtask:
            return False
        try:
            command = set_release(self.context.session.documents, material_id, before_subtask)
            self.context.push(command)
        except StudioError as error:
            self.refused.emit(error)
            return False
        return True

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt naming)
        item = self._object_at(event.position())
        if item is not None:
            self.open_requested.emit(str(item.data(KIND_ROLE)), str(item.data(ID_ROLE)))
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    # -- keyboard ------------------------------------------------------------------------------
    def _chips_in_order(self) -> list[tuple[str, str, Box]]:
        chips = [("material", c.material_id, c.box) for c in self.layout_.chips]
        chips += [("reference", r.reference_id, r.box) for r in self.layout_.references]
        return sorted(chips, key=lambda entry: (entry[2].x, entry[2].y))

    def selected(self) -> tuple[str, str] | None:
        return self._selected

    def select(self, kind: str, object_id: str) -> None:
        self.scene().clearSelection()
        item = self.items_by_id.get((kind, object_id))
        self._selected = (kind, object_id) if item is not None else None
        if item is not None:
            item.setSelected(True)
            self.ensureVisible(item, 40, 40)

    def _step(self, forward: bool, same_column: bool) -> None:
        chips = self._chips_in_order()
        if not chips:
            return
        keys = [(kind, object_id) for kind, object_id, _box in chips]
        if self._selected not in keys:
            kind, object_id, _ = chips[0 if forward else -1]
            self.select(kind, object_id)
            return
        here = keys.index(self._selected)
        target = here + (1 if forward else -1)
        # in reading order (left to right, top to bottom), Up/Down stay within one release point
        if 0 <= target < len(chips) and (not same_column or chips[target][2].x == chips[here][2].x):
            self.select(chips[target][0], chips[target][1])

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt naming)
        key = event.key()
        if key in (Qt.Key.Key_Right, Qt.Key.Key_Left, Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            self._step(key in (Qt.Key.Key_Right, Qt.Key.Key_Tab), same_column=False)
        elif key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
            self._step(key == Qt.Key.Key_Down, same_column=True)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._selected is not None:
            self.open_requested.emit(*self._selected)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def focusNextPrevChild(self, _next: bool) -> bool:  # noqa: N802 (Qt naming)
        return False  # Tab moves between chips (keyPressEvent), not out of the view

    # -- zoom ----------------------------------------------------------------------------------
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, factor: float) -> None:
        factor = min(ZOOM_MAX, max(ZOOM_MIN, factor))
        self.scale(factor / self.zoom(), factor / self.zoom())

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom() * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom() / ZOOM_STEP)

    def fit_to_window(self) -> None:
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt naming)
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_in() if event.angleDelta().y() > 0 else self.zoom_out()
            event.accept()
            return
        super().wheelEvent(event)

    # -- export --------------------------------------------------------------------------------
    def _paint_scene(self, painter: QPainter, target: QRectF) -> None:
        selected = self.scene().selectedItems()
        self.scene().clearSelection()  # the picture shows the schedule, not the user's selection
        self.scene().render(painter, target, self.scene().sceneRect())
        for item in selected:
            item.setSelected(True)

    def ask_export(self, kind: str) -> None:
        """Ask where to write the picture (`timelineExportDialog`, not blocking), then write it."""
        from studio.gui.widgets.dialogs import file_dialog

        suggested = self.context.session.root.parent / f"{self.context.session.root.name}-timeline.{kind}"
        dialog = file_dialog(self, "timelineExportDialog", f"Export the release timeline as {kind.upper()}",
                             str(suggested), QFileDialog.FileMode.AnyFile)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(f"{kind.upper()} image (*.{kind})")
        dialog.setDefaultSuffix(kind)
        dialog.selectFile(str(suggested))
        dialog.fileSelected.connect(lambda chosen: self._export_to(kind, Path(chosen)))
        dialog.open()

    def _export_to(self, kind: str, path: Path) -> None:
        try:
            self.export_svg(path) if kind == "svg" else self.export_png(path)
        except StudioError as error:
            self.refused.emit(error)

    def export_png(self, path: Path | str, scale: float = 2.0) -> Path:
        """The whole timeline (not only what the window shows) as a PNG image."""
        source = self.scene().sceneRect()
        image = QImage(QSize(int(source.width() * scale), int(source.height() * scale)),
                       QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self._paint_scene(painter, QRectF(0, 0, image.width(), image.height()))
        painter.end()
        # PySide's stubs type the format as bytes, its runtime accepts only str
        if not image.save(str(path), "PNG"):  # type: ignore[call-overload]
            raise TimelineExportError(f"could not write {path}: check the folder exists and is writable")
        return Path(path)

    def export_svg(self, path: Path | str) -> Path:
        """The whole timeline as an SVG drawing (vector: it stays sharp at any size)."""
        from PySide6.QtSvg import QSvgGenerator

        source = self.scene().sceneRect()
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(QSize(int(source.width()), int(source.height())))
        generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
        generator.setTitle("Release timeline")
        painter = QPainter()
        if not painter.begin(generator):
            raise TimelineExportError(f"could not write {path}: check the folder exists and is writable")
        self._paint_scene(painter, QRectF(0, 0, source.width(), source.height()))
        painter.end()
        return Path(path)


class TimelineExportError(StudioError):
    """The timeline picture could not be written (a missing or read-only folder)."""
