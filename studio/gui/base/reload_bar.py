"""The bar above the editor tabs when project files were changed on disk by another program: which
ones, whether unsaved edits to them are at stake, and the two ways on (Reload, Keep mine)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class ReloadBar(QFrame):
    """Hidden until `show_changes` names files changed on disk."""

    reload_requested = Signal()
    """Reload was pressed: read the project again from disk."""
    keep_mine_requested = Signal()
    """Keep mine was pressed: merge the window's version with the one on disk."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reloadBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#reloadBar { background: #fff4ce; border-bottom: 1px solid #e0c060; }")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        reload_button = QPushButton("&Reload", self)
        reload_button.setObjectName("reloadButton")
        reload_button.clicked.connect(self.reload_requested)
        keep_button = QPushButton("&Keep mine", self)
        keep_button.setObjectName("keepMineButton")
        keep_button.clicked.connect(self.keep_mine_requested)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        row.addWidget(self.label, 1)
        row.addWidget(reload_button)
        row.addWidget(keep_button)
        self.hide()

    def show_changes(self, changed: set[str], unsaved: set[str]) -> None:
        """Name the files changed on disk and say what Reload does to the unsaved edits among
        `unsaved`; hidden when nothing changed."""
        if not changed:
            self.hide()
            return
        names = ", ".join(sorted(changed))
        mine = sorted(changed & unsaved)
        text = f"<b>{names}</b> changed on disk (edited outside DeliverBench Studio). "
        if mine:
            text += (f"You have unsaved edits to {', '.join(mine)}: they will not be saved over the other "
                     "version. Reload to take the version on disk (your edits to it are dropped), or keep yours "
                     "in the window.")
        else:
            text += "Reload to see it; your other unsaved edits are saved first."
        self.label.setText(text)
        self.show()
