"""Table model over the findings of validation and review: severity, rule, message, place.

A refresh compares the new sorted list with the shown one and removes / inserts only the rows
that differ, so the selection and scroll position survive the review that follows each edit."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

from studio.validation.findings import Finding, Severity

COLUMNS = ("Severity", "Rule", "Message", "Location")
FINDING_ROLE = Qt.ItemDataRole.UserRole + 1
"""The row's Finding."""

_ICONS = {Severity.ERROR: QStyle.StandardPixmap.SP_MessageBoxCritical,
          Severity.WARNING: QStyle.StandardPixmap.SP_MessageBoxWarning,
          Severity.INFO: QStyle.StandardPixmap.SP_MessageBoxInformation}


def severity_icon(severity: Severity) -> QIcon | None:
    """The style's icon of a severity (None without an application style)."""
    style = QApplication.style()
    return style.standardIcon(_ICONS[severity]) if style is not None else None


class FindingsModel(QAbstractTableModel):
    counts_changed = Signal(object)
    """{Severity: count} after the findings changed."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._findings: list[Finding] = []
        self._icons: dict[Severity, QIcon] = {}

    @property
    def findings(self) -> list[Finding]:
        return list(self._findings)

    def finding(self, row: int) -> Finding:
        return self._findings[row]

    def counts(self) -> dict[Severity, int]:
        counts = dict.fromkeys(Severity, 0)
        for finding in self._findings:
            counts[finding.severity] += 1
        return counts

    def set_findings(self, findings: list[Finding]) -> None:
        """Show `findings`, changing only the rows that differ from the ones shown."""
        from difflib import SequenceMatcher  # with the first review, after the window is drawn

        new = list(findings)
        matcher = SequenceMatcher(None, self._findings, new, autojunk=False)
        # From the end, so the positions of the operations still to come stay right.
        for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):
            if tag == "equal":
                continue
            if i2 > i1:
                self.beginRemoveRows(QModelIndex(), i1, i2 - 1)
                del self._findings[i1:i2]
                self.endRemoveRows()
            if j2 > j1:
                self.beginInsertRows(QModelIndex(), i1, i1 + (j2 - j1) - 1)
                self._findings[i1:i1] = new[j1:j2]
                self.endInsertRows()
        self.counts_changed.emit(self.counts())

    def clear(self) -> None:
        self.beginResetModel()
        self._findings = []
        self.endResetModel()
        self.counts_changed.emit(self.counts())

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._findings)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        finding = self._findings[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (finding.severity.value, finding.code, finding.message, finding.place)[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{finding.render()}\nrule: {finding.code}" + (f"\nobject: {finding.object_id}"
                                                                    if finding.object_id else "")
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self._icon(finding.severity)
        if role == FINDING_ROLE:
            return finding
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section] if 0 <= section < len(COLUMNS) else None
        return section + 1

    def _icon(self, severity: Severity) -> QIcon | None:
        if severity not in self._icons:
            icon = severity_icon(severity)
            if icon is None:
                return None
            self._icons[severity] = icon
        return self._icons[severity]
