"""Real submission files for the evidence and check tests: workbooks, PDFs, Word and PowerPoint files, images.

openpyxl writes a formula without the value Excel would compute and save next to it. Agents' workbooks
usually have both (saved by Excel or recalculated by LibreOffice), and LibreOffice is not on every
machine that runs these tests; so `write_workbook` writes the saved values the way Excel stores them:
a `<v>` next to the `<f>` of the cell in the sheet's XML."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pptx
import pymupdf
from pptx.util import Inches


def write_workbook(path: Path, sheets: dict[str, dict[str, Any]], saved: dict[str, float | str] | None = None,
                   formats: dict[str, str] | None = None) -> Path:
    """Sheets of {"B4": value or "=formula"}; `saved` gives the computed value of formula cells ("Debt!B4": 6;
    a text starting with # is an error value); `formats` number formats of cells ("Debt!B4": "yyyy-mm-dd")."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, cells in sheets.items():
        sheet = book.create_sheet(name)
        for coordinate, value in cells.items():
            sheet[coordinate] = value
    for where, number_format in (formats or {}).items():
        name, _, coordinate = where.rpartition("!")
        book[name][coordinate].number_format = number_format
    path.parent.mkdir(parents=True, exist_ok=True)
    book.save(path)
    if saved:
        _save_computed_values(path, list(sheets), saved)
    return path


def share_formula(path: Path, sheet_number: int, master: str, followers: list[str]) -> None:
    """Rewrite the formula of `master` as a shared formula that the `followers` reuse, as Excel saves a
    formula filled down (openpyxl writes each formula in full)."""
    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    part = f"xl/worksheets/sheet{sheet_number}.xml"
    xml = parts[part].decode()
    span = f"{master}:{followers[-1]}"
    xml, found = re.subn(rf'(<c r="{master}"[^>]*>)<f>', rf'\1<f t="shared" ref="{span}" si="0">', xml)
    assert found == 1
    for follower in followers:
        xml, found = re.subn(rf'(<c r="{follower}"[^>]*>)<f>[^<]*</f>', r'\1<f t="shared" si="0"/>', xml)
        assert found == 1
    parts[part] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def _save_computed_values(path: Path, names: list[str], saved: dict[str, float | str]) -> None:
    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    for where, value in saved.items():
        sheet, _, coordinate = where.rpartition("!")
        part = f"xl/worksheets/sheet{names.index(sheet) + 1}.xml"
        xml = parts[part].decode()
        if isinstance(value, bool):
            kind, value = ' t="b"', int(value)
        elif isinstance(value, str):  # a text result, or an error value such as #DIV/0!
            kind = ' t="e"' if value.startswith("#") else ' t="str"'
        else:
            kind = ""
        xml, found = re.subn(rf'(<c r="{coordinate}"[^>]*)><f>(.*?)</f>(?:<v\s*/>|<v\s*>\s*</v>)',
                             lambda match, kind=kind, value=value: f"{match[1]}{kind}><f>{match[2]}</f><v>{value}</v>",
                             xml)
        assert found == 1, f"no formula cell {where} to give a saved value"
        parts[part] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def write_pdf(path: Path, pages: list[str]) -> Path:
    """A PDF with one page per text ("" gives a page without text, like a scan)."""
    document = pymupdf.open()
    for text in pages:
        page = document.new_page()
        if text:
            page.insert_text((72, 72), text)
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(path)
    document.close()
    return path


def write_docx(path: Path) -> Path:
    """A memo: a title, a heading, paragraphs, a table, then one more paragraph."""
    document = docx.Document()
    document.add_heading("Refinancing memo", level=0)
    document.add_paragraph("The senior facility is 4,471 thousand.")
    document.add_heading("Covenants", level=1)
    document.add_paragraph("Leverage stays below 3.5x.")
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, (("Item", "Value"), ("DSCR", "1.42"))):
        for cell, value in zip(row.cells, values):
            cell.text = value
    document.add_paragraph("Signed off by the credit team.")
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(path))
    return path


def write_pptx(path: Path) -> Path:
    """Two slides: a title slide with speaker notes, and a slide with a text box and a table."""
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text = "Kestrel refinancing"
    first.placeholders[1].text = "Board update"
    first.notes_slide.notes_text_frame.text = "Mention the revised EBITDA."
    second = deck.slides.add_slide(deck.slide_layouts[6])
    second.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1)).text_frame.text = "Net debt 4,417"
    table = second.shapes.add_table(2, 2, Inches(1), Inches(3), Inches(4), Inches(1)).table
    for row, values in enumerate((("Year", "EBITDA"), ("2025", "812"))):
        for column, value in enumerate(values):
            table.cell(row, column).text = value
    path.parent.mkdir(parents=True, exist_ok=True)
    deck.save(str(path))
    return path


def write_png(path: Path, width: int = 40, height: int = 30) -> Path:
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, width, height), False)
    pixmap.clear_with(200)
    path.parent.mkdir(parents=True, exist_ok=True)
    pixmap.save(str(path))
    return path


def damage(path: Path) -> Path:
    """Cut the file in half, as an interrupted copy leaves it."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path
