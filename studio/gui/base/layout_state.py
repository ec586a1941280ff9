"""The window's layout remembered between sessions: every splitter keeps the sizes the user gave it
(QSettings, key `splitters/<name>`), as the window keeps its geometry and its docks' places. Layout
is the one thing QSettings holds; preferences live in studio.preferences."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QSplitter

KEY_PREFIX = "splitters/"


def remember_splitter(splitter: QSplitter, name: str) -> QSplitter:
    """Give `splitter` the sizes it had when last moved (under `name`, unique per splitter of the app)
    and save them each time the user moves it. Call once its panes are added."""
    splitter.setObjectName(splitter.objectName() or f"{name.replace('/', '_')}Splitter")
    key = KEY_PREFIX + name
    state = QSettings().value(key)
    if isinstance(state, QByteArray | bytes) and state:
        splitter.restoreState(QByteArray(state))
    splitter.splitterMoved.connect(lambda *_: QSettings().setValue(key, splitter.saveState()))
    return splitter
