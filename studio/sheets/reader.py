"""Read an edited rubric sheet back: every cell checked first (all errors reported together,
each at its cell), then compared with the project into a SheetDiff. Nothing is changed here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.editing.documents import ProjectDocuments
from studio.graphs import find_cycles
from studio.model.vocabulary import FINAL_SCOPE, FINAL_TARGETS, PACKAGE, Target
from studio.model.weights import weight_problem
from studio.sheets.cells import (
    CellProblem,
    read_choice,
    read_gate,
    read_id,
    read_ids,
    read_lines,
    read_text,
    read_weight,
    refuse_formula,
)
from studio.sheets.columns import BY_FIELD, DEFAULT_STATUS, FIELDS, REUSED_FIELDS, plain, shown
from studio.sheets.current import CurrentCriterion, current_criteria, originals, rubrics
from studio.sheets.diff import AddedCriterion, FieldChange, RemovedCriterion, SheetDiff
from studio.sheets.errors import CellError, SheetError
from studio.sheets.export import locked_columns, reused_row_values
from studio.sheets.mapping import ColumnMapping, read_mapped_rows
from studio.sheets.names import ProjectNames
from studio.sheets.workbook import SheetCell, SheetRow, read_rows
from studio.store import layout

REQUIRED = ("text", "target", "dimension", "weight")
FINAL_TARGET_WORDS = tuple(target.value for target in FINAL_TARGETS)


@dataclass
class _Row:
    """A sheet row as read: which criterion it is, its values, which of them are new or changed."""

    sheet: SheetRow
    rubric: str | None = None
    key: str | None = None
    reused: bool = False
    existing: CurrentCriterion | None = None
    values: dict[str, Any] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)
    bad: set[str] = field(default_factory=set)

    @property
    def new(self) -> bool:
        return self.existing is None

    def edited(self, name: str) -> bool:
        """Whether the project would take this field's value from the sheet (new row or changed cell)."""
        return name not in self.bad and (self.new or name in self.changed)

    def cell(self, name: str) -> SheetCell:
        return self.sheet.cells[name]


def _identity(criterion: CurrentCriterion) -> tuple[str, str, int]:
    return criterion.rubric, criterion.key, criterion.index


