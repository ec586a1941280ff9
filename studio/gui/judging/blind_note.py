"""The line a view computed from the verdict store shows while blind review hides verdicts from the
reviewer: what is left out, and the one click that shows everything (Blind off)."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from studio.gui.base.rater_identity import RaterIdentity


class BlindNote(QWidget):
    """objectName `NAME`; shown only while the reviewer is a rater reviewing blind."""

    def __init__(self, name: str, identity: RaterIdentity, what: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.identity = identity
        self.what = what
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.show_all = QPushButton("Show every verdict (Blind off)", self)
        self.show_all.setObjectName(f"{name}Off")
        self.show_all.clicked.connect(lambda: self.identity.set_blind(False))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.text, 1)
        row.addWidget(self.show_all)
        identity.changed.connect(self._follow)  # a bound slot: disconnected when the note goes
        self._follow()

    def _follow(self) -> None:
        viewer = self.identity.viewer()
        who = viewer.name or "you (no rater name yet)"
        self.text.setText(f"<b>Blind review</b>: {self.what} counts only the decisions {who} rated; the judge's, "
                          "the other raters' and the adjudicated verdicts of the others stay hidden until you "
                          "have given yours.")
        self.setVisible(viewer.hides_any())
