"""The rubric editor's totals table: per rubric, per target and per dimension, the sums of
studio.scoring.rubric_totals (criteria, W+, negative weights, gates).

Sums are kept per rubric and recomputed only for the rubrics an edit touched (and the final one,
whose reused rows follow the checkpoint criteria); the rows follow with dataChanged, and rubric
rows that appear or go are inserted or removed."""

from __future__ import annotations

import difflib
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from studio.editing.changes import Changes
from studio.gui.base.project_context import ProjectContext
from studio.model import Project
from studio.model.criterion_choices import rubric_scopes
from studio.model.vocabulary import FINAL_SCOPE, Dimension, Target
from studio.scoring.rubric_totals import RubricSums, Sums, rubric_sums
from studio.store import layout
from studio.store.layout import touched_scopes

Index = QModelIndex | QPersistentModelIndex
TOTAL_COLUMNS = ("Totals", "Criteria", "W+", "Negative", "Gates")


class RubricTotalsModel(QAbstractTableModel):
    """Rows: each rubric (T01..., final), then each target, then each dimension."""

    def __init__(self, context: ProjectContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self._per_rubric: dict[str, RubricSums] = {}
        self._labels: list[str] = []
        self._rows: list[Sums] = []
        self._compute(set(rubric_scopes(self.project)))
        self._labels, self._rows = self._table()
        context.changed.connect(self._on_changed)
        context.reloaded.connect(self.reset)

    @property
    def project(self) -> Project:
        return self.context.session.loaded.project

    def _compute(self, scopes: set[str]) -> None:
        present = set(rubric_scopes(self.project))
        for scope in list(self._per_rubric):
            if scope not in present:
                del self._per_rubric[scope]
        for scope in scopes & present:
            self._per_rubric[scope] = rubric_sums(self.project, scope)

    def _table(self) -> tuple[list[str], list[Sums]]:
        labels: list[str] = []
        rows: list[Sums] = []
        by_target: dict[str, Sums] = {}
        by_dimension: dict[str, Sums] = {}
        for scope in rubric_scopes(self.project):
            sums = self._per_rubric[scope]
            labels.append("Final rubric" if scope == FINAL_SCOPE else f"Rubric {scope}")
            rows.append(sums.whole)
            for name, part in sums.by_target.items():
                by_target.setdefault(name, Sums()).__iadd__(part)
            for name, part in sums.by_dimension.items():
                by_dimension.setdefault(name, Sums()).__iadd__(part)
        for target in Target:
            labels.append(f"Target {target.value}")
            rows.append(by_target.get(target.value, Sums()))
        for dimension in Dimension:
            labels.append(f"Dimension {dimension.value}")
            rows.append(by_dimension.get(dimension.value, Sums()))
        return labels, rows

    def reset(self) -> None:
        self.beginResetModel()
        self._per_rubric.clear()
        self._compute(set(rubric_scopes(self.project)))
        self._labels, self._rows = self._table()
        self.endResetModel()

    def _on_changed(self, changes: Changes) -> None:
        touched = touched_scopes(changes.files)
        if not touched and layout.STAGES_FILE not in changes.files:
            return
        if touched - {FINAL_SCOPE}:
            touched.add(FINAL_SCOPE)  # reused final criteria carry checkpoint weights
        self._compute(touched | (set(rubric_scopes(self.project)) - set(self._per_rubric)))
        labels, rows = self._table()
        matcher = difflib.SequenceMatcher(None, self._labels, labels, autojunk=False)
        for tag, o1, o2, n1, n2 in matcher.get_opcodes():  # rubric rows that came or went
            if tag in ("delete", "replace") and o2 > o1:
                self.beginRemoveRows(QModelIndex(), n1, n1 + o2 - o1 - 1)
                del self._labels[n1:n1 + o2 - o1]
                del self._rows[n1:n1 + o2 - o1]
                self.endRemoveRows()
            if tag in ("insert", "replace") and n2 > n1:
                self.beginInsertRows(QModelIndex(), n1, n2 - 1)
                self._labels[n1:n1] = labels[n1:n2]
                self._rows[n1:n1] = rows[n1:n2]
                self.endInsertRows()
        self._rows = rows
        if rows:
            self.dataChanged.emit(self.index(0, 1), self.index(len(rows) - 1, len(TOTAL_COLUMNS) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self._labels)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(TOTAL_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < len(TOTAL_COLUMNS):
            return TOTAL_COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._labels):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                return self._labels[index.row()]
            sums = self._rows[index.row()]
            return str((sums.criteria, sums.positive, sums.negative, sums.gates)[index.column() - 1])
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 2:
            return "W+: the sum of positive weights, the denominator of the score"
        return None

    def row_named(self, label: str) -> Sums | None:
        """The sums of the row with this label ('Rubric T01', 'Final rubric', 'Target package')."""
        return self._rows[self._labels.index(label)] if label in self._labels else None
