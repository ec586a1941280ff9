"""Reading a table file (CSV, or the first sheet of an xlsx) into strings: shared by every
importer of results (verdict tables, rating tables), so they accept the same files."""

from __future__ import annotations

import csv
import io
from itertools import repeat
from pathlib import Path
from typing import NamedTuple

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


class Columns(NamedTuple):
    header: list[str]
    columns: list[list[str]]
    trimmed: bool  # no cell starts or ends with whitespace: str.strip would change nothing


# ASCII characters str.isspace() accepts, besides the line ends handled as separators.
_ASCII_BLANKS = (" ", "\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")


def _trimmed(text: str) -> bool:
    """True if `text` is ASCII without a single blank: then no cell can have surrounding
    whitespace. Machine-written tables usually are; a text with blanks gets stripped cells."""
    return text.isascii() and not any(blank in text for blank in _ASCII_BLANKS)


def read_columns(path: Path) -> Columns | None:
    """Header and columns of a plain CSV (no quotes, no empty lines) whose every line has the
    same number of fields, in a few C-level passes; None for anything else (then read_rows)."""
    if is_xlsx(path):
        return None
    text = path.read_bytes().decode("utf-8-sig")
    if '"' in text or not text:
        return None
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        return None  # bare carriage returns: let csv.reader decide
    if text.endswith("\n"):
        text = text[:-1]
    if not text or "\n\n" in text or text.startswith("\n") or text.endswith("\n"):
        return None  # csv.reader reads an empty line as a row with no fields
    lines = text.count("\n") + 1
    first_end = text.find("\n")
    width = text.count(",", 0, first_end if first_end >= 0 else len(text)) + 1
    # Line ends become "\n,": one split yields every cell, each row's last one ending in "\n".
    cells = text.replace("\n", "\n,").split(",")
    if len(cells) != lines * width:
        return None
    last = cells[width - 1::width]
    # lines - 1 newlines in all, each ending a row's last cell: so every row has `width` cells.
    if not all(map(str.endswith, last[:-1], repeat("\n"))):
        return None
    header = cells[:width - 1] + [last[0].rstrip("\n")]
    columns = [cells[width + k::width] for k in range(width - 1)]
    columns.append([cell[:-1] for cell in last[1:-1]] + last[-1:] if lines > 1 else [])
    return Columns(header, columns, _trimmed(text))
