"""A rubric workbook in the expert's own layout (columns Task, Criterion, Points, Category ...), read through
a column mapping: which of its columns holds each criterion field, a value for fields no column holds
(every row of subtask T03's rubric, target checkpoint), and the expert's words for our choices (Category
"Accuracy" is dimension correctness). The rows then go through the same cell-by-cell checks as an exported
sheet, each error at the expert's own cell.

A mapping is remembered for the workbook's shape (its sheet's name and headers), so the next workbook of the
same layout is read the same way without asking again."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from openpyxl.utils.exceptions import InvalidFileException

from studio.sheets.columns import BY_FIELD, COLUMNS, header_key, plain
from studio.sheets.errors import CellError, SheetError, SheetFileError
from studio.sheets.workbook import SheetCell, SheetRow

__all__ = ["ColumnMapping", "FIELD_NAMES", "MappingStore", "default_store", "guess_mapping", "read_mapped_rows",
           "sheet_headers", "shape_key"]

# The fields a mapping can fill, with the words an expert reads for them.
FIELD_NAMES = {column.field: column.header.replace("_", " ") for column in COLUMNS}


@dataclass
class ColumnMapping:
    sheet: str
    columns: dict[str, str] = field(default_factory=dict)  # criterion field -> the workbook's header
    values: dict[str, str] = field(default_factory=dict)  # criterion field -> the value of every row
    words: dict[str, dict[str, str]] = field(default_factory=dict)  # field -> the expert's word -> ours

    def to_json(self) -> dict[str, Any]:
        return {"sheet": self.sheet, "columns": self.columns, "values": self.values, "words": self.words}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ColumnMapping:
        return cls(str(data["sheet"]), {str(k): str(v) for k, v in data.get("columns", {}).items()},
                   {str(k): str(v) for k, v in data.get("values", {}).items()},
                   {str(k): {str(a): str(b) for a, b in v.items()} for k, v in data.get("words", {}).items()})

    def check(self) -> None:
        unknown = [name for name in [*self.columns, *self.values, *self.words] if name not in BY_FIELD]
        if unknown:
            raise SheetFileError(f"no criterion field {', '.join(sorted(set(unknown)))}: map any of "
                                 f"{', '.join(BY_FIELD)}")
        both = sorted(set(self.columns) & set(self.values))
        if both:
            raise SheetFileError(f"{', '.join(both)} is given both a column and a value: keep one")
        if "text" not in self.columns and "reuse_of" not in self.columns:
            raise SheetFileError("map the column that holds each criterion's text (text=HEADER)")


def _open(path: Path) -> Any:
    if not path.is_file():
        raise SheetFileError(f"{path}: no such file")
    try:
        return load_workbook(path, read_only=True, data_only=False)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise SheetFileError(f"{path}: not an Excel workbook (.xlsx) ({exc}): save it from Excel as an .xlsx "
                             "workbook") from None
    except OSError as exc:
        raise SheetFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def sheet_headers(path: Path) -> dict[str, list[str]]:
    """Each sheet of the workbook with the texts of its first row (its headers), in order."""
    workbook = _open(Path(path))
    try:
        found = {}
        for sheet in workbook.worksheets:
            sheet.reset_dimensions()
            first = next(sheet.iter_rows(max_row=1), ())
            found[sheet.title] = [str(plain(cell.value)) for cell in first if plain(cell.value) is not None]
        return found
    finally:
        workbook.close()


def shape_key(sheet: str, headers: list[str]) -> str:
    """What makes two workbooks the same layout: the sheet's name and its headers."""
    parts = [header_key(sheet), [header_key(h) for h in headers]]
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:16]


class MappingStore:
    """Remembered mappings by workbook shape, one JSON file in the user's settings folder."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _all(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def find(self, workbook: Path) -> ColumnMapping | None:
        """The mapping remembered for one of the workbook's sheets, if any."""
        known = self._all()
        for sheet, headers in sheet_headers(workbook).items():
            data = known.get(shape_key(sheet, headers))
            if isinstance(data, dict):
                try:
                    return ColumnMapping.from_json(data)
                except (KeyError, TypeError, AttributeError):
                    continue
        return None

    def remember(self, workbook: Path, mapping: ColumnMapping) -> None:
        from studio.store.atomic import write_atomic

        headers = sheet_headers(workbook).get(mapping.sheet)
        if headers is None:
            return
        known = self._all()
        known[shape_key(mapping.sheet, headers)] = mapping.to_json()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, (json.dumps(known, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))


