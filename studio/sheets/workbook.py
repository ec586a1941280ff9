"""Open an xlsx and find the rubric sheet and its columns by their headers."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException

from studio.sheets.columns import COLUMNS, HEADER_KEYS, RUBRIC_SHEET, header_key, plain
from studio.sheets.errors import CellError, SheetError, SheetFileError


@dataclass(frozen=True)
class SheetCell:
    """One cell as read: its value, openpyxl's data type ('f' formula, 'e' error, ...) and place."""

    value: Any
    data_type: str | None
    row: int
    column: int  # 1-based; 0 for a value a column mapping sets on every row (no cell of the sheet holds it)
    sheet: str = RUBRIC_SHEET

    @property
    def ref(self) -> str:
        if self.column == 0:
            return f"row {self.row} (a value the column mapping sets)"
        return f"{get_column_letter(self.column)}{self.row}"

    def error(self, message: str) -> CellError:
        return CellError(self.row, self.column, self.sheet, self.ref, message)


@dataclass(frozen=True)
class SheetRow:
    number: int
    cells: dict[str, SheetCell]  # by criterion field

    @property
    def blank(self) -> bool:
        return all(plain(cell.value) is None for cell in self.cells.values())


def read_rows(path: Path) -> list[SheetRow]:
    """The rubric sheet's rows after the header, blank rows left out. Raises SheetFileError when
    the file is not a workbook or has no rubric sheet, SheetError when a column is missing."""
    path = Path(path)
    if not path.is_file():
        raise SheetFileError(f"{path}: no such file")
    try:
        workbook = load_workbook(path, read_only=True, data_only=False)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError) as exc:
        why = "" if isinstance(exc, InvalidFileException) else f" ({exc})"
        raise SheetFileError(f"{path}: not an Excel workbook (.xlsx){why}: save it from Excel as an .xlsx "
                             "workbook") from None
    except OSError as exc:
        raise SheetFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        if RUBRIC_SHEET not in workbook.sheetnames:
            raise SheetFileError(f"{path}: no sheet named '{RUBRIC_SHEET}': import a workbook made by "
                                 "`dbstudio rubric export` (or rename the criteria sheet back)")
        sheet = workbook[RUBRIC_SHEET]
        sheet.reset_dimensions()  # read every row, whatever the file says its size is
        rows = sheet.iter_rows()
        header = next(rows, ())
        columns = _columns([SheetCell(cell.value, getattr(cell, "data_type", None), 1, number)
                            for number, cell in enumerate(header, start=1)])
        found = []
        for number, cells in enumerate(rows, start=2):
            values = {field: SheetCell(cells[index].value if index < len(cells) else None,
                                       getattr(cells[index], "data_type", None) if index < len(cells) else None,
                                       number, index + 1)
                      for field, index in columns.items()}
            row = SheetRow(number, values)
            if not row.blank:
                found.append(row)
        return found
    finally:
        workbook.close()


def _columns(header: list[SheetCell]) -> dict[str, int]:
    """Criterion field -> 0-based column index, from the header row; columns the sheet does not
    know (an expert's own notes) are left alone."""
    found: dict[str, int] = {}
    errors = []
    for cell in header:
        text = plain(cell.value)
        column = HEADER_KEYS.get(header_key(text)) if text else None
        if column is None:
            continue
        if column.field in found:
            errors.append(cell.error(f"a second '{column.header}' column: keep one and rename or delete the other"))
            continue
        found[column.field] = cell.column - 1
    missing = [column.header for column in COLUMNS if column.field not in found]
    if missing:
        errors.append(CellError(1, 1, RUBRIC_SHEET, "A1", f"the header row has no column {', '.join(missing)}: put "
                                f"the header{'s' if len(missing) > 1 else ''} back (or export a fresh sheet)"))
    if errors:
        raise SheetError(errors)
    return found
