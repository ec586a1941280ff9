"""Write every rubric of a project to one xlsx an expert can edit in Excel: one row per
criterion, drop-downs for the fixed words, and the subtasks' instructions on a second sheet."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, Cell
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from studio.editing.documents import ProjectDocuments
from studio.model.vocabulary import FINAL_SCOPE, Target
from studio.sheets.columns import (
    COLUMNS,
    INSTRUCTIONS_SHEET,
    REUSED_FIELDS,
    RUBRIC_SHEET,
    Column,
    shown,
)
from studio.sheets.current import CurrentCriterion, current_criteria, originals, rubrics
from studio.sheets.errors import SheetFileError
from studio.sheets.instructions import subtask_instructions
from studio.store.atomic import write_atomic
from studio.tabular import write_value

# Rows below the last criterion that still get the drop-downs, for criteria the expert adds.
SPARE_ROWS = 500
# Excel's limit on the characters of one cell.
CELL_LIMIT = 32767
# An Excel list validation holds at most 255 characters.
LIST_LIMIT = 255

HEADER_FONT = Font(bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="1F4E78")
LOCKED_FONT = Font(italic=True, color="808080")
LOCKED_FILL = PatternFill("solid", fgColor="EDEDED")
WRAPPED = Alignment(wrap_text=True, vertical="top")

HEADER_NOTES = {
    "rubric": "The subtask id of a checkpoint rubric, or final.",
    "id": "The criterion's stable id. A new row with a new id adds a criterion; a deleted row removes one.",
    "covers": "One item per line: SUBTASK:PATH outputs (checkpoint), deliverable ids or package (final).",
    "weight": "1..10 credits, -1..-10 deducts, 0 only with gate yes.",
    "requires": "Ids of criteria in the same rubric, one per line (or separated by ';').",
    "propagates": "Material ids, one per line (or separated by ';').",
    "reuse_of": "Final rubric: a checkpoint criterion judged again on the final file. "
                "Its grey cells show the original and are not imported: edit the original's row.",
}


def write_cell(cell: Cell, value: Any, where: str) -> None:
    """Put `value` in `cell`; text is always text, never a formula."""
    if isinstance(value, str):
        if ILLEGAL_CHARACTERS_RE.search(value):
            raise SheetFileError(f"{where} holds a control character a spreadsheet cannot store: remove it first")
    write_value(cell, value)


def _row_values(criterion: CurrentCriterion, original: CurrentCriterion | None) -> dict[str, Any]:
    """What a criterion's row shows; a reused criterion shows its original's fields (as the final
    rubric scores it: an artifact criterion), its own covers and reuse_of."""
    values: dict[str, Any] = {"rubric": criterion.rubric, "id": criterion.key}
    if not criterion.reused:
        values.update(criterion.values)
        return values
    if original is not None:
        values.update(original.values)
        values["target"] = Target.ARTIFACT.value
    values.update({name: criterion.values.get(name) for name in REUSED_FIELDS})
    values["reuse_of"] = criterion.key
    return values


def locked_columns() -> list[Column]:
    """The columns of a reused criterion's row that show its original."""
    return [c for c in COLUMNS if c.field not in ("rubric", "reuse_of", *REUSED_FIELDS)]


def reused_row_values(criterion: CurrentCriterion, original: CurrentCriterion | None) -> dict[str, Any]:
    """The cells of a reused row as exported, by field (shared with the reader's lock check)."""
    return {name: shown(name, value) for name, value in _row_values(criterion, original).items()}


def _write_rubric_sheet(sheet: Worksheet, criteria: list[CurrentCriterion], rubric_names: list[str]) -> None:
    by_id = originals(criteria)
    for number, column in enumerate(COLUMNS, start=1):
        cell = sheet.cell(row=1, column=number, value=column.header)
        cell.font, cell.fill, cell.alignment = HEADER_FONT, HEADER_FILL, Alignment(vertical="center")
        if column.header in HEADER_NOTES:
            cell.comment = Comment(HEADER_NOTES[column.header], "DeliverBench Studio", width=260, height=90)
        sheet.column_dimensions[get_column_letter(number)].width = column.width
    reused_rows = []
    for row, criterion in enumerate(criteria, start=2):
        original = by_id.get(criterion.key) if criterion.reused else None
        values = _row_values(criterion, original)
        for number, column in enumerate(COLUMNS, start=1):
            cell = sheet.cell(row=row, column=number)
            write_cell(cell, shown(column.field, values.get(column.field)),
                       f"{criterion.rubric} criterion {criterion.key}, {column.header}")
            cell.alignment = WRAPPED
        if criterion.reused:
            reused_rows.append(row)
            for column in locked_columns():
                cell = sheet.cell(row=row, column=COLUMNS.index(column) + 1)
                cell.font, cell.fill = LOCKED_FONT, LOCKED_FILL
    last = len(criteria) + 1
    sheet.freeze_panes = "C2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(COLUMNS))}{last}"
    _add_validations(sheet, last + SPARE_ROWS, reused_rows, rubric_names)


