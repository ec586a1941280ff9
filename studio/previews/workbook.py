"""Workbook cells for the preview: sheet names, their size, and a block of cells read on demand.

Two read-only workbooks are opened lazily - one with the cached values, one with the formulas -
so a 50-sheet workbook opens without reading its cells; a view reads the block it shows."""

from __future__ import annotations

import weakref
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException

from studio.previews.errors import PreviewError, starts_with

_DAMAGED = (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError, TypeError, OSError, IndexError,
            AttributeError, SyntaxError)
"""What openpyxl raises on a damaged workbook (bad zip, missing parts, malformed XML)."""


def cell_ref(sheet: str, row: int, column: int) -> str:
    """`Sheet!A1` (1-based row and column); a sheet name with spaces or signs is quoted as Excel does."""
    plain = sheet.replace("_", "").isalnum()
    name = sheet if plain else "'" + sheet.replace("'", "''") + "'"
    return f"{name}!{get_column_letter(column)}{row}"


@dataclass(frozen=True)
class Cell:
    value: Any
    formula: str | None
    ref: str


class WorkbookPreview:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        head = starts_with(self.path, 4)
        if head != b"PK\x03\x04":
            raise PreviewError(self.path, f"not an Excel workbook (it starts with {head!r}, not a zip archive)")
        self._values: Any = None
        self._formulas: Any = None
        self._sizes: dict[str, tuple[int, int]] = {}
        self._opened: list[Any] = []  # read-only workbooks keep their zip open until closed
        weakref.finalize(self, _close_all, self._opened)
        self.sheet_names: list[str] = list(self._workbook(formulas=False).sheetnames)

    def _workbook(self, formulas: bool) -> Any:
        attr = "_formulas" if formulas else "_values"
        if getattr(self, attr) is None:
            try:
                book = openpyxl.load_workbook(self.path, read_only=True, data_only=not formulas)
            except _DAMAGED as error:
                raise PreviewError(self.path, f"the workbook is damaged: {error or type(error).__name__}") from error
            setattr(self, attr, book)
            self._opened.append(book)
        return getattr(self, attr)

    def _sheet(self, sheet: str, formulas: bool) -> Any:
        if sheet not in self.sheet_names:
            raise PreviewError(self.path, f"has no sheet {sheet!r} (it has {', '.join(self.sheet_names)})")
        return self._workbook(formulas)[sheet]

    def size(self, sheet: str) -> tuple[int, int]:
        """(rows, columns) of a sheet, from its recorded dimension (counted once if it has none)."""
        if sheet not in self._sizes:
            worksheet = self._sheet(sheet, formulas=False)
            try:
                rows, columns = worksheet.max_row, worksheet.max_column
                if rows is None or columns is None:  # no <dimension> in the file: count once
                    worksheet.reset_dimensions()
                    rows = columns = 0
                    for rows, row in enumerate(worksheet.iter_rows(values_only=True), start=1):  # noqa: B007
                        columns = max(columns, len(row))
            except _DAMAGED as error:
                raise PreviewError(self.path, f"sheet {sheet!r} is damaged: {error}") from error
            empty = rows == 1 and columns == 1 and worksheet.cell(1, 1).value is None
            self._sizes[sheet] = (0, 0) if empty else (rows, columns)
        return self._sizes[sheet]

    def known_size(self, sheet: str) -> tuple[int, int] | None:
        """The sheet's size if it has been read already (no reading here)."""
        return self._sizes.get(sheet)

    def read(self, sheet: str, first_row: int, last_row: int, first_column: int, last_column: int,
             formulas: bool = False) -> list[list[Any]]:
        """The values (or formulas) of a block of cells, 1-based and inclusive, padded with None."""
        worksheet = self._sheet(sheet, formulas)
        width = last_column - first_column + 1
        try:
            rows = [list(row) + [None] * (width - len(row)) for row in worksheet.iter_rows(
                min_row=first_row, max_row=last_row, min_col=first_column, max_col=last_column, values_only=True)]
        except _DAMAGED as error:
            raise PreviewError(self.path, f"sheet {sheet!r} is damaged near row {first_row}: {error}") from error
        rows += [[None] * width for _ in range(last_row - first_row + 1 - len(rows))]
        return rows

    def cell(self, sheet: str, row: int, column: int) -> Cell:
        """One cell's value, formula (None when it holds a constant) and `Sheet!A1`."""
        value = self.read(sheet, row, row, column, column)[0][0]
        raw = self.read(sheet, row, row, column, column, formulas=True)[0][0]
        formula = raw if isinstance(raw, str) and raw.startswith("=") else None
        return Cell(value, formula, cell_ref(sheet, row, column))

    def close(self) -> None:
        _close_all(self._opened)


def _close_all(books: list[Any]) -> None:
    while books:
        books.pop().close()
