"""The app's icon, for the windows and the task bar (the desktop file names the same icon)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QIcon

from studio import bundled

ICON_NAME = "dbstudio"
# The sizes rendered from resources/icons/dbstudio.svg by scripts/render-icons.py. PNGs rather
# than the SVG itself: they need no image plugin, and Qt scales between them for other sizes.
ICON_SIZES = (48, 128, 256)


def app_icon() -> QIcon:
    """The DeliverBench Studio icon at every shipped size (an empty icon if the files are missing)."""
    icon = QIcon()
    folder = bundled.icons_dir()
    for size in ICON_SIZES:
        render = folder / f"{ICON_NAME}-{size}.png"
        if render.is_file():
            icon.addFile(str(render), QSize(size, size))
    return icon
