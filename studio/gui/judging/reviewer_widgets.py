"""The reviewer's controls shared by the judging views: the role picker, and the note a view
computed from the verdict store shows while blind review hides verdicts from the reviewer (what is
left out, and the one click that shows everything)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLayout, QPushButton, QSplitter, QVBoxLayout, QWidget

from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.rater_identity import RaterIdentity
from studio.judging.visibility import ROLES

ROLE_LABELS = {"rater": "Rater", "adjudicator": "Adjudicator"}


class RolePicker(QComboBox):
    """The reviewer's role, shared by every view through `identity`: a rater reviewing blind sees no
    one else's verdict before giving theirs; an adjudicator sees every verdict and settles."""

    def __init__(self, name: str, identity: RaterIdentity, parent: QWidget) -> None:
        super().__init__(parent)
        self.identity = identity
        self.setObjectName(name)
        self.setToolTip("Your role: a rater (blind review hides the others' verdicts until you give yours) or "
                        "the adjudicator (sees every verdict and settles the differences)")
        for role in ROLES:
            self.addItem(ROLE_LABELS[role], role)
        self._follow()
        self.activated.connect(self._chosen)
        identity.changed.connect(self._follow)  # a bound slot: disconnected when the picker goes

    def _chosen(self, index: int) -> None:
        self.identity.set_role(str(self.itemData(index)))

    def _follow(self) -> None:
        self.blockSignals(True)
        self.setCurrentIndex(max(0, self.findData(self.identity.role)))
        self.blockSignals(False)


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


def table_over_charts(view: QWidget, identity: RaterIdentity, rows: list[QLayout], table: QWidget, charts: QWidget,
                      name: str, what: str) -> tuple[QSplitter, BlindNote]:
    """The layout of a view computed from the verdict store: its rows of controls, the blind-review
    note, and the table over the charts in a splitter that is remembered. Object names: `NAME`Splitter,
    `NAME`BlindNote; `what` is what blind review limits ("the score")."""
    splitter = QSplitter(Qt.Orientation.Vertical, view)
    splitter.setObjectName(f"{name}Splitter")
    splitter.addWidget(table)
    splitter.addWidget(charts)
    splitter.setStretchFactor(0, 1)
    splitter.setStretchFactor(1, 3)
    remember_splitter(splitter, f"{name}/table-charts")
    note = BlindNote(f"{name}BlindNote", identity, what, view)
    layout = QVBoxLayout(view)
    for row in rows:
        layout.addLayout(row)
    layout.addWidget(note)
    layout.addWidget(splitter, 1)
    return splitter, note
