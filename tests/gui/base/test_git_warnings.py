"""The window's git label shows what `dbstudio status` warns about (here: a detached HEAD)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from studio.gui.main_window import MainWindow
from studio.store.workspace import create_project
from tests.helpers import SCAFFOLD


def test_git_label_warns_about_a_detached_head(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"GIT_AUTHOR_NAME": "Gui Author", "GIT_AUTHOR_EMAIL": "gui@example.com",
                        "GIT_COMMITTER_NAME": "Gui Author", "GIT_COMMITTER_EMAIL": "gui@example.com"}.items():
        monkeypatch.setenv(name, value)
    root = create_project(tmp_path / "acme", "acme-audit", "Acme IT audit", template=SCAFFOLD).root
    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.project_opened):  # opening runs on the TaskRunner
        window.open_project(root)
    assert window.git_label.text() == ""  # the repository's state follows the project, in the background
    qtbot.waitUntil(lambda: window.git_label.text() != "", timeout=20000)
    assert window.git_label.text() == "git: saved" and window.git_label.toolTip() == ""

    subprocess.run(["git", "checkout", "-q", "--detach"], cwd=root, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout
    with qtbot.waitSignal(window.project_opened):
        window.open_project(root)
    assert window.git_label.text() == ""  # not the state read before the checkout
    qtbot.waitUntil(lambda: window.git_label.text() != "", timeout=20000)
    assert window.git_label.text() == f"git: saved; warning: HEAD is detached at {head[:8]} (not on any branch)"
    assert "git switch -c" in window.git_label.toolTip()
