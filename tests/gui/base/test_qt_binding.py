"""The Qt binding keeps Python's reference counts: PySide6 6.12.0 under Python 3.11 loses one
reference to None on every call of a Qt method that returns nothing and on every empty value
it hands back, and the interpreter aborts ("none_dealloc") once None's count runs out. The app
makes such calls by the hundred thousand (models, views), so the version in use must not."""

from __future__ import annotations

import sys

from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QLabel


def _lost(call, times: int = 2000) -> int:
    call()  # first call may create caches
    before = sys.getrefcount(None)
    for _ in range(times):
        call()
    return before - sys.getrefcount(None)


def test_void_calls_and_empty_values_keep_none_alive(qapp):
    label = QLabel()
    model = QStandardItemModel(1, 1)
    index = model.index(0, 0)
    losses = {
        "setText": _lost(lambda: label.setText("x")),
        "resize": _lost(lambda: label.resize(10, 10)),
        "empty data()": _lost(lambda: index.data()),
    }
    # Immortal None (Python >= 3.12) always reads the same count; on 3.11 a small drift from
    # unrelated objects is possible, a loss per call is not.
    assert all(abs(lost) < 50 for lost in losses.values()), losses
