"""The dependency map's overview: the whole map small, with the part the map view shows outlined;
a click or a drag in it moves the map view there. A map of ten subtasks is wider than any screen at
a readable scale, so the overview is how one finds one's way."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QMouseEvent, QPainter, QPen, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsView, QWidget

OUTLINE = QColor("#1c5fb8")


class DependencyMiniMap(QGraphicsView):
    """Draws `map_view`'s scene to fit, and the map view's visible rectangle over it."""

    pan_requested = Signal(object)
    """The user clicked or dragged in the overview: the scene point (QPointF) to centre on."""

    def __init__(self, map_view: QGraphicsView, parent: QWidget | None = None) -> None:
        super().__init__(map_view.scene(), parent)
        self.setObjectName("dependencyMiniMap")
        self.map_view = map_view
        self.setInteractive(False)  # no selection or drag of the map's items from here
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setFrameShape(QFrame.Shape.Box)
        self.setBackgroundBrush(QBrush(QColor(255, 255, 255, 235)))
        self.setToolTip("The whole map: click or drag to move the view")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        map_view.scene().sceneRectChanged.connect(lambda _rect: self.fit())

    def fit(self) -> None:
        self.fitInView(self.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
        self.viewport().update()

    def visible_rect(self) -> QRectF:
        """The part of the scene the map view shows, in scene coordinates."""
        return self.map_view.mapToScene(self.map_view.viewport().rect()).boundingRect()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        shown = self.visible_rect().intersected(self.sceneRect())
        pen = QPen(OUTLINE, 0)  # cosmetic: one pixel wide at any scale
        painter.setPen(pen)
        fill = QColor(OUTLINE)
        fill.setAlpha(40)
        painter.setBrush(fill)
        painter.drawRect(shown)

    def _pan(self, position: QPoint) -> None:
        self.pan_requested.emit(self.mapToScene(position))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._pan(event.position().toPoint())
            event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._pan(event.position().toPoint())
            event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        event.accept()  # not the map's double-click (which opens an object)

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.accept()  # the overview always shows the whole map
