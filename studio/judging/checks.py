"""Programmatic checks of a criterion (`check:` in a rubric) run on a submission's files.

A figure is matched as a number wherever it is: 4471, "4,471", "4 471" and 4471.0 are one figure in a
text, a cell's value or a constant inside a formula, while 14,471 and 4,471.5 are others. This is what
catches a superseded figure left in an operative table after a correction."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openpyxl.utils import coordinate_to_tuple, get_column_letter

from studio.collector import collector_paused
from studio.judging.evidence import EvidenceLimits, extract_evidence, outside_problem
from studio.judging.evidence_budget import ReadError
from studio.judging.evidence_text import decode, read_bytes
from studio.judging.evidence_xlsx import WorkbookCells, cell_text, sheet_prefix, value_text
from studio.model.checks import WORKBOOK_SUFFIXES, CheckKind, CheckUse, CriterionCheck

__all__ = ["CheckKind", "CheckResult", "CheckUse", "CriterionCheck", "as_number", "check_text", "numbers_in",
           "run_check"]

SHOWN_PLACES = 10
"""Places listed in a result's detail; the refs hold them all."""

_WHOLE = EvidenceLimits(file_chars=sys.maxsize, total_chars=sys.maxsize, cells=sys.maxsize, pages=sys.maxsize)
"""A check reads the whole file: a figure past the judge's evidence limit still counts."""

_SPACES = "[ \u00a0\u202f\u2009]"  # space, no-break space, narrow no-break space, thin space: thousands separators
_NUMBER = re.compile(
    rf"(?<![0-9.])(?:[0-9]{{1,3}}(?:(?:,[0-9]{{3}})+|(?:{_SPACES}[0-9]{{3}})+)|[0-9]+)(?:\.[0-9]+)?(?![0-9])(?!\.[0-9])")
_SIGNED = re.compile(rf"^\s*[-+\u2212(]?\s*(?P<number>{_NUMBER.pattern})\s*\)?\s*$")
_CELL_REFERENCE = re.compile(r"(?:'[^']*'|[A-Za-z_][\w.]*)?!?\$?[A-Za-z]{1,3}\$?[0-9]+(?![0-9(])")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    detail: str  # what was found where, in the judge's and the expert's words
    refs: tuple[str, ...]  # citable places: the file, the cells or the excerpts where the value is


def _token_value(token: str) -> float:
    return float(re.sub(_SPACES + "|,", "", token))


