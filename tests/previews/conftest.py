"""Real files for the preview tests: a PDF, a workbook, CSVs, a Word document and a presentation made here,
and damaged copies."""

from __future__ import annotations

from pathlib import Path

import docx
import openpyxl
import pptx
import pymupdf
import pytest
from pptx.util import Inches

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


def make_docx(path: Path, filler: int = 0) -> Path:
    """A memo: a title, a heading, a paragraph with a bold word, a numbered list of three, a bullet, a table,
    then (after `filler` more paragraphs) a second heading and a closing paragraph.

    Paragraphs, as the evidence numbers them: 1 title, 2 heading, 3 body, 4-6 numbered, 7 bullet, then the
    filler, then the second heading and the closing one; the table is table 1."""
    document = docx.Document()
    document.add_heading("Refinancing memo", level=0)
    document.add_heading("Covenants", level=1)
    body = document.add_paragraph("Leverage stays ")
    body.add_run("below 3.5x").bold = True
    body.add_run(" all year.")
    for step in ("Sign the term sheet", "Repay the bridge", "Reset the hedges"):
        document.add_paragraph(step, style="List Number")
    document.add_paragraph("Lenders meet monthly", style="List Bullet")
    table = document.add_table(rows=2, cols=3)
    for row, values in zip(table.rows, (("Item", "2025", "2026"), ("DSCR", "1.42", "1.55")), strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    for number in range(filler):
        document.add_paragraph(f"Filler paragraph {number + 1}.")
    document.add_heading("Next steps", level=2)
    document.add_paragraph("Signed off by the credit team.")
    document.save(str(path))
    return path


def make_pptx(path: Path, filler: int = 0) -> Path:
    """Two slides with speaker notes - a title slide, a slide with a text box and a table - then `filler`
    title-only slides."""
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text = "Kestrel refinancing"
    first.placeholders[1].text = "Board update"
    first.notes_slide.notes_text_frame.text = "Mention the revised EBITDA."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Net debt"
    second.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1)).text_frame.text = "Net debt 4,417"
    table = second.shapes.add_table(2, 2, Inches(1), Inches(3), Inches(4), Inches(1)).table
    for row, values in enumerate((("Year", "EBITDA"), ("2025", "812"))):
        for column, value in enumerate(values):
            table.cell(row, column).text = value
    second.notes_slide.notes_text_frame.text = "The table is from the model."
    for number in range(filler):
        deck.slides.add_slide(deck.slide_layouts[5]).shapes.title.text = f"Appendix {number + 1}"
    deck.save(str(path))
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
