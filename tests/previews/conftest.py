"""Real files for the preview tests: a PDF, a workbook and CSVs made here, and damaged copies."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pymupdf
import pytest

PDF_WORDS = ["Introduction", "Refinancing covenant", "EBITDA bridge"]
"""The known text of each page of the sample PDF (page 3 holds the word searched for)."""


def make_pdf(path: Path, pages: list[str]) -> Path:
    document = pymupdf.open()
    for text in pages:
        page = document.new_page(width=300, height=200)
        page.insert_text((20, 50), text, fontsize=14)
    document.save(path)
    document.close()
    return path


def make_workbook(path: Path) -> Path:
    book = openpyxl.Workbook()
    inputs = book.active
    inputs.title = "Inputs"
    inputs.append(["Item", "Amount"])
    inputs.append(["Revenue", 120])
    inputs.append(["Costs", 45])
    summary = book.create_sheet("Q1 Summary")
    summary["A1"] = "EBITDA"
    summary["B1"] = "=Inputs!B2-Inputs!B3"
    book.save(path)
    return path


def cache_values(path: Path) -> None:
    """Write the cached value Excel would have computed for the formula (openpyxl computes nothing)."""
    import re
    import zipfile

    with zipfile.ZipFile(path) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    for name, data in parts.items():
        if name.startswith("xl/worksheets/") and b"<f>" in data:
            # openpyxl writes the empty value as <v /> with the standard library, <v></v> with lxml
            parts[name] = re.sub(rb"</f><v\s*/>|</f><v>\s*</v>", b"</f><v>75</v>", data)
    with zipfile.ZipFile(path, "w") as target:
        for name, data in parts.items():
            target.writestr(name, data)


@pytest.fixture
def pdf_file(tmp_path: Path) -> Path:
    return make_pdf(tmp_path / "report.pdf", PDF_WORDS)


@pytest.fixture
def workbook_file(tmp_path: Path) -> Path:
    path = make_workbook(tmp_path / "model.xlsx")
    cache_values(path)
    return path


@pytest.fixture
def quoted_csv(tmp_path: Path) -> Path:
    path = tmp_path / "notes.csv"
    path.write_text('id,note,amount\n1,"first line\nsecond line",10\n2,"say ""hi""",20\n3,plain,30\n',
                    encoding="utf-8")
    return path