def as_number(value: Any) -> float | None:
    """A number, or a text that is one ("4,471", "4 471", "-4471.0", "(4,471)"); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = _SIGNED.match(value)
        if match:
            number = _token_value(match["number"])
            return -number if value.strip().startswith(("-", "\u2212", "(")) else number
    return None


def numbers_in(text: str) -> Iterator[float]:
    """Every figure written in a text (unsigned: a dash may be a minus, a range or a hyphen)."""
    for match in _NUMBER.finditer(text):
        yield _token_value(match[0])


def _same_figure(a: float, b: float) -> bool:
    return math.isclose(abs(a), abs(b), rel_tol=1e-9, abs_tol=1e-9)


def _text_has(text: str, value: Any, number: float | None) -> bool:
    if number is not None:
        return any(_same_figure(found, number) for found in numbers_in(text))
    wanted = _WHITESPACE.sub(" ", str(value)).strip().casefold()
    return wanted in _WHITESPACE.sub(" ", text).casefold()


def _cell_has(cell_value: Any, formula: str | None, value: Any, number: float | None) -> bool:
    if number is not None:
        if isinstance(cell_value, int | float) and not isinstance(cell_value, bool):
            if _same_figure(float(cell_value), number):
                return True
        elif isinstance(cell_value, str) and _text_has(cell_value, value, number):
            return True
        # a constant typed into a formula (=B4*4471) is the figure too; its cell references are not
        return formula is not None and _text_has(_CELL_REFERENCE.sub(" ", formula), value, number)
    return any(_text_has(text, value, None) for text in (value_text(cell_value) if cell_value is not None else "",
                                                             formula or ""))


def _places(refs: list[str]) -> str:
    shown = ", ".join(refs[:SHOWN_PLACES])
    return shown + (f" and {len(refs) - SHOWN_PLACES:,} more" if len(refs) > SHOWN_PLACES else "")


def _split_cell(cell: str) -> tuple[str, str]:
    """"'Cash Flow'!$B$4" -> ("Cash Flow", "B4")."""
    sheet, _, coordinate = cell.rpartition("!")
    if len(sheet) > 1 and sheet.startswith("'") and sheet.endswith("'"):
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, coordinate.replace("$", "").upper()


def _workbook_places(path: Path, rel: str, check: CriterionCheck, number: float | None) -> list[str]:
    sheet_name, coordinate = _split_cell(check.cell) if check.cell else (check.sheet, None)
    found = []
    with WorkbookCells(path) as book:
        if sheet_name is not None and sheet_name not in book.sheet_names:
            raise ReadError(f"has no sheet {sheet_name!r} (it has {', '.join(map(repr, book.sheet_names))})")
        for sheet, row, cells in book.rows(sheet_name=sheet_name):
            for column, cell_value, formula in cells:
                place = f"{get_column_letter(column)}{row}"
                if coordinate is not None and place != coordinate:
                    continue
                if _cell_has(cell_value, formula, check.value, number):
                    found.append(f"{rel}!{sheet_prefix(sheet)}{place}")
    return found


def _text_places(folder: Path, rel: str, check: CriterionCheck, number: float | None) -> list[str]:
    (file,) = extract_evidence(folder, [rel], _WHOLE).files
    if file.error is not None and not file.excerpts:
        raise ReadError(file.error)
    if file.kind in ("image", "other"):
        raise ReadError(f"is {'an image' if file.kind == 'image' else 'not a file'} whose text can be checked")
    places = [excerpt.ref for excerpt in file.excerpts if _text_has(excerpt.text, check.value, number)]
    if places and file.kind in ("markdown", "text", "csv", "json"):
        places = _exact_lines(folder / rel, places, check.value, number)
    return places


def _exact_lines(path: Path, blocks: list[str], value: Any, number: float | None) -> list[str]:
    """Narrow `path#Lm-Ln` blocks to the lines that hold the value (a block stays when a text spans lines)."""
    data, size = read_bytes(path, _WHOLE)
    lines = decode(data, size)[0].splitlines()
    places = []
    for ref in blocks:
        rel, _, fragment = ref.partition("#L")
        if not fragment:
            places.append(ref)
            continue
        first, _, last = fragment.partition("-L")
        found = [f"{rel}#L{n}" for n in range(int(first), int(last or first) + 1)
                 if n <= len(lines) and _text_has(lines[n - 1], value, number)]
        places += found or [ref]
    return places


def _contains(folder: Path, check: CriterionCheck) -> CheckResult:
    rel = check.path
    number = as_number(check.value)
    if rel.lower().endswith(WORKBOOK_SUFFIXES):
        places = _workbook_places(folder / rel, rel, check, number)
    else:
        places = _text_places(folder, rel, check, number)
    where = rel + (f" (cell {check.cell})" if check.cell else f" (sheet {check.sheet!r})" if check.sheet else "")
    what = f"{check.value!r}" + (" (as a number)" if number is not None else "")
    wanted = check.kind is CheckKind.CONTAINS
    if places:
        return CheckResult(wanted, f"{what} found in {_places(places)}", tuple(places))
    return CheckResult(not wanted, f"{what} is nowhere in {where}", (rel,))


def _equal(cell_value: Any, value: Any) -> bool:
    if isinstance(value, bool) or isinstance(cell_value, bool):
        return isinstance(value, bool) and isinstance(cell_value, bool) and value == cell_value
    number, found = as_number(value), as_number(cell_value)
    if number is not None and found is not None:
        return math.isclose(found, number, rel_tol=1e-9, abs_tol=1e-9)
    return _WHITESPACE.sub(" ", value_text(cell_value)).strip().casefold() == \
        _WHITESPACE.sub(" ", str(value)).strip().casefold()


def _cell_equals(folder: Path, check: CriterionCheck) -> CheckResult:
    assert check.cell is not None  # the model requires it for cell_equals
    sheet_name, coordinate = _split_cell(check.cell)
    ref = f"{check.path}!{sheet_prefix(sheet_name)}{coordinate}"
    with WorkbookCells(folder / check.path) as book:
        if sheet_name not in book.sheet_names:
            raise ReadError(f"has no sheet {sheet_name!r} (it has {', '.join(map(repr, book.sheet_names))})")
        row_number, column_number = coordinate_to_tuple(coordinate)
        held: tuple[Any, str | None] | None = None
        for _, row, cells in book.rows(sheet_name=sheet_name):
            if row > row_number:
                break
            if row == row_number:
                held = next(((v, f) for c, v, f in cells if c == column_number), None)
    if held is None:
        return CheckResult(False, f"{ref} is empty (expected {check.value!r})", (ref,))
    cell_value, formula = held
    if cell_value is None:
        return CheckResult(False, f"{ref} holds the formula {formula} with no computed value saved in the file "
                                  "(it was saved without calculating: open and save it in Excel or LibreOffice)",
                           (ref,))
    shown = cell_text(cell_value, formula)
    if _equal(cell_value, check.value):
        return CheckResult(True, f"{ref} = {shown}, equal to {check.value!r}", (ref,))
    return CheckResult(False, f"{ref} = {shown}, not {check.value!r}", (ref,))


def run_check(folder: Path, check: CriterionCheck) -> CheckResult:
    """Run a check on the submission in `folder`. A missing or broken file fails the check (the detail says
    why): a deliverable that is not there, or cannot be read, earns no credit from a check."""
    folder = Path(folder)
    path = folder / check.path
    problem = outside_problem(folder, check.path)
    if check.kind is CheckKind.FILE_EXISTS:
        if problem is None:
            return CheckResult(True, f"{check.path} exists ({path.stat().st_size:,} bytes)", (check.path,))
        return CheckResult(False, problem, ())
    if problem is not None:
        return CheckResult(False, f"{problem}: nothing to check", ())
    try:
        with collector_paused():
            if check.kind is CheckKind.CELL_EQUALS:
                return _cell_equals(folder, check)
            return _contains(folder, check)
    except ReadError as problem:
        return CheckResult(False, f"{check.path} cannot be checked: {problem}", (check.path,))


def check_text(check: CriterionCheck, result: CheckResult) -> str:
    """The result as one line of evidence for the judge (a check used `as: evidence`)."""
    what = {CheckKind.FILE_EXISTS: "exists", CheckKind.CONTAINS: f"contains {check.value!r}",
            CheckKind.NOT_CONTAINS: f"does not contain {check.value!r}",
            CheckKind.CELL_EQUALS: f"cell {check.cell} equals {check.value!r}"}[check.kind]
    return f"[check] {check.path} {what}: {'PASSED' if result.passed else 'FAILED'} - {result.detail}"