def _segments(first: int, last: int, skipped: list[int]) -> list[tuple[int, int]]:
    """Row ranges from `first` to `last` without the rows in `skipped` (sorted)."""
    found, start = [], first
    for row in skipped:
        if row > start:
            found.append((start, row - 1))
        start = row + 1
    if start <= last:
        found.append((start, last))
    return found


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs of sorted column numbers, as (first, last)."""
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def _add_validations(sheet: Worksheet, last: int, reused_rows: list[int], rubric_names: list[str]) -> None:
    # A reused row's grey cells get their own validation; ranges never overlap, which Excel
    # would otherwise repair away.
    segments = _segments(2, last, reused_rows)
    locked = {column.field for column in locked_columns()}

    def ranges(column: Column) -> list[str]:
        letter = get_column_letter(COLUMNS.index(column) + 1)
        rows = segments if column.field in locked else [(2, last)]
        return [f"{letter}{a}:{letter}{b}" for a, b in rows]

    def listed(column: Column, choices: list[str]) -> None:
        formula = '"' + ",".join(choices) + '"'
        if len(formula) - 2 > LIST_LIMIT:
            return  # too many to offer; the import still checks every value
        validation = DataValidation(type="list", formula1=formula, allow_blank=True, showErrorMessage=True,
                                    errorTitle=f"Not a {column.header}",
                                    error=f"Pick a {column.header} from the list: {', '.join(choices)}.")
        for cells in ranges(column):
            validation.add(cells)
        sheet.add_data_validation(validation)

    by_header = {column.header: column for column in COLUMNS}
    listed(by_header["rubric"], rubric_names)
    for column in COLUMNS:
        if column.kind in ("choice", "gate"):
            listed(column, list(column.choices))
    weight = DataValidation(type="whole", operator="between", formula1="-10", formula2="10", allow_blank=True,
                            showErrorMessage=True, errorTitle="Not a weight",
                            error="A weight is a whole number: 1 to 10, -1 to -10 for a deduction, 0 for a fatal gate.")
    for cells in ranges(by_header["weight"]):
        weight.add(cells)
    sheet.add_data_validation(weight)
    if reused_rows:
        lock = DataValidation(type="custom", formula1="FALSE", showErrorMessage=True, errorTitle="Reused criterion",
                              error="A reused criterion keeps its original's text, weight and dimension: edit the "
                                    "original's row. Here only covers and reuse_of are read.")
        for row in reused_rows:
            for first, final in _runs([COLUMNS.index(column) + 1 for column in locked_columns()]):
                lock.add(f"{get_column_letter(first)}{row}:{get_column_letter(final)}{row}")
        sheet.add_data_validation(lock)


def _write_instructions(sheet: Worksheet, documents: ProjectDocuments) -> None:
    headers = (("subtask", 10), ("stage", 10), ("title", 40), ("instruction", 110))
    for number, (header, width) in enumerate(headers, start=1):
        cell = sheet.cell(row=1, column=number, value=header)
        cell.font, cell.fill = HEADER_FONT, HEADER_FILL
        sheet.column_dimensions[get_column_letter(number)].width = width
    for row, entry in enumerate(subtask_instructions(documents), start=2):
        text = ILLEGAL_CHARACTERS_RE.sub("", entry.text)
        if len(text) > CELL_LIMIT:
            text = text[: CELL_LIMIT - 60] + f"\n[... cut here: the whole text is in {entry.file}]"
        for number, value in enumerate((entry.subtask, entry.stage, entry.title, text), start=1):
            cell = sheet.cell(row=row, column=number)
            write_cell(cell, ILLEGAL_CHARACTERS_RE.sub("", value) if value else None, f"subtask {entry.subtask}")
            cell.alignment = WRAPPED
    sheet.freeze_panes = "B2"
    # A reference only: protected without a password, so nobody edits it by mistake.
    sheet.protection.sheet = True


def export_rubrics(project: Path | ProjectDocuments, out_xlsx: Path) -> int:
    """Write every criterion of the project (checkpoint rubrics, then the final one) to
    `out_xlsx`, atomically; the number of criteria written."""
    documents = project if isinstance(project, ProjectDocuments) else ProjectDocuments(Path(project))
    criteria = current_criteria(documents)
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = RUBRIC_SHEET
    names = rubrics(documents)
    if FINAL_SCOPE not in names:
        names.append(FINAL_SCOPE)
    _write_rubric_sheet(sheet, criteria, names)
    _write_instructions(workbook.create_sheet(INSTRUCTIONS_SHEET), documents)
    buffer = io.BytesIO()
    workbook.save(buffer)
    out = Path(out_xlsx)
    if not out.parent.is_dir():
        raise SheetFileError(f"{out}: the folder {out.parent} does not exist: create it or pick another place")
    try:
        write_atomic(out, buffer.getvalue())
    except OSError as exc:
        raise SheetFileError(f"{out}: cannot write the workbook ({exc.strerror or exc}): close it in Excel, or "
                             "pick another file name") from None
    return len(criteria)
