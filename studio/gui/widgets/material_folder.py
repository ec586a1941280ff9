"""The folder import's confirmation (`materialFolderDialog`): every file of a folder as a proposed material
— kept or not, its id, title, kind and release point — in one table the expert corrects before Import
makes them all as one undo step (studio/editing/material_folder.py says how each is guessed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.gui.widgets.buttons import ok_cancel
from studio.model.schedule import MaterialKind

if TYPE_CHECKING:
    from studio.editing.material_folder import Proposal

HEADERS = ("Import", "Id", "File", "Title", "Kind", "Released", "Why")
KEEP, ID, FILE, TITLE, KIND, RELEASE, WHY = range(len(HEADERS))
AT_START = "at start"


class MaterialFolderDialog(QDialog):
    def __init__(self, proposals: Sequence[Proposal], timeline: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("materialFolderDialog")
        self.setWindowTitle("Import a folder of materials")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.proposals = list(proposals)
        note = QLabel(f"{len(self.proposals)} file(s). Each is proposed an id, a title, a kind and a release point "
                      "from its name: correct any of them, untick what not to import, then Import (one undo step).",
                      self)
        note.setWordWrap(True)
        self.table = QTableWidget(len(self.proposals), len(HEADERS), self)
        self.table.setObjectName("materialFolderTable")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, proposal in enumerate(self.proposals):
            keep = QTableWidgetItem()
            keep.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            keep.setCheckState(Qt.CheckState.Checked)
            self.table.setItem(row, KEEP, keep)
            self.table.setItem(row, ID, QTableWidgetItem(proposal.material_id))
            name = QTableWidgetItem(proposal.source.name)
            name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
            name.setToolTip(str(proposal.source))
            self.table.setItem(row, FILE, name)
            self.table.setItem(row, TITLE, QTableWidgetItem(proposal.title))
            kind = QComboBox(self.table)
            kind.addItems([k.value for k in MaterialKind if k is not MaterialKind.SCRIPTED_FEEDBACK])
            kind.setCurrentText(proposal.kind)
            self.table.setCellWidget(row, KIND, kind)
            release = QComboBox(self.table)
            release.addItems([AT_START, *(f"before {sid}" for sid in timeline)])
            release.setCurrentText(f"before {proposal.before}" if proposal.before else AT_START)
            self.table.setCellWidget(row, RELEASE, release)
            why = QTableWidgetItem(proposal.why)
            why.setFlags(why.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(row, WHY, why)
        self.table.resizeColumnsToContents()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(WHY, QHeaderView.ResizeMode.Stretch)  # the reasons wrap into what is left
        self.table.setWordWrap(True)
        self.buttons = ok_cancel(self, "&Import", "materialFolderImport")
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(1100, 420)
        self.table.setCurrentCell(0, TITLE)
        self.table.setFocus()

    def chosen(self) -> list[Proposal]:
        """The proposals kept, as the expert corrected them."""
        found = []
        for row, proposal in enumerate(self.proposals):
            keep = self.table.item(row, KEEP)
            if keep is None or keep.checkState() != Qt.CheckState.Checked:
                continue
            kind = self.table.cellWidget(row, KIND)
            release = self.table.cellWidget(row, RELEASE)
            released = release.currentText() if isinstance(release, QComboBox) else AT_START
            found.append(proposal.with_choice(
                material_id=(self.table.item(row, ID) or QTableWidgetItem(proposal.material_id)).text().strip(),
                title=(self.table.item(row, TITLE) or QTableWidgetItem(proposal.title)).text().strip() or proposal.title,
                kind=kind.currentText() if isinstance(kind, QComboBox) else proposal.kind,
                before=None if released == AT_START else released.removeprefix("before ")))
        return found