def default_store() -> MappingStore:
    """The user's remembered mappings: sheet-mappings.json in the settings folder (docs/cli.md)."""
    from studio.preferences import config_dir

    return MappingStore(config_dir() / "sheet-mappings.json")


# Headers an expert's workbook commonly gives each field (matched as header_key matches).
_SYNONYMS = {
    "rubric": ("rubric", "task", "subtask", "checkpoint", "step", "scope"),
    "id": ("id", "ref", "reference", "criterion id", "no", "number"),
    "text": ("text", "criterion", "requirement", "description", "statement", "check"),
    "covers": ("covers", "deliverable", "file", "artifact", "output"),
    "target": ("target",),
    "dimension": ("dimension", "category", "quality", "aspect", "area"),
    "weight": ("weight", "points", "score", "marks", "value"),
    "gate": ("gate", "fatal", "knock out"),
    "requires": ("requires", "depends on"),
    "propagates": ("propagates",),
    "reuse_of": ("reuse of", "reuses"),
    "review.status": ("status", "review status"),
    "review.reviewer": ("reviewer", "owner", "author"),
    "review.note": ("note", "notes", "comment", "comments"),
}


def guess_mapping(sheet: str, headers: list[str]) -> ColumnMapping:
    """A first mapping from the headers' words (each header used once), for the expert to correct."""
    columns: dict[str, str] = {}
    used: set[str] = set()
    for name, words in _SYNONYMS.items():
        for header in headers:
            if header not in used and header_key(header) in words:
                columns[name] = header
                used.add(header)
                break
    return ColumnMapping(sheet, columns)


def read_mapped_rows(path: Path, mapping: ColumnMapping, new_id: Callable[[str | None], str]) -> list[SheetRow]:
    """The workbook's rows as rubric-sheet rows: each criterion field from its mapped column (the expert's
    words turned into ours), from the mapping's value, or empty; a criterion without an id column gets
    `new_id(rubric)`. SheetFileError for a missing sheet, SheetError for a mapped header the sheet lacks."""
    mapping.check()
    path = Path(path)
    workbook = _open(path)
    try:
        if mapping.sheet not in workbook.sheetnames:
            raise SheetFileError(f"{path}: no sheet named '{mapping.sheet}' (its sheets: "
                                 f"{', '.join(workbook.sheetnames)}): map the sheet that holds the criteria")
        sheet = workbook[mapping.sheet]
        sheet.reset_dimensions()
        rows = sheet.iter_rows()
        header = [plain(cell.value) for cell in next(rows, ())]
        by_header = {header_key(str(text)): index for index, text in reversed(list(enumerate(header)))
                     if text is not None}
        positions: dict[str, int] = {}
        errors = []
        for name, wanted in mapping.columns.items():
            index = by_header.get(header_key(wanted))
            if index is None:
                listed = ", ".join(str(text) for text in header if text is not None) or "none"
                errors.append(CellError(1, 1, mapping.sheet, "A1", f"no column '{wanted}' for {FIELD_NAMES[name]}: "
                                                                   f"map one of its headers ({listed})"))
            else:
                positions[name] = index
        if errors:
            raise SheetError(errors)
        found = []
        for number, cells in enumerate(rows, start=2):
            values: dict[str, SheetCell] = {}
            for column in COLUMNS:
                name = column.field
                if name in positions:
                    index = positions[name]
                    cell = cells[index] if index < len(cells) else None
                    value = cell.value if cell is not None else None
                    words = mapping.words.get(name)
                    text = plain(value)
                    if words and text is not None and text in words:
                        value = words[text]
                    values[name] = SheetCell(value, getattr(cell, "data_type", None), number, index + 1, mapping.sheet)
                else:
                    values[name] = SheetCell(mapping.values.get(name), None, number, 0, mapping.sheet)
            row = SheetRow(number, values)
            if all(plain(values[name].value) is None for name in positions):
                continue  # a blank row of the workbook
            if "id" not in positions and "reuse_of" not in positions:
                rubric = plain(values["rubric"].value)
                values["id"] = SheetCell(new_id(str(rubric) if rubric is not None else None), None, number, 0,
                                         mapping.sheet)
                row = SheetRow(number, values)
            found.append(row)
        return found
    finally:
        workbook.close()
