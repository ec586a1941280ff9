"""The reload bar on its own: it names the files changed on disk, says when unsaved edits to them
are at stake, and its two buttons ask for Reload and Keep mine."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton, QWidget

from studio.gui.base.reload_bar import ReloadBar


def test_the_bar_names_the_changed_files_and_the_unsaved_edits_at_stake(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    bar = ReloadBar(parent)
    parent.show()
    assert not bar.isVisible()
    bar.show_changes({"stages.yaml", "brief.md"}, {"project.yaml"})
    assert bar.isVisible() and "<b>brief.md, stages.yaml</b> changed on disk" in bar.label.text()
    assert "You have unsaved edits" not in bar.label.text() and "other unsaved edits are saved first" in bar.label.text()
    bar.show_changes({"stages.yaml"}, {"stages.yaml", "project.yaml"})
    assert "You have unsaved edits to stages.yaml" in bar.label.text()
    bar.show_changes(set(), {"stages.yaml"})
    assert not bar.isVisible()


def test_its_buttons_ask_for_reload_and_keep_mine(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    bar = ReloadBar(parent)
    parent.show()
    bar.show_changes({"stages.yaml"}, set())
    with qtbot.waitSignal(bar.reload_requested, timeout=1000):
        QTest.mouseClick(bar.findChild(QPushButton, "reloadButton"), Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(bar.keep_mine_requested, timeout=1000):
        QTest.mouseClick(bar.findChild(QPushButton, "keepMineButton"), Qt.MouseButton.LeftButton)
