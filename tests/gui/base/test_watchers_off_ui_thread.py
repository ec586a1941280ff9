"""No disk polling on the UI thread: the file and verdict watchers look at the disk on a worker
(after a file-system event, on their timer, on the window's activation) and still report changes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from studio.gui.base.verdict_watch import VerdictWatcher
from studio.store import layout
from tests.gui.shell_support import open_window, sample_copy
from tests.judging.scored_runs import JUDGE, RUN_B, put, scored_project


def _recording(monkeypatch: pytest.MonkeyPatch, name: str) -> list[bool]:
    """Replace `layout.name` (where a look at the disk starts: the walk of the project's YAML files,
    the verdict store's folder) by one noting whether it ran on the UI thread."""
    original = getattr(layout, name)
    on_ui_thread: list[bool] = []

    def look(*args: object) -> object:
        on_ui_thread.append(threading.current_thread() is threading.main_thread())
        return original(*args)
    monkeypatch.setattr(layout, name, look)
    return on_ui_thread


def test_the_project_watcher_looks_on_a_worker_and_reports(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    looks = _recording(monkeypatch, "yaml_files")
    with qtbot.waitSignal(window.watcher.files_changed, timeout=10000) as changed:
        (root / "materials.yaml").write_text((root / "materials.yaml").read_text() + "\n# a note\n")
    assert changed.args == [["materials.yaml"]]
    count = len(looks)
    QApplication.sendEvent(window, QEvent(QEvent.Type.ActivationChange))  # the window comes to the front
    qtbot.waitUntil(lambda: len(looks) > count, timeout=10000)
    assert looks and not any(looks)


def test_the_verdict_watcher_looks_on_a_worker_and_reports(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = scored_project(tmp_path / "blank")
    store_watcher = VerdictWatcher(root)
    try:
        put(root, RUN_B, JUDGE, {("T02", "T02-C02"): "pass"})  # the watcher looks once the event loop runs
        looks = _recording(monkeypatch, "verdicts_dir")
        with qtbot.waitSignal(store_watcher.changed, timeout=15000):
            pass
        assert looks and not any(looks)
    finally:
        store_watcher.deleteLater()
