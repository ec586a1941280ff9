"""Splitters keep the sizes the user gave them, from one window to the next."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter

from studio.gui.base.layout_state import remember_splitter


def _splitter(qtbot) -> QSplitter:
    splitter = QSplitter(Qt.Orientation.Horizontal)
    qtbot.addWidget(splitter)
    splitter.addWidget(QLabel("left"))
    splitter.addWidget(QLabel("right"))
    splitter.resize(600, 200)
    return splitter


def test_a_moved_splitter_comes_back_with_its_sizes(qtbot) -> None:
    first = remember_splitter(_splitter(qtbot), "tests/pair")
    first.show()
    qtbot.waitExposed(first)
    first.moveSplitter(150, 1)  # as the user's drag does: splitterMoved is sent
    moved = first.sizes()
    assert moved[0] < moved[1]
    second = _splitter(qtbot)
    second.show()
    qtbot.waitExposed(second)
    assert second.sizes() != moved  # without memory: Qt's own split
    remember_splitter(second, "tests/pair")
    assert second.sizes() == moved
    other = _splitter(qtbot)
    other.show()
    qtbot.waitExposed(other)
    remember_splitter(other, "tests/other")  # another splitter's memory is its own
    assert other.sizes() != moved
