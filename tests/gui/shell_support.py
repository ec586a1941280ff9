"""Opening a real copy of the sample (its own git repository) in a MainWindow, for the shell's tests."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path
from typing import TypeVar

import pytest
from PySide6.QtCore import QEvent, QMimeData, QObject, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QApplication, QWidget

from studio.gui.main_window import MainWindow
from studio.store.workspace import create_project, sample_project

W = TypeVar("W", bound=QObject)

IDENTITY = {"GIT_AUTHOR_NAME": "Gui Author", "GIT_AUTHOR_EMAIL": "gui@example.com",
            "GIT_COMMITTER_NAME": "Gui Author", "GIT_COMMITTER_EMAIL": "gui@example.com"}


def git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)


def sample_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    git_identity(monkeypatch)
    return create_project(tmp_path / "kestrel", "kestrel-refinancing", "Kestrel Freight Group, refinancing readiness",
                          source=sample_project(), own_repository=True).root


def open_window(qtbot, folder: Path) -> MainWindow:
    """A shown window with `folder` open and its first review shown."""
    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.findings_refreshed, timeout=20000):
        with qtbot.waitSignal(window.project_opened, timeout=20000):
            window.open_project(folder)
    with qtbot.waitActive(window):  # keyboard shortcuts go to the active window
        window.show()
        window.activateWindow()
    return window


def idle(qtbot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20000)


# -- driving widgets as a user does (keys, clicks, drops) ------------------------------------------
def shown_dialog(qtbot, name: str) -> QWidget:
    """The shown top-level window named `name` (the app's dialogs open without blocking), once it is
    the active window: keys typed by a user go to it."""
    def shown() -> list[QWidget]:
        return [w for w in QApplication.topLevelWidgets() if w.objectName() == name and w.isVisible()]
    qtbot.waitUntil(lambda: len(shown()) == 1, timeout=5000)
    dialog = shown()[0]
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=5000)
    return dialog


def press(widget: QWidget, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key to a widget, then the turn of the event loop that commits a cell editor and deletes it."""
    QTest.keyClick(widget, key, modifier)
    QApplication.processEvents()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def type_into(edit: QWidget, text: str) -> None:
    """Focus a field, select what it holds with Ctrl+A and type over it."""
    assert edit is not None
    edit.setFocus(Qt.FocusReason.TabFocusReason)
    QTest.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(edit, text)


def drag_and_drop(widget: QWidget, point: QPoint, files: list[Path]) -> QDropEvent:
    """What a drag from the desktop sends: enter, move, drop, with the files as URLs."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(f)) for f in files])
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with warnings.catch_warnings():  # PySide marks these constructors deprecated; Qt 6 has no other
        warnings.simplefilter("ignore", DeprecationWarning)
        enter = QDragEnterEvent(point, *args)
        move = QDragMoveEvent(point, *args)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(widget, move)
    drop = QDropEvent(QPointF(point), *args)
    QApplication.sendEvent(widget, drop)
    return drop


def visible_rows(view: QAbstractItemView, columns: dict[str, int]) -> list[dict[str, object]]:
    """What a view's model shows: each row's display text of the named columns."""
    model = view.model()
    return [{name: model.index(row, column).data() for name, column in columns.items()}
            for row in range(model.rowCount())]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def back_to(qtbot, window: QWidget) -> None:
    """A closed dialog hands activation back to its window, as a window manager does (the offscreen
    platform leaves no window active), so that the window's shortcuts work again."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)


def child(parent: QWidget, kind: type[W], name: str | None = None) -> W:
    """The child widget (or action) of `kind` named `name` (any name if None); it must be there."""
    found = parent.findChild(kind, name) if name is not None else parent.findChild(kind)
    assert found is not None, f"no {kind.__name__} {name or ''} in {parent.objectName()}"
    return found
