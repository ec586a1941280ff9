"""The edits a mutant makes to one file of a submission, and the readers that find where they can be made.

Figures are matched as written, never inside a longer number: 38.9 matches "EUR 38.9m" and a workbook
cell holding 38.9, not 138.9 or 38.95. Markdown is read by lines: `##` headings (and deeper) open
sections, `|` rows make tables. Workbooks are edited with openpyxl, which keeps values, formulas and
styles (a chart or picture in a mutated workbook is not kept; the reference's own file is never written).
A cell holding a formula is left alone: its value is worked out by Excel, not stored by the expert.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.mutation.reference import MutationError

__all__ = [
    "DropLines", "DropSheet", "Edit", "RemoveFile", "ReplaceFigure", "SetTableCell", "apply_edit", "figure_places",
    "figures_in", "markdown_sections", "markdown_tables", "perturbed", "sheet_names",
]

TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".csv")
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")

# A number as deliverables write it: 1,234.5 / 38.9 / 4.31 / 692.
_NUMBER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])(?![.,]\d)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_STATUS_HEADER = re.compile(r"\b(status|state|decision|approval|position|outcome)\b", re.IGNORECASE)


def is_text(path: str) -> bool:
    return path.lower().endswith(TEXT_SUFFIXES)


def is_workbook(path: str) -> bool:
    return path.lower().endswith(WORKBOOK_SUFFIXES)


# -- figures ------------------------------------------------------------------------------------------
def _figure_pattern(figure: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\d])(?<![\d][.,]){re.escape(figure)}(?![\d])(?![.,]\d)")


def _number(figure: str) -> float | None:
    try:
        return float(figure.replace(",", ""))
    except ValueError:
        return None


def figures_in(text: str) -> list[str]:
    """The distinctive figures of a text, in order, once each: numbers with a decimal part or of three
    digits and more, years (1900-2100 written without a decimal) left out."""
    found: dict[str, None] = {}
    for match in _NUMBER.finditer(text):
        figure = match.group(0)
        plain = figure.replace(",", "")
        if "." not in plain and (len(plain) < 3 or 1900 <= int(plain) <= 2100):
            continue
        found.setdefault(figure, None)
    return list(found)


def perturbed(figure: str) -> str:
    """A different figure written the same way: about 10% more, to the same decimals (a figure a
    careless copy could leave in one file of two)."""
    plain = figure.replace(",", "")
    decimals = len(plain.split(".", 1)[1]) if "." in plain else 0
    value = float(plain)
    changed = round(value * 1.1, decimals)
    if changed == value:
        changed = value + 10 ** -decimals
    text = f"{changed:,.{decimals}f}" if "," in figure else f"{changed:.{decimals}f}"
    return text


def _cell_matches(value: Any, figure: str, number: float | None) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float):
        return number is not None and math.isclose(float(value), number, rel_tol=1e-9, abs_tol=1e-12)
    return isinstance(value, str) and not value.startswith("=") and _figure_pattern(figure).search(value) is not None


def figure_places(path: Path, rel: str, figure: str) -> list[str]:
    """Where `figure` is written in the file: `rel:LINE` for a text, `rel!Sheet!B4` for a workbook cell."""
    if is_text(rel):
        pattern = _figure_pattern(figure)
        return [f"{rel}:{number}" for number, line in enumerate(_read_lines(path), 1) if pattern.search(line)]
    if is_workbook(rel):
        number = _number(figure)
        workbook = _open_workbook(path, rel)
        places = []
        for sheet in workbook.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    if _cell_matches(cell.value, figure, number):
                        places.append(f"{rel}!{sheet.title}!{cell.coordinate}")
        workbook.close()
        return places
    return []


def file_text(path: Path, rel: str) -> str:
    """A file's words for finding figures: a text as it is, a workbook as its cells' values."""
    if is_text(rel):
        return "\n".join(_read_lines(path))
    if is_workbook(rel):
        workbook = _open_workbook(path, rel)
        parts = [str(cell.value) for sheet in workbook.worksheets for row in sheet.iter_rows() for cell in row
                 if cell.value is not None and not (isinstance(cell.value, str) and cell.value.startswith("="))]
        workbook.close()
        return "\n".join(parts)
    return ""


# -- Markdown -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Section:
    heading: str
    level: int
    start: int  # 0-based index of the heading line
    end: int  # one past its last line


def markdown_sections(lines: list[str]) -> list[Section]:
    """Every section opened by a heading of level 2 or deeper (level 1 is the document's title), up to the
    next heading of its level or higher; headings inside fenced code are text."""
    headings: list[tuple[int, int, str]] = []
    fenced = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            headings.append((index, len(match.group(1)), match.group(2).strip()))
    sections = []
    for position, (index, level, title) in enumerate(headings):
        if level < 2:
            continue
        end = len(lines)
        for later, later_level, _ in headings[position + 1:]:
            if later_level <= level:
                end = later
                break
        sections.append(Section(title, level, index, end))
    return sections


@dataclass(frozen=True)
class TableRow:
    line: int  # 0-based
    cells: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[TableRow, ...]

    def status_column(self) -> int | None:
        """The first column whose header names a status, a state or a decision."""
        for index, name in enumerate(self.header):
            if _STATUS_HEADER.search(name):
                return index
        return None


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", body)]


def _is_separator(line: str) -> bool:
    cells = _cells(line)
    return bool(cells) and all(re.fullmatch(r":?-{3,}:?", cell) for cell in cells)


def markdown_tables(lines: list[str]) -> list[Table]:
    """Pipe tables: a header row, a separator row, then rows, each starting with '|'."""
    tables = []
    index = 0
    while index < len(lines) - 1:
        line = lines[index]
        if line.lstrip().startswith("|") and _is_separator(lines[index + 1]):
            header = tuple(_cells(line))
            rows = []
            index += 2
            while index < len(lines) and lines[index].lstrip().startswith("|"):
                rows.append(TableRow(index, tuple(_cells(lines[index]))))
                index += 1
            tables.append(Table(header, tuple(rows)))
            continue
        index += 1
    return tables


def _set_cell(line: str, column: int, value: str) -> str:
    indent = line[: len(line) - len(line.lstrip())]
    cells = _cells(line)
    cells[column] = value
    return indent + "| " + " | ".join(cells) + " |"


# -- reading --------------------------------------------------------------------------------------------
def _read_lines(path: Path) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise MutationError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _write_lines(path: Path, lines: list[str]) -> None:
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _open_workbook(path: Path, rel: str) -> Any:
    from openpyxl import load_workbook

    try:
        return load_workbook(path, keep_vba=rel.lower().endswith(".xlsm"))
    except Exception as exc:  # openpyxl raises zipfile, XML and key errors alike for a broken file
        raise MutationError(f"{path}: not a workbook openpyxl can read ({type(exc).__name__}: {exc}); the reference "
                            "package must hold files that open") from None


def sheet_names(path: Path, rel: str) -> list[str]:
    workbook = _open_workbook(path, rel)
    names = list(workbook.sheetnames)
    workbook.close()
    return names


# -- the edits --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReplaceFigure:
    """Every `old` in the file becomes `new` (a text's words, a workbook's values)."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class SetTableCell:
    """One cell of a Markdown table row (0-based line and column) gets `value` instead of `was`."""

    path: str
    line: int
    column: int
    value: str
    was: str


@dataclass(frozen=True)
class RemoveFile:
    path: str


@dataclass(frozen=True)
class DropLines:
    """Lines start..end-1 (0-based) of a text leave it: a section dropped."""

    path: str
    start: int
    end: int


@dataclass(frozen=True)
class DropSheet:
    path: str
    sheet: str


Edit = ReplaceFigure | SetTableCell | RemoveFile | DropLines | DropSheet

EDIT_KINDS: dict[str, type] = {"replace-figure": ReplaceFigure, "set-table-cell": SetTableCell,
                               "remove-file": RemoveFile, "drop-lines": DropLines, "drop-sheet": DropSheet}


def edit_to_json(edit: Edit) -> dict[str, Any]:
    name = next(key for key, kind in EDIT_KINDS.items() if isinstance(edit, kind))
    return {"op": name, **edit.__dict__}


def edit_from_json(data: dict[str, Any]) -> Edit:
    kind = EDIT_KINDS[data["op"]]
    return kind(**{key: value for key, value in data.items() if key != "op"})


def apply_edit(edit: Edit, folder: Path) -> list[str]:
    """Make `edit` in the submission in `folder`; the places it changed. MutationError when it changes nothing
    (the reference no longer holds what the mutant was made from)."""
    path = Path(folder) / edit.path
    if not path.is_file():
        raise MutationError(f"{edit.path}: not in the submission, nothing to mutate")
    if isinstance(edit, RemoveFile):
        path.unlink()
        return [edit.path]
    if isinstance(edit, ReplaceFigure):
        places = _replace_figure(path, edit)
    elif isinstance(edit, SetTableCell):
        lines = _read_lines(path)
        if edit.line >= len(lines):
            places = []
        else:
            lines[edit.line] = _set_cell(lines[edit.line], edit.column, edit.value)
            _write_lines(path, lines)
            places = [f"{edit.path}:{edit.line + 1}"]
    elif isinstance(edit, DropLines):
        lines = _read_lines(path)
        places = [f"{edit.path}:{edit.start + 1}-{edit.end}"] if edit.start < len(lines) else []
        del lines[edit.start:edit.end]
        _write_lines(path, lines)
    else:
        workbook = _open_workbook(path, edit.path)
        places = []
        if edit.sheet in workbook.sheetnames and len(workbook.sheetnames) > 1:
            del workbook[edit.sheet]
            workbook.save(path)
            places = [f"{edit.path}!{edit.sheet}"]
        workbook.close()
    if not places:
        raise MutationError(f"{edit.path}: the mutant's edit finds nothing to change: make the mutants again")
    return places


def _replace_figure(path: Path, edit: ReplaceFigure) -> list[str]:
    pattern = _figure_pattern(edit.old)
    if is_text(edit.path):
        lines = _read_lines(path)
        places = []
        for index, line in enumerate(lines):
            changed = pattern.sub(edit.new, line)
            if changed != line:
                lines[index] = changed
                places.append(f"{edit.path}:{index + 1}")
        if places:
            _write_lines(path, lines)
        return places
    if not is_workbook(edit.path):
        return []
    workbook = _open_workbook(path, edit.path)
    number, new_number = _number(edit.old), _number(edit.new)
    places = []
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if not _cell_matches(cell.value, edit.old, number):
                    continue
                if isinstance(cell.value, str):
                    cell.value = pattern.sub(edit.new, cell.value)
                else:
                    cell.value = int(new_number) if new_number is not None and new_number.is_integer() and \
                        isinstance(cell.value, int) else new_number
                places.append(f"{edit.path}!{sheet.title}!{cell.coordinate}")
    if places:
        workbook.save(path)
    workbook.close()
    return places
