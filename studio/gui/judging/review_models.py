"""The review session (one project's review queue, the expert reviewing, blind mode) and the table
models of the review and adjudication queues over it.

Models are incremental: a recorded verdict changes its row (dataChanged); a reset happens only
when the queue is read again from the store."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractProxyModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor

from studio.gui.base.rater_identity import RaterIdentity
from studio.judging.errors import JudgingError
from studio.judging.queue import Decision, QueueFilter, ReviewQueue
from studio.judging.verdicts import ADJUDICATED, Verdict
from studio.judging.visibility import Viewer
from studio.views.formats import verdict_shown as shown
from studio.views.formats import verdict_text

Index = QModelIndex | QPersistentModelIndex
HIDDEN = "hidden"
COLOURS = {"pass": QColor("#1b7f3b"), "fail": QColor("#b3261e"), "na": QColor("#6b6b6b"), "missing": QColor("#8a6d00")}


# the roles QueueModel answers; a view asks each painted cell for a dozen
SHOWN_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.ForegroundRole,
                         Qt.ItemDataRole.TextAlignmentRole})


class ReviewSession(QObject):
    """The queue both views show and who reviews (`identity`: name, role, blind mode), which decides
    what they see (studio.judging.visibility)."""

    reloaded = Signal()
    recorded = Signal(int)  # the queue position of a decision whose verdicts changed
    rater_changed = Signal(str)
    blind_changed = Signal(bool)  # blind mode or the role changed: what is hidden changed

    def __init__(self, queue: ReviewQueue, parent: QObject | None = None,
                 on_written: Callable[[], None] | None = None, identity: RaterIdentity | None = None) -> None:
        super().__init__(parent)
        self.queue = queue
        self.on_written = on_written
        self.identity = identity if identity is not None else RaterIdentity(self)
        self._seen = self.identity.viewer()
        self.identity.changed.connect(self._identity_changed)
        self._remembered = ""  # the rater last remembered among the known names

    @property
    def rater(self) -> str:
        return self.identity.name

    @property
    def blind(self) -> bool:
        return self.identity.blind

    def viewer(self) -> Viewer:
        return self.identity.viewer()

    def _identity_changed(self) -> None:
        before, self._seen = self._seen, self.identity.viewer()
        if before.name != self._seen.name:
            self.rater_changed.emit(self._seen.name)
        if (before.blind, before.role) != (self._seen.blind, self._seen.role):
            self.blind_changed.emit(self._seen.blind)

    def known_raters(self) -> list[str]:
        """The experts of the store and the names typed here before."""
        return sorted(set(self.identity.known_raters()) | set(self.queue.experts()), key=str.lower)

    def set_rater(self, name: str) -> None:
        self.identity.set_name(name)

    def remember_rater(self) -> None:
        if not self.rater or self.rater == self._remembered:
            return  # once per name
        if self.rater not in self.queue.experts():
            self.identity.remember()
        self._remembered = self.rater

    def set_blind(self, on: bool) -> None:
        self.identity.set_blind(on)

    def sees_all(self, decision: Decision) -> bool:
        """The reviewer may see every verdict of the decision (blind review's rule)."""
        return self._seen.sees_all(decision.ratings)

    def judge_hidden(self, decision: Decision) -> bool:
        """Blind mode: the judge's, the other raters' and the adjudicated verdicts stay hidden until
        the reviewing rater has given theirs (an adjudicator sees them all)."""
        return not self.sees_all(decision)

    def reload(self) -> None:
        self.queue.reload()
        self.reloaded.emit()

    def give(self, decision: Decision, value: str, note: str | None = None) -> Verdict:
        """The expert's verdict (JudgingError: no name yet, or the store cannot be written)."""
        verdict = self.queue.give(decision, self.rater, value, note=note)
        self.remember_rater()
        self._written(decision)
        return verdict

    def adjudicate(self, decision: Decision, value: str, note: str | None = None) -> Verdict:
        """The settled verdict, recorded with the adjudicator's name (JudgingError: not the
        adjudicator's role, no name yet, or the store cannot be written)."""
        if not self._seen.is_adjudicator:
            raise JudgingError("settling a difference is the adjudicator's: choose the role Adjudicator "
                               "(the Role box) first")
        verdict = self.queue.adjudicate(decision, value, by=self.rater, note=note)
        self._written(decision)
        return verdict

    def _written(self, decision: Decision) -> None:
        self.recorded.emit(self.queue.index_of(decision))
        if self.on_written is not None:
            self.on_written()


class QueueModel(QAbstractTableModel):
    """Every decision of the queue; the judge's column is blank while blind mode hides it."""

    COLUMNS = ("Run", "Scope", "Criterion", "Target", "Dimension", "Weight", "Judge", "You", "Experts", "Counted")

    def __init__(self, session: ReviewSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        session.reloaded.connect(self._reset)
        session.recorded.connect(self._row_changed)
        session.rater_changed.connect(self._all_changed)
        session.blind_changed.connect(self._all_changed)

    @property
    def decisions(self) -> list[Decision]:
        return self.session.queue.decisions

    def decision(self, row: int) -> Decision:
        return self.decisions[row]

    def _reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def _row_changed(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    def _all_changed(self, *_args: Any) -> None:
        if self.decisions:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.decisions) - 1, len(self.COLUMNS) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.decisions)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in SHOWN_ROLES or not index.isValid() or index.row() >= len(self.decisions):
            return None  # asked for a dozen roles per painted cell: the others cost nothing
        return self.cell(index.row(), index.column(), role)

    def cell(self, row: int, column_number: int, role: int) -> Any:
        """What a cell shows in `role` (the filter model asks here directly, without an index)."""
        decision = self.decisions[row]
        column = self.COLUMNS[column_number]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(decision, column)
        if role == Qt.ItemDataRole.ToolTipRole and column == "Criterion":
            return decision.criterion.text
        if role == Qt.ItemDataRole.ForegroundRole and column in ("Judge", "You", "Counted"):
            colour = COLOURS.get(self._value(decision, column))
            return QBrush(colour) if colour is not None else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column == "Weight":
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _value(self, decision: Decision, column: str) -> str:
        if column == "Judge":
            verdict = decision.judge_verdict()
            return "" if verdict is None or self.session.judge_hidden(decision) else verdict.verdict
        if column == "You":
            mine = decision.ratings.get(self.session.rater) if self.session.rater else None
            return mine.verdict if mine is not None else ""
        if column == "Counted":
            return decision.counted()
        return ""

    def _text(self, decision: Decision, column: str) -> str:
        criterion = decision.criterion
        if column == "Run":
            return decision.submission
        if column == "Scope":
            return decision.scope
        if column == "Criterion":
            return criterion.id
        if column == "Target":
            return criterion.target
        if column == "Dimension":
            return criterion.dimension
        if column == "Weight":
            return "gate" if criterion.gate else f"{criterion.weight:+d}"
        if column == "Judge":
            verdict = decision.judge_verdict()
            if verdict is None:
                return ""
            return HIDDEN if self.session.judge_hidden(decision) else shown(verdict)
        if column == "You":
            return shown(decision.ratings.get(self.session.rater)) if self.session.rater else ""
        if column == "Experts":
            others = [f"{name}: {shown(v)}" for name, v in decision.experts().items() if name != self.session.rater]
            if self.session.judge_hidden(decision):
                return f"{len(others)} other(s)" if others else ""  # their verdicts would tell the judge's apart
            return ", ".join(others)
        value = decision.counted()
        if self.session.judge_hidden(decision):
            return ""
        return verdict_text(value)


class QueueFilterModel(QAbstractProxyModel):
    """The queue narrowed by a `QueueFilter`; rows leave and join as verdicts are recorded.

    The rows are a list of queue positions the core computes from its indexes (ReviewQueue.positions)
    rather than one Python filter call per row from Qt: a filter over 100,000 decisions is one lookup,
    a recorded verdict re-tests its own row only."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.which = QueueFilter()
        self._rows: list[int] = []  # proxy row -> queue position, ascending: a position's row is a bisection

    # -- the rows -----------------------------------------------------------------------------
    def set_filter(self, which: QueueFilter) -> None:
        self.which = which
        self._refilter()

    def _queue_model(self) -> QueueModel | None:
        model = self.sourceModel()
        return model if isinstance(model, QueueModel) else None

    def _positions(self) -> list[int]:
        model = self._queue_model()
        if model is None:
            return []
        positions = model.session.queue.positions(self.which)
        if self.which.disagree:  # whether the judge and an expert differ would tell a blind rater the judge's verdict
            positions = [p for p in positions if model.session.sees_all(model.decision(p))]
        return positions

    def _set_rows(self, rows: list[int]) -> None:
        self._rows = rows

    def _row_of(self, position: int) -> int | None:
        """The proxy row of a queue position, None when the filter leaves it out (no map to build per
        filter: at 100,000 rows it cost half a filter change)."""
        row = bisect.bisect_left(self._rows, position)
        return row if row < len(self._rows) and self._rows[row] == position else None

    def _refilter(self) -> None:
        rows = self._positions()
        if rows == self._rows:
            return
        self.beginResetModel()
        self._set_rows(rows)
        self.endResetModel()

    def setSourceModel(self, model: QAbstractItemModel) -> None:  # noqa: N802 (Qt naming)
        old = self.sourceModel()
        if old is not None:
            old.modelAboutToBeReset.disconnect(self.beginResetModel)
            old.modelReset.disconnect(self._source_reset)
            old.dataChanged.disconnect(self._source_changed)
        self.beginResetModel()
        super().setSourceModel(model)
        model.modelAboutToBeReset.connect(self.beginResetModel)
        model.modelReset.connect(self._source_reset)
        model.dataChanged.connect(self._source_changed)
        self._set_rows(self._positions())
        self.endResetModel()

    def _source_reset(self) -> None:
        self._set_rows(self._positions())
        self.endResetModel()

    def _source_changed(self, top: QModelIndex, bottom: QModelIndex, roles: list[int] | None = None) -> None:
        """A recorded verdict: its row may leave or join (the filter reads the verdicts); else it repaints."""
        first, last = top.row(), bottom.row()
        rest = self.which.by_ratings()
        model = self._queue_model()
        if rest is not None and model is not None and last > first:
            self._refilter()  # the rater or blind mode changed every row: filter afresh
        elif rest is not None and model is not None:
            decision = model.decision(first)
            self._one_changed(first, rest.accepts(decision)
                              and (not self.which.disagree or model.session.sees_all(decision)))
        for row in self._proxy_rows(first, last):
            self.dataChanged.emit(self.index(row[0], 0), self.index(row[1], self.columnCount() - 1), roles or [])

    def _one_changed(self, position: int, accepted: bool) -> None:
        row = self._row_of(position)
        if accepted and row is None:
            row = bisect.bisect_left(self._rows, position)
            self.beginInsertRows(QModelIndex(), row, row)
            self._rows.insert(row, position)
            self.endInsertRows()
        elif not accepted and row is not None:
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._rows[row]
            self.endRemoveRows()

    def _proxy_rows(self, first: int, last: int) -> list[tuple[int, int]]:
        """The proxy rows of queue positions first..last, as one span (or none)."""
        low = bisect.bisect_left(self._rows, first)
        high = bisect.bisect_right(self._rows, last) - 1
        return [(low, high)] if low <= high else []

    # -- QAbstractProxyModel ------------------------------------------------------------------
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        model = self._queue_model()
        if role not in SHOWN_ROLES or model is None or not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        return model.cell(self._rows[index.row()], index.column(), role)

    def mapToSource(self, index: Index) -> QModelIndex:  # noqa: N802 (Qt naming)
        model = self.sourceModel()
        if model is None or not index.isValid() or not 0 <= index.row() < len(self._rows):
            return QModelIndex()
        return model.index(self._rows[index.row()], index.column())

    def mapFromSource(self, index: Index) -> QModelIndex:  # noqa: N802 (Qt naming)
        row = self._row_of(index.row()) if index.isValid() else None
        return QModelIndex() if row is None else self.index(row, index.column())

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        if parent.isValid() or not (0 <= row < len(self._rows) and 0 <= column < self.columnCount()):
            return QModelIndex()
        return self.createIndex(row, column)

    def parent(self, _index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        return QModelIndex()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        model = self.sourceModel()
        return 0 if parent.isValid() or model is None else model.columnCount()

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: N802 (Qt naming)
        return not parent.isValid() and bool(self._rows)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        model = self.sourceModel()
        if model is None or orientation != Qt.Orientation.Horizontal:
            return None
        return model.headerData(section, orientation, role)


class AdjudicationModel(QAbstractTableModel):
    """The decisions where raters differ, every rater in a column of their own; a blind rater gets
    only those they have rated (that raters differ elsewhere would tell them the others' verdicts)."""

    FIXED = ("Run", "Scope", "Criterion", "Weight")

    def __init__(self, session: ReviewSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.rows: list[Decision] = []
        self._positions: list[int] = []  # the rows' queue positions, ascending
        self._hidden: set[int] = set()  # queue positions of the decisions blind review keeps from this rater
        self.raters: list[str] = []
        self.hidden = 0  # decisions to adjudicate that blind review keeps from this rater
        session.reloaded.connect(self.refresh)
        session.recorded.connect(self._recorded)
        session.rater_changed.connect(self.refresh)
        session.blind_changed.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args: Any) -> None:
        """Read the list again (a reset: raters and rows may both change)."""
        self.beginResetModel()
        queue = self.session.queue
        differ = queue.positions(QueueFilter(adjudication=True))
        self._positions = [p for p in differ if self.session.sees_all(queue.decisions[p])]
        self._hidden = set(differ).difference(self._positions)
        self.rows = [queue.decisions[p] for p in self._positions]
        self.hidden = len(self._hidden)
        self.raters = [r for r in queue.raters() if r != ADJUDICATED]
        self.endResetModel()

    def _recorded(self, position: int) -> None:
        """A recorded verdict changes its own row, or makes a new one where it made the raters differ
        (one row inserted: a key press at 100,000 decisions does not read the list again)."""
        decision = self.session.queue.decisions[position]
        row = bisect.bisect_left(self._positions, position)
        listed = row < len(self._positions) and self._positions[row] == position
        if listed and self.session.sees_all(decision):
            self.dataChanged.emit(self.index(row, 0), self.index(row, self.columnCount() - 1))
        elif decision.raters_differ():
            if any(r != ADJUDICATED and r not in self.raters for r in decision.ratings):
                self.refresh()  # a new rater: a new column
                return
            if listed or not self.session.sees_all(decision):
                self._hidden.add(position)
            else:
                self._hidden.discard(position)
                self.beginInsertRows(QModelIndex(), row, row)
                self._positions.insert(row, position)
                self.rows.insert(row, decision)
                self.endInsertRows()
            self.hidden = len(self._hidden)

    def columns(self) -> list[str]:
        return [*self.FIXED, *self.raters, "Adjudicated"]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.FIXED) + len(self.raters) + 1

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns()[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        decision = self.rows[index.row()]
        column = self.columns()[index.column()]
        verdict = decision.ratings.get(ADJUDICATED if column == "Adjudicated" else column)
        if role == Qt.ItemDataRole.DisplayRole:
            if column == "Run":
                return decision.submission
            if column == "Scope":
                return decision.scope
            if column == "Criterion":
                return decision.criterion.id
            if column == "Weight":
                return "gate" if decision.criterion.gate else f"{decision.criterion.weight:+d}"
            return shown(verdict)
        if role == Qt.ItemDataRole.ForegroundRole and verdict is not None:
            colour = COLOURS.get(verdict.verdict)
            return QBrush(colour) if colour is not None else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return verdict.note if verdict is not None and verdict.note else decision.criterion.text
        return None