class _Reading:
    def __init__(self, documents: ProjectDocuments, keep_absent: bool = False) -> None:
        self.keep_absent = keep_absent  # a workbook of the expert's own: what it does not list stays
        self.criteria = current_criteria(documents)
        self.by_key = {(c.rubric, c.key): c for c in self.criteria}
        self.originals = originals(self.criteria)
        self.rubrics = set(rubrics(documents))
        self.subtasks = {folder.name for folder in layout.subtask_folders(documents.root)}
        self.names = ProjectNames.read(documents)
        self.errors: list[CellError] = []
        self.rows: list[_Row] = []

    def fail(self, row: _Row, name: str, message: str) -> None:
        row.bad.add(name)
        self.errors.append(row.cell(name).error(message))

    # -- one row ---------------------------------------------------------------------------

    def read_row(self, sheet_row: SheetRow) -> _Row:
        row = _Row(sheet_row)
        row.rubric = self._rubric(row)
        reuse_of = self._parse(row, "reuse_of", lambda value: read_id(value, "criterion id"))
        row.reused = reuse_of is not None
        if row.reused:
            row.key = reuse_of
        else:
            row.key = self._parse(row, "id", read_id)
            if row.key is None and "id" not in row.bad:
                self.fail(row, "id", "a criterion needs an id: give it one that no other criterion has (e.g. "
                                     f"{row.rubric or 'T01'}-C{row.sheet.number:02d})")
        if row.rubric is not None and row.key is not None:
            existing = self.by_key.get((row.rubric, row.key))
            if existing is not None and existing.reused == row.reused:
                row.existing = existing
        for name in REUSED_FIELDS if row.reused else FIELDS:
            self._field(row, name)
        if not row.reused:
            self._row_rules(row)
        return row

    def _rubric(self, row: _Row) -> str | None:
        rubric = self._parse(row, "rubric", lambda value: read_id(value, "rubric name"))
        if "rubric" in row.bad:
            return None
        if rubric is None:
            self.fail(row, "rubric", "which rubric is this criterion in? write a subtask id (T01, ...) or final")
        elif rubric not in self.rubrics:
            if rubric in self.subtasks:
                self.fail(row, "rubric", f"subtask {rubric} has no rubric file yet: add its first criterion in the "
                                         "app, then export again")
            else:
                choices = sorted(self.rubrics - {FINAL_SCOPE})
                self.fail(row, "rubric", f"'{rubric}' is not a rubric of this project: write a subtask id "
                                         f"({', '.join(choices[:3])}{', ...' if len(choices) > 3 else ''}) or final")
            return None
        return rubric

    def _parse(self, row: _Row, name: str, read: Any) -> Any:
        cell = row.cell(name)
        try:
            refuse_formula(cell.value, cell.data_type)
            return read(cell.value)
        except CellProblem as problem:
            self.fail(row, name, str(problem))
            return None

    def _field(self, row: _Row, name: str) -> None:
        cell = row.cell(name)
        current = row.existing.values[name] if row.existing is not None else None
        if row.existing is not None and cell.data_type not in ("f", "e") and \
                plain(cell.value) == plain(shown(name, current)):
            row.values[name] = current  # the cell as exported: never an edit, never an error
            return
        column = BY_FIELD[name]
        readers = {
            "text": read_text, "id": read_id, "choice": lambda v: read_choice(v, column), "weight": read_weight,
            "gate": read_gate, "ids": lambda v: read_ids(v, "criterion id" if name == "requires" else "material id"),
            "lines": read_lines,
        }
        value = self._parse(row, name, readers[column.kind])
        if name in row.bad:
            return
        row.values[name] = value
        if row.existing is None or not _same(name, value, current):
            row.changed.add(name)

    def _row_rules(self, row: _Row) -> None:
        """A criterion's own rules on the cells the sheet sets: required fields, target by rubric,
        weight 0 exactly for gates."""
        for name in REQUIRED:
            if name not in row.bad and row.values.get(name) is None:
                self.fail(row, name, f"a criterion needs a {name}: fill in this cell")
        target = row.values.get("target")
        if row.edited("target") and target is not None and row.rubric is not None:
            if row.rubric == FINAL_SCOPE and target not in FINAL_TARGET_WORDS:
                self.fail(row, "target", f"final criteria have target {', '.join(FINAL_TARGET_WORDS)}: pick one, "
                                         "or move the criterion to a subtask's rubric")
            elif row.rubric != FINAL_SCOPE and target != Target.CHECKPOINT.value:
                self.fail(row, "target", f"criteria of subtask {row.rubric} have target checkpoint: set it, or "
                                         "set rubric to final")
        weight, gate = row.values.get("weight"), row.values.get("gate")
        if (row.edited("weight") or row.edited("gate")) and not {"weight", "gate"} & row.bad and weight is not None:
            if (problem := weight_problem(weight, bool(gate))) is not None:
                self.fail(row, "gate" if gate else "weight", problem)

    # -- across rows -----------------------------------------------------------------------

    def check_rows(self) -> list[CurrentCriterion]:
        """Rules between rows; the criteria the sheet no longer has."""
        rows = [row for row in self.rows if row.rubric is not None and row.key is not None]
        self._duplicates(rows)
        matched = {_identity(row.existing) for row in rows if row.existing is not None}
        removed = [] if self.keep_absent else [c for c in self.criteria if _identity(c) not in matched]
        removed_keys = {(c.rubric, c.key) for c in removed if not c.reused}
        keys: dict[str, set[str]] = {}
        if self.keep_absent:  # a row may require a criterion the workbook does not list
            for criterion in self.criteria:
                if not criterion.reused:
                    keys.setdefault(criterion.rubric, set()).add(criterion.key)
        checkpoint_rows: dict[str, _Row] = {}
        for row in rows:
            if not row.reused:
                keys.setdefault(str(row.rubric), set()).add(str(row.key))
                if row.rubric != FINAL_SCOPE:
                    checkpoint_rows.setdefault(str(row.key), row)
        for row in rows:
            self._covers(row)
            if row.reused:
                self._reuse(row, checkpoint_rows, removed_keys)
            else:
                self._references(row, keys.get(str(row.rubric), set()), removed_keys)
        self._cycles(rows)
        return removed

    def _duplicates(self, rows: list[_Row]) -> None:
        groups: dict[tuple[str, ...], list[_Row]] = {}
        for row in rows:
            place = ("reused", str(row.rubric), str(row.key)) if row.reused else ("own", str(row.key))
            groups.setdefault(place, []).append(row)
        for group in groups.values():
            if len(group) < 2:
                continue
            held = [row.existing for row in group if row.existing is not None]
            if len(held) == len(group) and len({_identity(c) for c in held}) == len(held):
                continue  # criteria the project already holds under one id: validation reports that
            # The error goes to the rows the expert wrote (new ones), or, for a copied row, to the copy.
            keep = next((row for row in group if row.existing is not None), group[0])
            for row in group:
                if row is keep:
                    continue
                if row.reused:
                    self.fail(row, "reuse_of", f"row {keep.sheet.number} already reuses {row.key} in the final "
                                               "rubric: delete one of the two rows")
                else:
                    self.fail(row, "id", f"id {row.key} is also on row {keep.sheet.number}: criterion ids are "
                                         "unique in a project: give this criterion a new id")

    def _covers(self, row: _Row) -> None:
        if not row.edited("covers"):
            return
        if row.rubric == FINAL_SCOPE:
            allowed = [*self.names.deliverables, PACKAGE]
            unknown = [item for item in row.values.get("covers") or [] if item not in allowed]
            if unknown:
                self.fail(row, "covers", f"{', '.join(unknown)}: not a final deliverable: write deliverable ids "
                                         f"({', '.join(allowed)}), one per line")
            return
        outputs = self.names.outputs.get(str(row.rubric), [])
        unknown = [item for item in row.values.get("covers") or [] if item not in outputs]
        if unknown:
            listed = ", ".join(outputs) if outputs else f"none yet: add outputs to {row.rubric} first"
            self.fail(row, "covers", f"{', '.join(unknown)}: not an output of {row.rubric}: write "
                                     f"{row.rubric}:PATH, one per line (its outputs: {listed})")

    def _references(self, row: _Row, rubric_keys: set[str], removed: set[tuple[str, str]]) -> None:
        if "requires" not in row.bad:
            required = row.values.get("requires") or []
            if row.edited("requires"):
                unknown = [name for name in required if name not in rubric_keys or name == row.key]
                if row.key in required:
                    self.fail(row, "requires", f"{row.key} cannot require itself: remove {row.key} from requires")
                elif unknown:
                    self.fail(row, "requires", f"requires {', '.join(unknown)}, which "
                                               f"{'is' if len(unknown) == 1 else 'are'} no criterion of rubric "
                                               f"{row.rubric}: name criteria of the same rubric, one per line")
            else:
                gone = [name for name in required if (row.rubric, name) in removed]
                if gone:
                    self.fail(row, "requires", f"requires {', '.join(gone)}, whose row was deleted: remove "
                                               f"{', '.join(gone)} from requires, or put the row back")
        if row.edited("propagates"):
            unknown = [name for name in row.values.get("propagates") or [] if name not in self.names.materials]
            if unknown:
                self.fail(row, "propagates", f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} no "
                                             "material of this project: name material ids (as in materials.yaml)")

    def _reuse(self, row: _Row, checkpoint_rows: dict[str, _Row], removed: set[tuple[str, str]]) -> None:
        key = str(row.key)
        if row.rubric != FINAL_SCOPE:
            self.fail(row, "reuse_of", "only the final rubric reuses checkpoint criteria: set rubric to final, or "
                                       "clear reuse_of and give the criterion its own id")
            return
        original_row = checkpoint_rows.get(key)
        if original_row is None:
            if any(name == key for _, name in removed):
                self.fail(row, "reuse_of", f"reuses {key}, whose row was deleted: delete this row too, or put "
                                           f"{key}'s row back")
            elif row.new:
                self.fail(row, "reuse_of", f"'{key}' is no checkpoint criterion in this sheet: name the id of a "
                                           "subtask's criterion")
        expected = reused_row_values(CurrentCriterion(FINAL_SCOPE, key, -1, True), self.originals.get(key))
        for column in locked_columns():
            cell = row.cell(column.field)
            written = plain(cell.value)
            if written is None and cell.data_type not in ("f", "e"):
                continue
            accepted = {plain(expected.get(column.field))}
            if original_row is not None:
                accepted.add(plain(original_row.cell(column.field).value))
            if column.field == "target":
                accepted.add(Target.ARTIFACT.value)
            if cell.data_type in ("f", "e") or written not in accepted:
                where = f" on row {original_row.sheet.number}" if original_row is not None else ""
                self.fail(row, column.field, f"this grey cell shows {key}, which the row reuses, and is not "
                                             f"imported: edit {key}{where} instead (a reused criterion sets only "
                                             "covers), or clear the cell")

    def _cycles(self, rows: list[_Row]) -> None:
        for rubric in {row.rubric for row in rows}:
            members = {str(row.key): row for row in rows if row.rubric == rubric and not row.reused}
            graph = {key: [name for name in row.values.get("requires") or [] if name in members]
                     for key, row in members.items()}
            for cycle in find_cycles(graph, self_loops=False):
                edited = [members[key] for key in cycle if members[key].edited("requires")]
                if edited:
                    path = " -> ".join([*cycle, cycle[0]])
                    self.fail(edited[0], "requires", f"requires makes a cycle {path}: no criterion can depend on "
                                                     "itself through others; remove one of these")

    # -- the result ------------------------------------------------------------------------

    def diff(self, removed: list[CurrentCriterion]) -> SheetDiff:
        result = SheetDiff()
        last_in: dict[str, str] = {}
        if self.keep_absent:  # the expert's own workbook: its new criteria go after those the rubric has
            for criterion in self.criteria:
                last_in[criterion.rubric] = criterion.key
        for row in self.rows:
            rubric, key = str(row.rubric), str(row.key)
            if row.existing is not None:
                for name in [n for n in FIELDS if n in row.changed]:
                    result.changed.append(FieldChange(rubric, key, name, row.existing.values[name], row.values[name],
                                                      f"{row.cell(name).sheet}!{row.cell(name).ref}", row.reused))
            else:
                result.added.append(AddedCriterion(rubric, key, _new_values(row), row.sheet.number,
                                                   last_in.get(rubric), row.reused))
            last_in[rubric] = key
        result.removed = [RemovedCriterion(c.rubric, c.key, c.reused,
                                           f"reuses {c.key}" if c.reused else str(c.values.get("text") or ""))
                          for c in removed]
        return result


