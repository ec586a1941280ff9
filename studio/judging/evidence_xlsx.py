"""Evidence from workbooks: every cell of every sheet with its saved value and its formula, cited as `Sheet!A1`.

openpyxl reads a read-only workbook either with the formulas or with the values Excel (or LibreOffice)
saved, never both; reading twice would double the time on a large model. So one pass parses each
sheet with openpyxl's own sheet parser reading formulas, which also types the value saved beside a
formula (the parser drops it). That parser is openpyxl's internal API: when it is not there (another
openpyxl version), the reader falls back to the two public read-only passes, which give the same cells
(a test compares them)."""

from __future__ import annotations

import datetime
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import openpyxl
from openpyxl.utils import get_column_letter
from openpyxl.utils.datetime import from_excel, from_ISO8601
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.worksheet._read_only import ReadOnlyWorksheet

from studio.judging.evidence_budget import Budget, EvidenceLimits, ReadError, line_cost

try:
    from openpyxl.worksheet._reader import VALUE_TAG, WorkSheetParser, _cast_number
except ImportError:  # pragma: no cover - another openpyxl layout: the public two-pass reading
    WorkSheetParser = None
ONE_PASS = WorkSheetParser is not None and hasattr(ReadOnlyWorksheet, "_get_source")
"""Whether this openpyxl has the internals the one-pass reading uses."""

DAMAGED = (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError, TypeError, IndexError,
           AttributeError, SyntaxError, OSError, EOFError)
"""What openpyxl raises on a damaged workbook (bad zip, missing parts, malformed XML)."""

Row = list[tuple[int, Any, str | None]]
"""The cells of a row that hold something: (1-based column, saved value, formula or None)."""


_COLUMN_LETTERS = [""] + [get_column_letter(column) for column in range(1, 16_385)]
"""A..XFD (Excel's last column) by 1-based column: looked up for every cell."""
_NUMBERS = (int, float)


def sheet_prefix(sheet: str) -> str:
    """`Sheet!` - quoted as Excel quotes a sheet name with spaces or signs."""
    plain = sheet.replace("_", "").isalnum()
    return (sheet if plain else "'" + sheet.replace("'", "''") + "'") + "!"


def formula_text(formula: Any) -> str:
    """"=SUM(B1:B3)" of a plain, array or data-table formula."""
    if isinstance(formula, str):
        return formula
    text = getattr(formula, "text", None)
    if text is not None:  # an array formula
        return str(text)
    inputs = [getattr(formula, name, None) for name in ("r1", "r2")]  # a data table: {=TABLE(r1,r2)}
    return "=TABLE(" + ",".join(str(cell) for cell in inputs if cell) + ")"


if ONE_PASS:
    class _ValuesAndFormulas(WorkSheetParser):
        """openpyxl's sheet parser (reading formulas), each cell as (column, saved value, formula), None if empty."""

        def parse_cell(self, element: Any) -> tuple[int, Any, str | None] | None:
            cell = super().parse_cell(element)
            if cell["data_type"] != "f":
                return None if cell["value"] is None else (cell["column"], cell["value"], None)
            return cell["column"], self._saved_value(element, cell["style_id"]), formula_text(cell["value"])

        def _saved_value(self, element: Any, style: int) -> Any:
            """The value saved beside a formula, typed as openpyxl types a constant of the cell's type."""
            saved = element.findtext(VALUE_TAG)
            if not saved:
                return None
            kind = element.get("t", "n")
            if kind == "n":
                number = _cast_number(saved)
                if style in self.date_formats:
                    try:
                        return from_excel(number, self.epoch, timedelta=style in self.timedelta_formats)
                    except (OverflowError, ValueError):
                        return number
                return number
            if kind == "b":
                return saved.strip() not in ("0", "")
            if kind == "s":
                return self.shared_strings[int(saved)]
            if kind == "d":
                return from_ISO8601(saved)
            return saved  # "str" (a text result) or "e" (an error such as #DIV/0!)


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
        if hasattr(self, "_values"):
            self._values.close()

    def rows(self, one_pass: bool = True, sheet_name: str | None = None) -> Iterator[tuple[str, int, Row]]:
        """(sheet, 1-based row, its cells) in sheet order (or of one sheet); ReadError when a sheet is damaged."""
        for sheet in self._book.worksheets:
            if sheet_name is not None and sheet.title != sheet_name:
                continue
            reading = self._one_pass(sheet) if one_pass and ONE_PASS else self._two_passes(sheet)
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
                yield row, list(filter(None, cells))  # a cell that only has a style comes as None

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


def _plain_text(value: str) -> str:
    return value.replace("\r\n", "\n").replace("\n", "\\n") if "\n" in value else value


def value_text(value: Any) -> str:
    """A cell's value as the judge reads it: numbers as Python writes them, TRUE/FALSE, ISO dates."""
    kind = type(value)
    if kind is int or kind is float:
        return str(value)
    if kind is str:
        return _plain_text(value)
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime.timedelta):
        return str(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return _plain_text(str(value))


def cell_text(value: Any, formula: str | None) -> str:
    if formula is None:
        return value_text(value)
    if value is None:
        return f"(formula {formula}; no computed value saved in the file)"
    return f"{value_text(value)} (formula {formula})"


def read_xlsx(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """(cut note, error): one excerpt per row of a sheet, cited `path!Sheet!A4:J4` (or `path!Sheet!B4` for one
    cell), holding each non-empty cell as `B4 = value` or `B4 = value (formula =...)`, cells separated by " | ".

    A row rather than a cell per excerpt keeps the judge's text short (the path and sheet are not repeated for
    every cell) and the extraction fast; a cell is still cited as `path!Sheet!B4`."""
    with WorkbookCells(path) as book:
        count = 0
        stop: str | None = None
        unseen = ""
        error: str | None = None
        letters = _COLUMN_LETTERS
        try:
            for sheet, row, cells in book.rows():
                number = str(row)
                parts = [f"{letters[column]}{number} = {value}" if formula is None and type(value) in _NUMBERS
                         else f"{letters[column]}{number} = {cell_text(value, formula)}"
                         for column, value, formula in cells]
                shown = len(parts)
                if count + shown > limits.cells:
                    shown = limits.cells - count
                    stop = f"cut at {limits.cells:,} cells (the evidence's limit per workbook)"
                prefix = f"{rel}!{sheet_prefix(sheet)}"
                first, final = letters[cells[0][0]] + number, letters[cells[-1][0]] + number
                room = budget.limit - budget.used - line_cost(f"{prefix}{first}:{final}", "")
                size = sum(map(len, parts[:shown])) + 3 * (shown - 1)
                if size > room:  # the row reaching the character limit: the cells that fit
                    shown, size = 0, -3
                    while shown < len(parts) and size + len(parts[shown]) + 3 <= room:
                        size += len(parts[shown]) + 3
                        shown += 1
                    stop = budget.cut_note("the workbook").removesuffix(" of the workbook")
                    budget.full = True
                if shown > 0:
                    last = f":{letters[cells[shown - 1][0]]}{number}" if shown > 1 else ""
                    budget.add(prefix + first + last, " | ".join(parts[:shown]))
                    count += shown
                if stop:
                    rest = book.sheet_names[book.sheet_names.index(sheet) + 1:]
                    unseen = f"the rest of sheet {sheet!r} from cell {letters[cells[shown][0]]}{number}"
                    if rest:
                        unseen += f" and sheet{'s' if len(rest) > 1 else ''} {', '.join(map(repr, rest))}"
                    break
        except ReadError as problem:
            error = str(problem)
        return (f"{stop}; not shown: {unseen}" if stop else None), error
