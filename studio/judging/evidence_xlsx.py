"""Evidence from workbooks: every cell of every sheet with its cached value and its formula, cited as `Sheet!A1`.

openpyxl reads a read-only workbook either with the formulas or with the values Excel (or LibreOffice)
saved, never both; reading twice would double the time on a large model. So one pass parses each
sheet with openpyxl's own sheet parser, extended to keep the saved value of a formula cell as well.
That parser is openpyxl's internal API: when it is not there (another openpyxl version), the reader
falls back to the two public read-only passes, which give the same cells."""

from __future__ import annotations

import datetime
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import openpyxl
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException

from studio.judging.evidence_budget import Budget, EvidenceLimits, ReadError

try:
    from openpyxl.worksheet._reader import WorkSheetParser
except ImportError:  # pragma: no cover - another openpyxl layout: the public two-pass reading
    WorkSheetParser = None

DAMAGED = (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError, TypeError, IndexError,
           AttributeError, SyntaxError, OSError, EOFError)
"""What openpyxl raises on a damaged workbook (bad zip, missing parts, malformed XML)."""

Row = list[tuple[int, Any, str | None]]
"""The cells of a row that hold something: (1-based column, saved value, formula or None)."""


def sheet_prefix(sheet: str) -> str:
    """`Sheet!` - quoted as Excel quotes a sheet name with spaces or signs."""
    plain = sheet.replace("_", "").isalnum()
    return (sheet if plain else "'" + sheet.replace("'", "''") + "'") + "!"


def formula_text(formula: Any) -> str:
    """"=SUM(B1:B3)" of a plain, array or data-table formula."""
    text = getattr(formula, "text", None)
    return str(text if text is not None else formula)


if WorkSheetParser is not None:
    class _ValuesAndFormulas(WorkSheetParser):
        """openpyxl's sheet parser, keeping a formula cell's saved value next to its formula."""

        def parse_cell(self, element: Any) -> dict[str, Any]:
            column: int = getattr(self, "col_counter")  # noqa: B009 - openpyxl leaves it untyped
            cell: dict[str, Any] = super().parse_cell(element)
            if cell["data_type"] == "f":
                formula = cell["value"]
                self.data_only, self.col_counter = True, column  # parse the same cell again, for its <v>
                try:
                    cell = super().parse_cell(element)
                finally:
                    self.data_only = False
                cell["formula"] = formula_text(formula)
            return cell


class WorkbookCells:
    """A workbook opened read-only; `rows()` yields the cells that hold a value or a formula."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            with path.open("rb") as handle:
                head = handle.read(4)
        except OSError as error:
            raise ReadError(f"cannot be read ({error.strerror})") from error
        if head != b"PK\x03\x04":
            raise ReadError(f"the workbook is damaged: it is not an xlsx file (it starts with {head!r}, "
                            "not a zip archive)")
        try:
            self._book = openpyxl.load_workbook(path, read_only=True, data_only=False)
        except DAMAGED as error:
            raise ReadError(f"the workbook is damaged: {error or type(error).__name__}") from error
        self.sheet_names: list[str] = [sheet.title for sheet in self._book.worksheets]

    def __enter__(self) -> WorkbookCells:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._book.close()

    def rows(self, one_pass: bool = True, sheet_name: str | None = None) -> Iterator[tuple[str, int, Row]]:
        """(sheet, 1-based row, its cells) in sheet order (or of one sheet); ReadError when a sheet is damaged."""
        for sheet in self._book.worksheets:
            if sheet_name is not None and sheet.title != sheet_name:
                continue
            reading = self._one_pass(sheet) if one_pass and WorkSheetParser is not None else self._two_passes(sheet)
            row = 0
            try:
                for row, cells in reading:
                    if cells:
                        yield sheet.title, row, cells
            except DAMAGED as error:
                raise ReadError(f"sheet {sheet.title!r} is damaged after row {row:,}: "
                                f"{error or type(error).__name__}") from error

    def _one_pass(self, sheet: Any) -> Iterator[tuple[int, Row]]:
        book = self._book
        with sheet._get_source() as source:
            parser = _ValuesAndFormulas(source, sheet._shared_strings, data_only=False, epoch=book.epoch,
                                        date_formats=book._date_formats, timedelta_formats=book._timedelta_formats)
            for row, cells in parser.parse():
                yield row, [(cell["column"], cell["value"], cell.get("formula")) for cell in cells
                            if cell["value"] is not None or "formula" in cell]

    def _two_passes(self, sheet: Any) -> Iterator[tuple[int, Row]]:
        if not hasattr(self, "_values"):
            self._values = openpyxl.load_workbook(self.path, read_only=True, data_only=True)
        saved = self._values[sheet.title].iter_rows(values_only=True)
        for row, (raw, values) in enumerate(zip(sheet.iter_rows(values_only=True), saved), start=1):
            cells: Row = []
            for column, (content, value) in enumerate(zip(raw, values), start=1):
                formula = content if isinstance(content, str) and content.startswith("=") else None
                formula = formula_text(content) if hasattr(content, "text") else formula
                if value is not None or formula is not None:
                    cells.append((column, value, formula))
            yield row, cells


def value_text(value: Any) -> str:
    """A cell's value as the judge reads it: numbers as Python writes them, TRUE/FALSE, ISO dates."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime.date | datetime.time | datetime.timedelta):
        return value.isoformat() if not isinstance(value, datetime.timedelta) else str(value)
    if isinstance(value, str):
        return value.replace("\r\n", "\n").replace("\n", "\\n")
    return str(value)


def cell_text(value: Any, formula: str | None) -> str:
    if formula is None:
        return value_text(value)
    if value is None:
        return f"(formula {formula}; no computed value saved in the file)"
    return f"{value_text(value)} (formula {formula})"


def read_xlsx(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """(cut note, error): every non-empty cell as `path!Sheet!A1` = value (formula ...)."""
    with WorkbookCells(path) as book:
        count = 0
        sheet, row = "", 0
        stop: str | None = None
        error: str | None = None
        add, letter = budget.add, get_column_letter
        try:
            for sheet, row, cells in book.rows():
                prefix = f"{rel}!{sheet_prefix(sheet)}"
                for column, value, formula in cells:
                    count += 1
                    if count > limits.cells:
                        stop = f"cut at {limits.cells:,} cells (the evidence's limit per workbook)"
                        break
                    if not add(f"{prefix}{letter(column)}{row}", cell_text(value, formula)):
                        stop = budget.cut_note("the workbook").removesuffix(" of the workbook")
                        break
                if stop:
                    break
        except ReadError as problem:
            error = str(problem)
        if stop is None:
            return None, error
        rest = book.sheet_names[book.sheet_names.index(sheet) + 1:]
        unseen = f"the rest of sheet {sheet!r} from row {row:,}" + (
            f" and sheet{'s' if len(rest) > 1 else ''} {', '.join(repr(name) for name in rest)}" if rest else "")
        return f"{stop}; not shown: {unseen}", error
