"""The background reads that fill the panels of an opened project (the Versions log, the runs, the
git state) start once the window has drawn the project, not in the same turn of the event loop:
their imports would compete with that paint for the interpreter (docs/gui.md, start-up)."""

from __future__ import annotations

from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QLabel

from studio.gui.base.after_paint import AfterPaint
from studio.gui.main_window import MainWindow
from tests.gui.shell_support import sample_copy


class PaintSeen(QObject):
    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.events.append("painted")
        return False


def test_the_panels_reads_start_after_the_opened_project_is_drawn(qtbot, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch):
    folder = sample_copy(tmp_path, monkeypatch)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    events: list[str] = []
    plain_run = window.runner.run

    def run(label, *args, **kwargs):
        events.append(label)
        return plain_run(label, *args, **kwargs)

    monkeypatch.setattr(window.runner, "run", run)
    busy_at_opened: list[bool] = []
    seen = PaintSeen(events)

    def opened(_folder: str) -> None:
        busy_at_opened.append(window.runner.busy)
        window.explorer.viewport().installEventFilter(seen)  # the last installed sees the paint first

    window.project_opened.connect(opened)
    with qtbot.waitSignal(window.project_opened, timeout=20000):
        window.open_project(folder)
    qtbot.waitUntil(lambda: window.status.git_label.text().startswith("git: "), timeout=20000)
    qtbot.waitUntil(lambda: window.runs_panel.project_dir == folder, timeout=20000)
    qtbot.waitUntil(lambda: window.versioning is not None and window.versioning.history_model.rowCount() > 0,
                    timeout=20000)
    assert busy_at_opened == [False]  # nothing reads in the background as the window draws the project
    assert events[0] == "Opening kestrel"
    reads = [event for event in events if event.startswith("Reading")]
    assert {"Reading the runs", "Reading git state"} <= set(reads)
    assert any(read.startswith("Reading the history") for read in reads)
    assert events.index("painted") < events.index(reads[0])


def test_a_call_waits_for_the_paint_of_a_shown_widget_and_not_for_a_hidden_one(qtbot):
    shown, hidden = QLabel("shown"), QLabel("hidden")
    qtbot.addWidget(shown)
    qtbot.addWidget(hidden)
    shown.show()
    qtbot.waitExposed(shown)
    qtbot.wait(50)  # the first paints are done
    calls: list[str] = []
    AfterPaint(hidden).call(hidden, lambda: calls.append("hidden"))
    after_shown = AfterPaint(shown)
    after_shown.call(shown, lambda: calls.append("shown"))
    qtbot.waitUntil(lambda: calls == ["hidden"], timeout=2000)
    qtbot.wait(100)
    assert calls == ["hidden"]  # nothing asked the shown label to paint again
    shown.update()
    qtbot.waitUntil(lambda: calls == ["hidden", "shown"], timeout=900)  # before the fallback's second


def test_a_call_whose_receiver_is_gone_is_dropped(qtbot):
    widget = QLabel("shown")
    qtbot.addWidget(widget)
    receiver = QObject()
    calls: list[str] = []
    AfterPaint(widget).call(receiver, lambda: calls.append("called"))
    shiboken6.delete(receiver)
    qtbot.wait(100)
    assert calls == []
