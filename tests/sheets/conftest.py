"""Shared set-up of the spreadsheet tests: the sample project copied to a temporary folder, its
rubrics exported to a real xlsx, and small helpers to edit that xlsx with openpyxl as Excel would."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet

from studio.sheets import export_rubrics
from studio.sheets.columns import COLUMNS, RUBRIC_SHEET
from studio.store.workspace import sample_project

T01 = "subtasks/T01/rubric.yaml"
FINAL = "final/rubric.yaml"
LETTER = {column.header: chr(ord("A") + index) for index, column in enumerate(COLUMNS)}


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


@pytest.fixture
def exported(sample: Path, tmp_path: Path) -> Path:
    out = tmp_path / "rubrics.xlsx"
    export_rubrics(sample, out)
    return out


def file_hashes(root: Path) -> dict[str, str]:
    """Every file under `root` by its relative path, with the SHA-256 of its bytes."""
    return {path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file()}


def row_of(sheet: Worksheet, rubric: str, key: str) -> int:
    """The row of criterion `key` of `rubric` (a reused one is found by its reuse_of)."""
    for row in range(2, sheet.max_row + 1):
        if sheet[f"A{row}"].value == rubric and key in (sheet[f"B{row}"].value, sheet[f"K{row}"].value):
            return row
    raise AssertionError(f"no row for {rubric} {key}")


def cell(sheet: Worksheet, rubric: str, key: str, header: str) -> str:
    """The reference (G7) of `header`'s cell in the row of `key`."""
    return f"{LETTER[header]}{row_of(sheet, rubric, key)}"


def put(sheet: Worksheet, ref: str, value: Any) -> None:
    """Type `value` into a cell as Excel keeps it: text stays text even when it starts with '='."""
    sheet[ref].value = value
    if isinstance(value, str):
        sheet[ref].data_type = "s"


def put_row(sheet: Worksheet, row: int, values: dict[str, Any]) -> None:
    for header, value in values.items():
        put(sheet, f"{LETTER[header]}{row}", value)


def edit_sheet(path: Path, edit: Callable[[Worksheet], None]) -> None:
    """Open the xlsx, let `edit` change the rubric sheet, save it in place."""
    workbook = load_workbook(path)
    edit(workbook[RUBRIC_SHEET])
    workbook.save(path)
