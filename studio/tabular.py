"""Reading a table file (CSV, or the first sheet of an xlsx) into strings: shared by every
importer of results (verdict tables, rating tables), so they accept the same files; and the one
rule for writing a value into a workbook's cell, shared by every xlsx the app writes."""

from __future__ import annotations

import csv
import io
import re
from itertools import repeat
from pathlib import Path
from typing import Any

from studio.errors import StudioError

XLSX_SUFFIXES = (".xlsx", ".xlsm")
# A workbook is a zip of XML. Real sheets compress about 5-20:1; a zip bomb (4 MB that
# unzips to 1 GB) far more. Refuse before openpyxl spends minutes parsing it.
MAX_UNZIPPED_BYTES = 512 << 20
MAX_RATIO = 100
_FORMULA_TAG = re.compile(rb"<f[\s>/]")
# Text a spreadsheet would take for a formula if typed; written as text with Excel's quote prefix.
FORMULA_STARTS = ("=", "+", "-", "@")


def write_value(cell: Any, value: Any) -> None:
    """Put `value` in an openpyxl cell. Text stays text, never a formula (a leading = + - @ gets Excel's
    quote prefix, so the file shows what the app wrote); control characters no workbook can hold are
    dropped (a caller that must refuse them checks first). Anything else is written as it is."""
    if isinstance(value, str):
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        cell.value = ILLEGAL_CHARACTERS_RE.sub("", value)
        cell.data_type = "s"
        if value.startswith(FORMULA_STARTS):
            cell.quotePrefix = True
    else:
        cell.value = value


class TableReadError(StudioError):
    """A table file that cannot be read as it is: a cell (row, cell name) or the whole file."""

    def __init__(self, message: str, row: int = 0, cell: str | None = None):
        self.message, self.row, self.cell = message, row, cell
        where = f"row {row}, cell {cell}: " if cell else ""
        super().__init__(where + message)


def cell_name(column_index: int, row: int) -> str:
    """Spreadsheet name of a cell from a 0-based column index and a 1-based row: (4, 7) -> 'E7'."""
    from openpyxl.utils import get_column_letter

    return f"{get_column_letter(column_index + 1)}{row}"


def is_xlsx(path: Path) -> bool:
    return path.suffix.lower() in XLSX_SUFFIXES


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def check_zip_size(path: Path) -> None:
    """TableReadError when the workbook would unzip to more than MAX_UNZIPPED_BYTES, or a
    member of more than 1 MiB is compressed more than MAX_RATIO:1."""
    import zipfile  # only for xlsx: the CSV score path stays light

    try:
        members = zipfile.ZipFile(path).infolist()
    except (zipfile.BadZipFile, OSError):
        return  # openpyxl reports what is wrong with it
    total = sum(member.file_size for member in members)
    packed = sum(member.compress_size for member in members)
    worst = max(members, key=lambda m: m.file_size / max(m.compress_size, 1), default=None)
    ratio = worst.file_size / max(worst.compress_size, 1) if worst is not None else 0.0
    if total > MAX_UNZIPPED_BYTES or (worst is not None and worst.file_size > 1 << 20 and ratio > MAX_RATIO):
        raise TableReadError(
            f"the workbook unzips to {total / 2**20:,.0f} MiB from {packed / 2**20:,.1f} MiB "
            f"(up to {ratio:,.0f}:1 in {worst.filename if worst else '?'}), beyond what this reader accepts "
            f"({MAX_UNZIPPED_BYTES >> 20} MiB, {MAX_RATIO}:1); save the sheet as CSV and read that instead")


def _xlsx_rows(path: Path) -> list[list[str]]:
    import openpyxl

    check_zip_size(path)
    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        sheet = workbook.worksheets[0]
        # Some writers leave a stale <dimension ref> that understates the rows; read-only
        # mode would stop there. Without it, openpyxl reads every row the sheet holds.
        sheet.reset_dimensions()
        sheet_path = getattr(sheet, "_worksheet_path", None)
        formulas = sheet_path is not None and _has_formulas(path, sheet_path)
        rows: list[list[str]] = []
        unset: set[tuple[int, int]] = set()
        for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
            rows.append([_cell_text(v) for v in values])
            if formulas:
                unset.update((number, column) for column, v in enumerate(values) if v is None)
    finally:
        workbook.close()
    if formulas:
        _refuse_formulas_without_values(path, unset)
    return rows


def _has_formulas(path: Path, sheet_path: str) -> bool:
    import zipfile

    with zipfile.ZipFile(path) as archive:
        with archive.open(sheet_path.lstrip("/")) as sheet:
            tail = b""
            while chunk := sheet.read(1 << 20):
                if _FORMULA_TAG.search(tail + chunk):
                    return True
                tail = chunk[-8:]
    return False


def _refuse_formulas_without_values(path: Path, unset: set[tuple[int, int]]) -> None:
    """TableReadError naming the first formula cell that has no saved value (`unset` holds
    the (row, column) of every cell read as None): the value is unknown, since openpyxl does
    not calculate, and reading it as empty would give a wrong answer."""
    import openpyxl

    workbook = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        sheet = workbook.worksheets[0]
        sheet.reset_dimensions()
        for number, cells in enumerate(sheet.iter_rows(values_only=True), start=1):
            for column, formula in enumerate(cells):
                if formula is None or (isinstance(formula, str) and not formula.startswith("=")):
                    continue
                if (number, column) in unset:
                    shown = (formula if isinstance(formula, str)
                             else getattr(formula, "text", None) or "an array formula")
                    raise TableReadError(
                        f"the formula {shown} has no saved value (the file was written by a program that does "
                        "not calculate); open it in a spreadsheet app and save it, or replace the formula by its value",
                        number, cell_name(column, number))
    finally:
        workbook.close()


def _plain_csv_text(path: Path) -> tuple[str, bool]:
    """The file's text, and whether it is quote-free with \\n line ends (after folding \\r\\n).

    Such a CSV line is exactly its comma-separated fields, so str.split reads it in C, far
    faster than csv.reader's state machine; anything else goes to csv.reader.
    """
    text = path.read_bytes().decode("utf-8-sig")  # no newline translation: csv handles \r\n
    if '"' in text:
        return text, False
    if "\r" in text and text.count("\r") == text.count("\r\n"):
        text = text.replace("\r\n", "\n")
    return text, "\r" not in text


def read_rows(path: Path) -> list[list[str]]:
    """Every row as a list of strings, as csv.reader (or the first sheet) gives them."""
    if is_xlsx(path):
        return _xlsx_rows(path)
    text, plain = _plain_csv_text(path)
    if not plain:
        return list(csv.reader(io.StringIO(text, newline="")))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rows = list(map(str.split, lines, repeat(",")))
    if "" in lines:  # csv.reader gives an empty line as no fields at all
        rows = [row if row != [""] else [] for row in rows]
    return rows
