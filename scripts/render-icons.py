"""Render the app icon resources/icons/dbstudio.svg to the PNG sizes the desktop and the window use.

    .venv/bin/python scripts/render-icons.py

Writes resources/icons/dbstudio-{48,128,256}.png. Run it after editing the SVG; a test checks
that the PNGs are the renders of the SVG as it is.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
SOURCE = ICONS / "dbstudio.svg"
SIZES = (48, 128, 256)


def png_path(size: int) -> Path:
    return ICONS / f"dbstudio-{size}.png"


def render(svg: Path, size: int) -> QImage:
    """The SVG drawn antialiased on a transparent square of `size` pixels."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image.convertToFormat(QImage.Format.Format_ARGB32)


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # QPainter on text needs one
    for size in SIZES:
        target = png_path(size)
        if not render(SOURCE, size).save(str(target), "PNG"):
            raise SystemExit(f"{target}: could not be written")
        print(target)
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