def _same(name: str, value: Any, current: Any) -> bool:
    """Whether a cell's value says what the project says (an empty status is a draft's)."""
    if name == "review.status":
        return (value or DEFAULT_STATUS) == (current or DEFAULT_STATUS)
    return bool(value == current)


def _new_values(row: _Row) -> dict[str, Any]:
    """The fields of a new criterion, in the format's key order, empty ones left out."""
    if row.reused:
        values: dict[str, Any] = {"reuse_of": row.key}
    else:
        values = {"id": row.key}
    for name in REUSED_FIELDS if row.reused else FIELDS:
        value = row.values.get(name)
        if value is not None and value != [] and value is not False:
            values[name] = value
    return values


def read_rubric_sheet(project: Path | ProjectDocuments, in_xlsx: Path, mapping: ColumnMapping | None = None) \
        -> SheetDiff:
    """What the sheet at `in_xlsx` changes in the project's rubrics. Every cell is checked first;
    any bad cell raises SheetError with all of them (`Rubrics!C7: message`). With a column `mapping`
    the workbook is the expert's own layout: its rows add criteria (or change those whose id it gives),
    the same checks apply at its own cells, and criteria it does not list stay as they are."""
    documents = project if isinstance(project, ProjectDocuments) else ProjectDocuments(Path(project))
    if mapping is None:
        sheet_rows = read_rows(Path(in_xlsx))
    else:
        from studio.editing.rubric import next_criterion_id

        taken = {c.key for c in current_criteria(documents)}

        def new_id(rubric: str | None) -> str:
            made = next_criterion_id(rubric or "T01", taken)
            taken.add(made)
            return made

        sheet_rows = read_mapped_rows(Path(in_xlsx), mapping, new_id)
    reading = _Reading(documents, keep_absent=mapping is not None)
    for sheet_row in sheet_rows:
        reading.rows.append(reading.read_row(sheet_row))
    removed = reading.check_rows()
    if reading.errors:
        raise SheetError(reading.errors)
    return reading.diff(removed)
