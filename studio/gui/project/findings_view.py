"""The findings dock's widget: a severity filter bar over the findings table, sortable by any column
(severity in the domain's order, error > warning > info), with a click or Enter opening the finding."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QTableView, QToolButton, QVBoxLayout, QWidget

from studio.gui.project.findings_model import FINDING_ROLE, FindingsModel, severity_icon
from studio.validation.findings import Finding, Severity

SEVERITY_COLUMN = 0
_PLURALS = {Severity.ERROR: "Errors", Severity.WARNING: "Warnings", Severity.INFO: "Info"}
BUTTON_NAMES = {Severity.ERROR: "findingsShowErrors", Severity.WARNING: "findingsShowWarnings",
                Severity.INFO: "findingsShowInfo"}


class FindingsFilter(QSortFilterProxyModel):
    """The findings of the severities shown; the severity column sorts by rank, not by name."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._shown = set(Severity)
        self.setSortRole(Qt.ItemDataRole.DisplayRole)

    @property
    def shown(self) -> set[Severity]:
        return set(self._shown)

    def show_severity(self, severity: Severity, shown: bool) -> None:
        if (severity in self._shown) == shown:
            return
        self.beginFilterChange()
        if shown:
            self._shown.add(severity)
        else:
            self._shown.discard(severity)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        finding = self.sourceModel().index(source_row, 0, source_parent).data(FINDING_ROLE)
        return finding is None or finding.severity in self._shown

    def lessThan(self, left: QModelIndex | QPersistentModelIndex, right: QModelIndex | QPersistentModelIndex) -> bool:
        if left.column() == SEVERITY_COLUMN:
            return left.data(FINDING_ROLE).severity.rank < right.data(FINDING_ROLE).severity.rank
        if left.column() == 3:  # file:line, with the line as a number (line 9 before line 10)
            a, b = left.data(FINDING_ROLE), right.data(FINDING_ROLE)
            return (a.file, a.line, a.column) < (b.file, b.line, b.column)
        return super().lessThan(left, right)


class FindingsView(QWidget):
    """Severity toggles (each with its count) above the table; the table's objectName stays
    `findingsView`, so the window's layout state and the docs keep their names."""

    finding_activated = Signal(object)
    """A finding was clicked or Entered: the Finding."""

    def __init__(self, model: FindingsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findingsPanel")
        self.model = model
        self.proxy = FindingsFilter(self)
        self.proxy.setSourceModel(model)
        self.table = QTableView(self)
        self.table.setObjectName("findingsView")
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 86), (1, 250), (3, 240)):
            self.table.setColumnWidth(column, width)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(SEVERITY_COLUMN, Qt.SortOrder.AscendingOrder)  # errors first
        self.table.clicked.connect(self._activated)
        self.table.activated.connect(self._activated)

        self.buttons: dict[Severity, QToolButton] = {}
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addWidget(QLabel("Show:", self))
        for severity in Severity:
            button = QToolButton(self)
            button.setObjectName(BUTTON_NAMES[severity])
            button.setCheckable(True)
            button.setChecked(True)
            button.setAutoRaise(True)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            icon = severity_icon(severity)
            if icon is not None:
                button.setIcon(icon)
            button.toggled.connect(lambda shown, s=severity: self.proxy.show_severity(s, shown))
            self.buttons[severity] = button
            bar.addWidget(button)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.table)
        model.counts_changed.connect(self._show_counts)
        self._show_counts(model.counts())

    def finding_at(self, index: QModelIndex | QPersistentModelIndex) -> Finding | None:
        """The finding of a row of the table (the table's indexes are the filter's, not the model's)."""
        if not index.isValid():
            return None
        return self.model.finding(self.proxy.mapToSource(index).row())

    def index_of(self, finding: Finding, column: int = 0) -> QModelIndex:
        """The table's index of a shown finding (invalid when filtered out or gone)."""
        for row in range(self.model.rowCount()):
            if self.model.finding(row) == finding:
                return self.proxy.mapFromSource(self.model.index(row, column))
        return QModelIndex()

    def _activated(self, index: QModelIndex) -> None:
        finding = self.finding_at(index)
        if finding is not None:
            self.finding_activated.emit(finding)

    def _show_counts(self, counts: dict[Severity, int]) -> None:
        for severity, button in self.buttons.items():
            button.setText(f"{_PLURALS[severity]} {counts.get(severity, 0)}")
            button.setToolTip(f"Show or hide the {_PLURALS[severity].lower()} in the list")

