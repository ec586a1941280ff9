"""Opening a real copy of the sample (its own git repository) in a MainWindow, for the shell's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.gui.main_window import MainWindow
from studio.store.workspace import create_project, sample_project

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
