"""One table over every criterion of the project: the checkpoint rubrics in timeline order, then
the final rubric (filter_model.py narrows it).

The model keeps only a light row index (each rubric's criterion ids, in order) and reads the
criteria from `context.session.loaded.project` when a view asks. After an edit it compares the
rubric files the edit touched with that index and tells the views exactly what happened:
`dataChanged` for changed rows, inserted / removed / moved rows for added, deleted and reordered
criteria. The whole model is reset only when the project is read again (`context.reloaded`).
"""

from __future__ import annotations

import bisect
import difflib
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont

from studio.editing.changes import Changes
from studio.editing.rubric import criterion_field, edit_criterion, gate_fields, rename_criterion
from studio.errors import StudioError
from studio.gui.base.project_context import ProjectContext
from studio.model import Criterion, Project
from studio.model.criterion_choices import rubric_scopes, value_choices
from studio.model.vocabulary import FINAL_SCOPE, Target
from studio.model.weights import weight_problem
from studio.store import layout
from studio.store.layout import touched_scopes

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("rubric", "id", "text", "weight", "gate", "target", "dimension", "covers", "requires", "propagates",
           "tests", "status", "reviewer", "judge")
HEADERS = {"rubric": "Rubric", "id": "Id", "text": "Requirement", "weight": "Weight", "gate": "Gate",
           "target": "Target", "dimension": "Dimension", "covers": "Covers", "requires": "Requires",
           "propagates": "Propagates", "tests": "Tests", "status": "Status", "reviewer": "Reviewer",
           "judge": "Judge agreement"}
COLUMN = {name: number for number, name in enumerate(COLUMNS)}
LIST_FIELDS = ("covers", "requires", "propagates", "tests")
# What a reused final criterion keeps as its own (everything else is the original's).
REUSE_EDITABLE = ("covers", "tests")

SCOPE_ROLE = Qt.ItemDataRole.UserRole + 1
KEY_ROLE = Qt.ItemDataRole.UserRole + 2
REUSED_ROLE = Qt.ItemDataRole.UserRole + 3
POSITION_ROLE = Qt.ItemDataRole.UserRole + 4

FLAGGED_ROLE = Qt.ItemDataRole.UserRole + 5  # the judge column: True for a criterion flagged by calibration

_ROLES = frozenset(int(role) for role in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.FontRole,
    Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.DecorationRole, SCOPE_ROLE,
    KEY_ROLE, REUSED_ROLE, POSITION_ROLE, FLAGGED_ROLE))

_ITALIC = QFont()
_ITALIC.setItalic(True)
# The roles a paint asks, as plain ints: a paint compares them some thousand times.
_DISPLAY, _EDIT, _CHECK, _FONT, _TOOLTIP, _ALIGNMENT, _DECORATION = (int(role) for role in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.FontRole,
    Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.DecorationRole))
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


@dataclass(frozen=True)
class Shown:
    """What one row shows: its own criterion, or for a reused final criterion the original."""

    scope: str
    key: str
    own: Criterion
    values: Criterion | None  # None: a reuse of a criterion that does not exist
    reused: bool
    gone: bool = False  # the criterion was removed from the rubric; its row is being removed

    @property
    def target(self) -> str:
        if self.reused:
            return Target.ARTIFACT.value  # a reused criterion is judged again on a final artifact
        return self.own.target.value if self.own.target else ""


@dataclass(frozen=True, slots=True)
class Painted:
    """What a paint of one row asks for: each column's text and flags, the gate's check, italics."""

    display: tuple[str | None, ...]
    flags: tuple[Qt.ItemFlag, ...]
    gate: Qt.CheckState | None
    reused: bool


