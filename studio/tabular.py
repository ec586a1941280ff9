"""Reading a table file (CSV, or the first sheet of an xlsx) into strings: shared by every
importer of results (verdict tables, rating tables), so they accept the same files."""

from __future__ import annotations

import csv
import io
from itertools import repeat
from pathlib import Path

XLSX_SUFFIXES = (".xlsx", ".xlsm")


def cell_name(column_index: int, row: int) -> str:
    """Spreadsheet name of a cell from a 0-based column index and a 1-based row: (4, 7) -> 'E7'."""
    from openpyxl.utils import get_column_letter

    return f"{get_column_letter(column_index + 1)}{row}"


def is_xlsx(path: Path) -> bool:
    return path.suffix.lower() in XLSX_SUFFIXES


def _xlsx_rows(path: Path) -> list[list[str]]:
    import openpyxl

    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        sheet = workbook.worksheets[0]
        return [["" if v is None else (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)) for v in values]
                for values in sheet.iter_rows(values_only=True)]
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
