"""The criteria the expert sees: the rubric table narrowed by free text (id, text, reviewer), rubric,
target, dimension and review status.

A table over the accepted rows of the RubricModel rather than a QSortFilterProxyModel: that proxy
asks Python whether each of 10,000 rows passes on every keystroke, and reads every painted cell
through two more Python calls (the source's row and column counts), which kept typing in the filter
of a 5,000-criterion project above 50 ms a key (bench/gui_bench.py). Here a keystroke answers every
row in one pass over a haystack kept per source row, and tells the view once, with a layout change
that keeps the selection as the sort-filter proxy does. The haystack follows the source's signals
(changed, inserted, removed and moved rows), so typing never rebuilds it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from itertools import compress
from typing import Any, cast

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from studio.gui.rubric.model import COLUMN, COLUMNS, RubricModel

Index = QModelIndex | QPersistentModelIndex
Fields = tuple[str, str, str, str]  # target, dimension, status, lower-case id + text + reviewer

FILTERS = ("text", "scope", "target", "dimension", "status")
ROWS_ONLY = QAbstractItemModel.LayoutChangeHint.VerticalSortHint
HINTED = "QList<QPersistentModelIndex>,QAbstractItemModel::LayoutChangeHint"  # the overload that carries a hint


class RubricFilterModel(QAbstractTableModel):
    """The rows of a RubricModel that pass the filter, in the source's order."""

    def __init__(self, source: RubricModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rubric = source
        self.text = ""
        self.scope: str | None = None
        self.target: str | None = None
        self.dimension: str | None = None
        self.status: str | None = None
        # The haystack, one entry per source row; None until a filter is first set (the whole
        # table passes until then, and an editor that is never filtered never reads it).
        self._fields: list[Fields] | None = None
        self._texts: list[str] = []  # the last of each fields: a free-text filter reads only these
        self._accepted: list[bool] = [True] * source.rowCount()  # per source row
        self._rows: list[int] = list(range(source.rowCount()))  # the accepted source rows, ascending
        self._removing = (0, 0)
        self._kept: list[tuple[QModelIndex, QPersistentModelIndex]] = []
        source.dataChanged.connect(self._source_changed)
        source.rowsInserted.connect(self._source_inserted)
        source.rowsAboutToBeRemoved.connect(self._source_about_to_remove)
        source.rowsRemoved.connect(self._source_removed)
        source.rowsAboutToBeMoved.connect(self._keep_persistent)
        source.rowsMoved.connect(self._source_moved)
        source.layoutAboutToBeChanged.connect(self._keep_persistent)
        source.layoutChanged.connect(self._source_relaid)
        source.modelAboutToBeReset.connect(self.beginResetModel)
        source.modelReset.connect(self._source_reset)
        source.headerDataChanged.connect(self.headerDataChanged)

    # -- the filter ---------------------------------------------------------------------------
    def set_filter(self, **values: str | None) -> None:
        """Change some of text, scope, target, dimension, status (None or '' for any)."""
        for name, value in values.items():
            if name not in FILTERS:
                raise TypeError(f"no filter {name}")
            setattr(self, name, (value or "").lower() if name == "text" else (value or None))
        accepted = self._answers()
        if accepted == self._accepted:
            return  # the same rows pass (most keys of a word): the view has nothing to redo
        self._keep_persistent()
        self._accepted = accepted
        self._rows = list(compress(range(len(accepted)), accepted))
        self._move_persistent()

    def _filtering(self) -> bool:
        return bool(self.text or self.scope or self.target or self.dimension or self.status)

    def _haystack(self) -> list[Fields]:
        if self._fields is None:
            self._fields = self.rubric.all_filter_fields()
            self._texts = [fields[3] for fields in self._fields]
        return self._fields

    def _answers(self) -> list[bool]:
        """Whether each source row passes, in one pass: a free-text filter alone (typing) is one
        `in` per row over one flat list of texts."""
        total = self.rubric.rowCount()
        if not self._filtering():
            return [True] * total
        fields = self._haystack()
        rows = range(total)
        if self.scope is not None:
            rows = self.rubric.scope_rows(self.scope) if self.scope in self.rubric.scopes() else range(0)
        first, last = rows.start, rows.stop
        text, target, dimension, status = self.text, self.target, self.dimension, self.status
        if target is None and dimension is None and status is None:
            inside = [text in h for h in self._texts[first:last]] if text else [True] * len(rows)
        else:
            inside = [(target is None or t == target) and (dimension is None or d == dimension)
                      and (status is None or s == status) and text in h for t, d, s, h in fields[first:last]]
        return [False] * first + inside + [False] * (total - last)

    def _passes(self, row: int) -> bool:
        """Whether one source row passes, from its fields as the haystack has them."""
        if not self._filtering():
            return True
        assert self._fields is not None
        if self.scope is not None and self.rubric.locate(row)[0] != self.scope:
            return False
        target, dimension, status, text = self._fields[row]
        return ((self.target is None or target == self.target)
                and (self.dimension is None or dimension == self.dimension)
                and (self.status is None or status == self.status)
                and self.text in text)

    # -- mapping ------------------------------------------------------------------------------
    def sourceModel(self) -> RubricModel:  # noqa: N802 (Qt naming)
        return self.rubric

    def mapToSource(self, index: Index) -> QModelIndex:  # noqa: N802
        if not index.isValid() or index.row() >= len(self._rows):
            return QModelIndex()
        return self.rubric.index(self._rows[index.row()], index.column())

    def mapFromSource(self, source: Index) -> QModelIndex:  # noqa: N802
        if not source.isValid():
            return QModelIndex()
        place = self._place(source.row())
        return self.index(place, source.column()) if place is not None else QModelIndex()

    def _place(self, row: int) -> int | None:
        place = bisect.bisect_left(self._rows, row)
        return place if place < len(self._rows) and self._rows[place] == row else None

    # -- reading ------------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        # Answered here, not by Qt's table model, which would ask Python for both counts first.
        if 0 <= row < len(self._rows) and 0 <= column < len(COLUMNS) and not parent.isValid():
            return self.createIndex(row, column)
        return QModelIndex()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        return self.rubric.data_at(self._rows[index.row()], index.column(), role)

    def multiData(self, index: Index, roleDataSpan: QModelRoleDataSpan | QModelRoleData) -> None:  # noqa: N802, N803
        # A delegate paints a cell from one call for all its roles: one call into Python, not seven.
        # (PySide's span is iterable; its stubs do not say so.)
        items: Iterable[QModelRoleData] = ((roleDataSpan,) if isinstance(roleDataSpan, QModelRoleData)
                                           else cast("Iterable[QModelRoleData]", roleDataSpan))
        if not index.isValid() or index.row() >= len(self._rows):
            for item in items:
                item.clearData()
            return
        row, column, data_at = self._rows[index.row()], index.column(), self.rubric.data_at
        for item in items:
            item.setData(data_at(row, column, item.role()))

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid() or index.row() >= len(self._rows):
            return Qt.ItemFlag.NoItemFlags
        return self.rubric.flags_at(self._rows[index.row()], index.column())

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        return self.rubric.setData(self.mapToSource(index), value, role)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Vertical:
            if not 0 <= section < len(self._rows):
                return None
            section = self._rows[section]
        return self.rubric.headerData(section, orientation, role)

    # -- following the source -----------------------------------------------------------------
    def _source_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: list[int] | None = None) -> None:
        first, last = top_left.row(), bottom_right.row()
        if self._fields is not None and not top_left.column() == bottom_right.column() == COLUMN["judge"]:
            for row in range(first, last + 1):
                self._fields[row] = fields = self.rubric.filter_fields(row)
                self._texts[row] = fields[3]
            flipped = [row for row in range(first, last + 1) if self._passes(row) != self._accepted[row]]
            if flipped:  # an edit made rows match or not: they come and go, the selection stays
                self._keep_persistent()
                for row in flipped:
                    self._accepted[row] = not self._accepted[row]
                self._rows = list(compress(range(len(self._accepted)), self._accepted))
                self._move_persistent()
        low, high = bisect.bisect_left(self._rows, first), bisect.bisect_right(self._rows, last)
        if high > low:
            self.dataChanged.emit(self.index(low, top_left.column()), self.index(high - 1, bottom_right.column()),
                                  roles or [])

    def _source_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        count = last - first + 1
        if self._fields is not None:
            fields = [self.rubric.filter_fields(row) for row in range(first, last + 1)]
            self._fields[first:first] = fields
            self._texts[first:first] = [field[3] for field in fields]
        answers = [self._passes(row) for row in range(first, last + 1)]
        self._accepted[first:first] = answers
        new = list(compress(range(first, last + 1), answers))
        place = bisect.bisect_left(self._rows, first)
        shifted = [row + count for row in self._rows[place:]]
        if not new:
            self._rows[place:] = shifted
            return
        self.beginInsertRows(QModelIndex(), place, place + len(new) - 1)
        self._rows[place:] = new + shifted
        self.endInsertRows()

    def _source_about_to_remove(self, parent: QModelIndex, first: int, last: int) -> None:
        self._removing = (bisect.bisect_left(self._rows, first), bisect.bisect_right(self._rows, last))
        low, high = self._removing
        if high > low:
            self.beginRemoveRows(QModelIndex(), low, high - 1)

    def _source_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        count = last - first + 1
        low, high = self._removing
        if self._fields is not None:
            del self._fields[first:last + 1]
            del self._texts[first:last + 1]
        del self._accepted[first:last + 1]
        self._rows[low:] = [row - count for row in self._rows[high:]]
        if high > low:
            self.endRemoveRows()

    def _source_moved(self, parent: QModelIndex, start: int, end: int, destination: QModelIndex, row: int) -> None:
        """Source rows start..end now sit before the source's old row `row`: their answers move
        with them."""
        at = row if row < start else row - (end - start + 1)
        lists: list[list[Any]] = [self._accepted] if self._fields is None else [self._accepted, self._fields, self._texts]
        for values in lists:
            moving = values[start:end + 1]
            del values[start:end + 1]
            values[at:at] = moving
        self._rows = list(compress(range(len(self._accepted)), self._accepted))
        self._move_persistent()

    def _source_relaid(self) -> None:
        self._fields = None
        self._accepted = self._answers()
        self._rows = list(compress(range(len(self._accepted)), self._accepted))
        self._move_persistent()

    def _source_reset(self) -> None:
        self._fields = None  # read afresh when a filter next needs it
        self._accepted = self._answers()
        self._rows = list(compress(range(len(self._accepted)), self._accepted))
        self.endResetModel()

    def _keep_persistent(self, *_: object) -> None:
        """Before rows move: the views' persistent indexes, each with the source cell it shows.
        Only rows come and go (the columns stay): the hint lets the horizontal header skip
        relaying and repainting its sections."""
        cast(Any, self.layoutAboutToBeChanged)[HINTED].emit([], ROWS_ONLY)  # PySide's stubs: not indexable
        self._kept = [(index, QPersistentModelIndex(self.mapToSource(index))) for index in self.persistentIndexList()]

    def _move_persistent(self) -> None:
        """After rows moved: each persistent index to where its source cell is now (none if
        filtered out)."""
        kept, self._kept = self._kept, []
        self.changePersistentIndexList([index for index, _ in kept], [self.mapFromSource(cell) for _, cell in kept])
        cast(Any, self.layoutChanged)[HINTED].emit([], ROWS_ONLY)