class RubricModel(QAbstractTableModel):
    """Every criterion of the open project, one row each."""

    refused = Signal(str)
    """An edit the model would not make (an empty text, a weight 0 without gate, a taken id),
    with what to do instead."""

    def __init__(self, context: ProjectContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self._scopes: list[str] = []
        self._keys: dict[str, list[str]] = {}
        self._starts: list[int] = []
        self._total = 0
        self._following = False  # while the index catches up with an edit, nothing is cached
        self._painted_rows: dict[int, Painted] = {}  # by row, until the rows change
        self.calibration: dict[tuple[str, str], Any] = {}  # (scope, id) -> CalibrationCell (rubric_calibration)
        self._flag_icon: Any = None
        self._build()
        context.changed.connect(self._on_changed)
        context.reloaded.connect(self.reset)

    # -- the row index ------------------------------------------------------------------------
    @property
    def project(self) -> Project:
        return self.context.session.loaded.project

    def _keys_of(self, scope: str) -> list[str]:
        rubric = self.project.rubric(scope)
        return [criterion.key for criterion in rubric.criteria] if rubric is not None else []

    def _build(self) -> None:
        self._scopes = rubric_scopes(self.project)
        self._keys = {scope: self._keys_of(scope) for scope in self._scopes}
        self._painted_rows.clear()
        self._restart()

    def _restart(self, from_scope: int = 0) -> None:
        """Recompute where each rubric's rows start (after its row count changed)."""
        del self._starts[from_scope:]
        row = self._starts[-1] + len(self._keys[self._scopes[from_scope - 1]]) if from_scope else 0
        for scope in self._scopes[from_scope:]:
            self._starts.append(row)
            row += len(self._keys[scope])
        self._total = row

    def reset(self) -> None:
        """Read the whole project again (after a reload from disk)."""
        self.beginResetModel()
        self._build()
        self.endResetModel()

    def locate(self, row: int) -> tuple[str, int]:
        """(scope, place in its rubric) of a row."""
        number = bisect.bisect_right(self._starts, row) - 1
        scope = self._scopes[number]
        return scope, row - self._starts[number]

    def row_of(self, scope: str, key: str) -> int | None:
        """The row of the first criterion `key` of a rubric, None if it has none."""
        if scope not in self._keys:
            return None
        try:
            return self._starts[self._scopes.index(scope)] + self._keys[scope].index(key)
        except ValueError:
            return None

    def row_of_place(self, scope: str, place: int) -> int:
        return self._starts[self._scopes.index(scope)] + place

    def find(self, key: str) -> int | None:
        """The row of a criterion by id (its checkpoint or final row, not a reuse of it)."""
        for number, scope in enumerate(self._scopes):
            keys = self._keys[scope]
            if key in keys:
                row = self._starts[number] + keys.index(key)
                if not self.shown(row).reused:
                    return row
        return None

    def scopes(self) -> list[str]:
        return list(self._scopes)

    def keys(self, scope: str) -> list[str]:
        return list(self._keys.get(scope, []))

    def scope_rows(self, scope: str) -> range:
        number = self._scopes.index(scope)
        return range(self._starts[number], self._starts[number] + len(self._keys[scope]))

    def shown(self, row: int) -> Shown:
        """What a row shows, read by the row's criterion id from the index, not by its place.

        The project changes before the model announces it: between beginRemoveRows and
        endRemoveRows (and while a multi-step edit is followed) views and the selection model still
        ask about the old rows, whose places in the rubric no longer hold the same criteria. A row
        whose criterion is already gone is shown empty (`gone`) until its removal ends; reading it
        by place raised inside a Qt virtual call, which crashed the app (issue 21, Delete from the
        first row)."""
        scope, place = self.locate(row)
        key = self._keys[scope][place]
        rubric = self.project.rubric(scope)
        criteria = rubric.criteria if rubric is not None else []
        if place < len(criteria) and criteria[place].key == key:
            own = criteria[place]
        else:
            moved = next((criterion for criterion in criteria if criterion.key == key), None)
            if moved is None:
                return Shown(scope, key, Criterion.model_construct(id=key), None, False, gone=True)
            own = moved
        if scope == FINAL_SCOPE and own.reuse_of is not None:
            return Shown(scope, own.key, own, self.project.scored_as(scope, own), True)
        return Shown(scope, own.key, own, own, False)

    # -- reading ------------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else self._total

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return HEADERS[COLUMNS[section]]
            return None
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole and 0 <= section < self._total:
            return str(section + 1)
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # A view asks every visible cell for a dozen roles on each paint: answer the ones this model
        # does not use before reading the criterion (it halves the cost of a repaint at 5,000 rows),
        # and the ones a paint asks from the row's painted values, read once per row until it changes.
        return self.data_at(index.row(), index.column(), role) if index.isValid() else None

    def data_at(self, row: int, number: int, role: int) -> Any:
        """data() by row and column number (the filter reads its rows through this)."""
        if role not in _ROLES or row >= self._total:
            return None
        column = COLUMNS[number]
        if column == "judge":
            return self._calibration_data(row, role)
        if role == _DISPLAY:
            return self._painted(row).display[number]
        if role == _ALIGNMENT:
            return _RIGHT if column == "weight" else None
        if role == _DECORATION or role == FLAGGED_ROLE:
            return None
        if role == _CHECK:
            return self._painted(row).gate if column == "gate" else None
        if role == _FONT:
            return _ITALIC if self._painted(row).reused and column not in REUSE_EDITABLE else None
        if role == POSITION_ROLE:
            return self.locate(row)[1]
        shown = self.shown(row)
        if shown.gone:
            return None
        if role == _EDIT:
            return self._value(shown, column)
        if role == _TOOLTIP:
            return self._tooltip(shown, column)
        if role == SCOPE_ROLE:
            return shown.scope
        if role == KEY_ROLE:
            return shown.key
        return shown.reused  # REUSED_ROLE

    def _painted(self, row: int) -> Painted:
        """What a paint asks of a row, kept until the rows change (not while an edit is followed:
        the rows then move under the views)."""
        painted = self._painted_rows.get(row)
        if painted is None:
            painted = self._paint_values(self.shown(row))
            if not self._following:
                self._painted_rows[row] = painted
        return painted

    def _paint_values(self, shown: Shown) -> Painted:
        base = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
        if shown.gone:
            return Painted((None,) * len(COLUMNS), (base,) * len(COLUMNS), None, False)
        display: list[str | None] = []
        for column in COLUMNS:
            value = self._value(shown, column) if column not in ("gate", "judge") else None
            display.append(", ".join(value) if isinstance(value, list) else "" if value is None else str(value))
        display[COLUMN["gate"]] = None  # a check box
        display[COLUMN["judge"]] = None  # read from the calibration
        gate = shown.values.gate if shown.values is not None else False
        return Painted(tuple(display), tuple(self._flags_of(shown, column, base) for column in COLUMNS),
                       Qt.CheckState.Checked if gate else Qt.CheckState.Unchecked, shown.reused)

    # -- judge calibration ----------------------------------------------------------------------
    def calibration_of(self, row: int) -> Any:
        """The calibration of a row's criterion (a CalibrationCell), or None without comparisons."""
        scope, place = self.locate(row)
        return self.calibration.get((scope, self._keys[scope][place]))

    def _calibration_data(self, row: int, role: int) -> Any:
        cell = self.calibration_of(row)
        if cell is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{cell.agreement:.0%} ({cell.disagreements}/{cell.decisions} differ)"
        if role == Qt.ItemDataRole.ToolTipRole:
            more = ": click to see them" if cell.disagreements else ""
            low = "; flagged: rewrite the criterion so judge and experts read it alike" if cell.flagged else ""
            return cell.describe() + low + more
        if role == Qt.ItemDataRole.DecorationRole and cell.flagged:
            if self._flag_icon is None:
                from PySide6.QtWidgets import QApplication, QStyle

                self._flag_icon = QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
            return self._flag_icon
        if role == FLAGGED_ROLE:
            return cell.flagged
        return None

    def set_calibration(self, cells: dict[tuple[str, str], Any]) -> None:
        """Show new calibration: dataChanged for the judge cells whose value changed, no reset."""
        old, self.calibration = self.calibration, dict(cells)
        changed = {key for key in set(old) | set(cells) if old.get(key) != cells.get(key)}
        column = COLUMN["judge"]
        rows = sorted(row for scope, key in changed for row in self._rows_of(scope, key))
        for first, last in _ranges(rows):
            self.dataChanged.emit(self.index(first, column), self.index(last, column))

    def _rows_of(self, scope: str, key: str) -> list[int]:
        if scope not in self._keys:
            return []
        start = self._starts[self._scopes.index(scope)]
        return [start + n for n, k in enumerate(self._keys[scope]) if k == key]

    def _value(self, shown: Shown, column: str) -> Any:
        own, values = shown.own, shown.values
        if column == "rubric":
            return shown.scope
        if column == "id":
            return shown.key
        if column == "target":
            return shown.target
        if column in ("covers", "requires", "tests"):
            return list(getattr(own, column))
        if values is None:
            return None
        if column == "text":
            return values.text or ""
        if column == "weight":
            return values.weight
        if column == "gate":
            return values.gate
        if column == "dimension":
            return values.dimension.value if values.dimension else ""
        if column == "propagates":
            return list(values.propagates)
        if column == "status":
            return values.review.status.value
        if column == "reviewer":
            return values.review.reviewer or ""
        return None

    def _tooltip(self, shown: Shown, column: str) -> str | None:
        if shown.reused:
            if shown.values is None:
                return f"reuses {shown.key}, which is not a checkpoint criterion"
            if column == "tests":
                return f"The acceptance items {shown.key}, judged again on the final file, tests"
            if column in REUSE_EDITABLE:
                return f"The final deliverables on which {shown.key} is judged again"
            return f"reuses {shown.key}: edit it in the rubric of {self._origin(shown.key)}"
        if column == "text":
            return shown.own.text
        if column == "gate":
            return "A fatal gate: weight 0; triggered, the rubric scores 0"
        return None

    def _origin(self, key: str) -> str:
        found = self.project.checkpoint_criterion(key)
        return found[0] if found else "?"

    def flags(self, index: Index) -> Qt.ItemFlag:
        return self.flags_at(index.row(), index.column()) if index.isValid() else Qt.ItemFlag.NoItemFlags

    def flags_at(self, row: int, column: int) -> Qt.ItemFlag:
        return self._painted(row).flags[column]

    @staticmethod
    def _flags_of(shown: Shown, column: str, base: Qt.ItemFlag) -> Qt.ItemFlag:
        if shown.reused:
            return base | Qt.ItemFlag.ItemIsEditable if column in REUSE_EDITABLE else base
        if column == "gate":
            return base | Qt.ItemFlag.ItemIsUserCheckable
        if column in ("rubric", "judge") or (column == "tests" and shown.scope != FINAL_SCOPE):
            return base  # acceptance items are tested by final criteria only
        return base | Qt.ItemFlag.ItemIsEditable

    def filter_fields(self, row: int) -> tuple[str, str, str, str]:
        """(target, dimension, status, lower-case id + text + reviewer) of a row: what the filter
        compares (it keeps them per row, following this model's signals)."""
        shown = self.shown(row)
        values = shown.values
        if values is None:
            return shown.target, "", "", shown.key.lower()
        text = f"{shown.key}\n{values.text or ''}\n{values.review.reviewer or ''}".lower()
        return (shown.target, values.dimension.value if values.dimension else "", values.review.status.value, text)

    def all_filter_fields(self) -> list[tuple[str, str, str, str]]:
        """`filter_fields` of every row, in row order, in one pass over the rubrics (what the filter's
        first key needs; 5-6x quicker than asking row by row at 10,000 rows)."""
        fields: list[tuple[str, str, str, str]] = []
        add = fields.append
        artifact = Target.ARTIFACT.value
        for scope in self._scopes:
            keys = self._keys[scope]
            start = len(fields)
            rubric = self.project.rubric(scope)
            criteria = rubric.criteria if rubric is not None else []
            final = scope == FINAL_SCOPE
            for place, key in enumerate(keys):
                own = criteria[place] if place < len(criteria) else None
                if own is None or own.key != key:  # the rubric is changing under the rows: as filter_fields
                    add(self.filter_fields(start + place))
                    continue
                if final and own.reuse_of is not None:
                    values, target = self.project.scored_as(scope, own), artifact
                else:
                    values, target = own, own.target.value if own.target else ""
                if values is None:
                    add((target, "", "", key.lower()))
                    continue
                dimension = values.dimension
                review = values.review
                add((target, dimension.value if dimension else "", review.status.value,
                     f"{key}\n{values.text or ''}\n{review.reviewer or ''}".lower()))
        return fields

    # -- editing ------------------------------------------------------------------------------
    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or not self.flags(index) & (Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsUserCheckable):
            return False
        column = COLUMNS[index.column()]
        shown = self.shown(index.row())
        try:
            if column == "gate":
                if role != Qt.ItemDataRole.CheckStateRole:
                    return False
                return self.edit(index.row(), gate_fields(Qt.CheckState(value) == Qt.CheckState.Checked, shown.own.weight))
            if role != Qt.ItemDataRole.EditRole:
                return False
            if column == "id":
                new = str(value).strip()
                if new == shown.key:
                    return True
                documents = self.context.session.documents
                return self.context.push(rename_criterion(documents, shown.key, new))
            return self.edit(index.row(), {criterion_field(column): self._checked(column, value, shown)})
        except StudioError as error:
            self.refused.emit(str(error))
            return False

    def _checked(self, column: str, value: Any, shown: Shown) -> Any:
        """The value to write, or a RefusedEdit saying why not."""
        if column == "text":
            text = str(value).strip()
            if not text:
                raise RefusedEdit("a criterion needs a requirement text: type what must hold (or what must not, "
                                  "for a negative weight)")
            return text
        if column == "weight":
            try:
                weight = int(value)
            except (TypeError, ValueError):
                raise RefusedEdit(f"'{value}' is not a weight: give a whole number from -10 to 10") from None
            if (problem := weight_problem(weight, shown.own.gate)) is not None:
                raise RefusedEdit(problem)  # the import's words: one weight rule
            return weight
        if column in ("target", "dimension", "status"):
            allowed = value_choices(column, shown.scope)
            text = str(value)
            if text not in allowed:
                raise RefusedEdit(f"'{text}' is not a {column} here: pick one of {', '.join(allowed)}")
            return text
        if column in LIST_FIELDS:
            items = value if isinstance(value, list) else [part.strip() for part in str(value).split(",")]
            return list(dict.fromkeys(str(item) for item in items if str(item)))
        if column == "reviewer":
            return str(value).strip() or None
        return value

    def edit(self, row: int, values: dict[str, Any]) -> bool:
        """Set fields of the criterion of `row` as one undoable step."""
        shown = self.shown(row)
        command = edit_criterion(self.context.session.documents, shown.scope, shown.key, values,
                                 hint=self.locate(row)[1])
        if not command.commands:
            return True  # nothing changes
        return self.context.push(command)

    # -- following edits ----------------------------------------------------------------------
    def _on_changed(self, changes: Changes) -> None:
        touched = touched_scopes(changes.files)
        if not touched and layout.STAGES_FILE not in changes.files:
            return
        self._following = True
        self._painted_rows.clear()  # rows move, and the edited ones show new values
        try:
            self._follow_scopes()
            for scope in touched:
                if scope in self._keys:
                    self._follow_rows(scope)
            self._refresh_ids(touched, changes.ids)
        finally:
            self._following = False

    def _follow_scopes(self) -> None:
        """Rubrics that appeared, went or moved on the timeline."""
        new_order = rubric_scopes(self.project)
        if new_order == self._scopes:
            return
        for scope in [s for s in self._scopes if s not in new_order]:
            number = self._scopes.index(scope)
            count = len(self._keys[scope])
            if count:
                self.beginRemoveRows(QModelIndex(), self._starts[number], self._starts[number] + count - 1)
            self._scopes.pop(number)
            del self._keys[scope]
            self._restart(number)
            if count:
                self.endRemoveRows()
        for number, scope in enumerate(new_order):
            if scope in self._keys:
                current = self._scopes.index(scope)
                if current != number:
                    self._move_scope(current, number)
                continue
            keys = self._keys_of(scope)
            start = self._starts[number] if number < len(self._scopes) else self._total
            if keys:
                self.beginInsertRows(QModelIndex(), start, start + len(keys) - 1)
            self._scopes.insert(number, scope)
            self._keys[scope] = keys
            self._restart(number)
            if keys:
                self.endInsertRows()

    def _move_scope(self, current: int, number: int) -> None:
        """Move a whole rubric's rows from place `current` to the earlier place `number`."""
        scope = self._scopes[current]
        count = len(self._keys[scope])
        first = self._starts[current]
        destination = self._starts[number]
        moving = bool(count) and self.beginMoveRows(QModelIndex(), first, first + count - 1, QModelIndex(), destination)
        self._scopes.insert(number, self._scopes.pop(current))
        self._restart(number)
        if moving:
            self.endMoveRows()

    def _follow_rows(self, scope: str) -> None:
        """Compare a rubric's ids with the index; insert, remove or move rows to match."""
        old, new = self._keys[scope], self._keys_of(scope)
        if old == new:
            return
        number = self._scopes.index(scope)
        if len(old) == len(new) and self._follow_move(scope, number, old, new):
            return
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        keys = self._keys[scope]
        # In order: everything before an operation is already as `new` has it, so the rows it
        # inserts sit at their final places (the filter reads them as soon as they are announced).
        for tag, o1, o2, n1, n2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            common = min(o2 - o1, n2 - n1)
            first = self._starts[number] + n1 + common
            if common:  # replaced ids at the same places: the same rows with new content (a rename)
                keys[n1:n1 + common] = new[n1:n1 + common]
                self._changed_rows(first - common, first - 1)
            if o2 - o1 > common:
                self.beginRemoveRows(QModelIndex(), first, first + o2 - o1 - common - 1)
                del keys[n1 + common:n1 + o2 - o1]
                self._restart(number)
                self.endRemoveRows()
            elif n2 - n1 > common:
                self.beginInsertRows(QModelIndex(), first, first + n2 - n1 - common - 1)
                keys[n1 + common:n1 + common] = new[n1 + common:n2]
                self._restart(number)
                self.endInsertRows()
        assert self._keys[scope] == new

    def _follow_move(self, scope: str, number: int, old: list[str], new: list[str]) -> bool:
        """One criterion moved within its rubric: move its row (the selection follows it)."""
        first = next(i for i in range(len(old)) if old[i] != new[i])
        last = next(i for i in range(len(old) - 1, -1, -1) if old[i] != new[i])
        start = self._starts[number]
        if old[first + 1:last + 1] == new[first:last] and old[first] == new[last]:
            source, destination = first, last + 1  # moved down
        elif old[first:last] == new[first + 1:last + 1] and old[last] == new[first]:
            source, destination = last, first  # moved up
        else:
            return False
        self.beginMoveRows(QModelIndex(), start + source, start + source, QModelIndex(), start + destination)
        self._keys[scope] = list(new)
        self.endMoveRows()
        self._changed_rows(start + min(first, last), start + max(first, last))
        return True

    def _refresh_ids(self, touched: set[str], ids: frozenset[str]) -> None:
        """dataChanged for the rows of the changed ids: in the touched rubrics, and the final
        rows that reuse them."""
        rows: list[int] = []
        scopes = [s for s in self._scopes if s in touched or s == FINAL_SCOPE]
        for scope in scopes:
            start = self._starts[self._scopes.index(scope)]
            keys = self._keys[scope]
            if not ids and (scope in touched or touched - {FINAL_SCOPE}):  # reused rows show checkpoint values
                if keys:
                    self._changed_rows(start, start + len(keys) - 1)
                continue
            if len(ids) < 8:
                for key in ids:
                    rows += [start + n for n, k in enumerate(keys) if k == key] if key in keys else []
            else:
                rows += [start + n for n, k in enumerate(keys) if k in ids]
        for first, last in _ranges(sorted(set(rows))):
            self._changed_rows(first, last)

    def _changed_rows(self, first: int, last: int) -> None:
        self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))


class RefusedEdit(StudioError):
    """A value the rubric cannot take (said in the domain's words, with the fix)."""


def _ranges(rows: list[int]) -> list[tuple[int, int]]:
    """Sorted rows as (first, last) runs."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs
