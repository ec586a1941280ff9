from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pptx
import pytest
from docx.oxml.ns import qn

from studio.errors import StudioError
from studio.previews import PreviewError, preview_kind
from studio.previews.office import Paragraph, SlideDeck, Span, Table, TextFrame, WordDocument, read_slides, read_word
from studio.previews.pdf import PdfPreview
from studio.previews.table import CsvPreview
from studio.previews.text import read_image, read_text
from studio.previews.workbook import WorkbookPreview, cell_ref
from tests.previews.conftest import make_docx, make_pptx


def test_preview_error_is_a_studio_error() -> None:
    assert issubclass(PreviewError, StudioError)


@pytest.mark.parametrize(("name", "kind"), [("a.PDF", "pdf"), ("b.xlsx", "xlsx"), ("c.csv", "csv"),
                                            ("d.md", "markdown"), ("e.png", "image"), ("f.txt", "text"),
                                            ("g.DOCX", "docx"), ("h.pptx", "pptx")])
def test_kind_by_suffix(name: str, kind: str) -> None:
    assert preview_kind(name) == kind


# -- PDF ---------------------------------------------------------------------------------------
def test_pdf_pages_render_and_search(pdf_file: Path) -> None:
    pdf = PdfPreview(pdf_file)
    assert pdf.page_count == 3
    page = pdf.render(1, zoom=2.0)
    assert (page.width, page.height) == (600, 400)
    assert len(page.samples) == page.stride * page.height
    assert page.png().startswith(b"\x89PNG")
    assert "Refinancing covenant" in pdf.page_text(1)
    hits = pdf.search("ebitda")
    assert [hit.page for hit in hits] == [2]
    x0, y0, x1, y1 = hits[0].rect
    assert 15 < x0 < x1 and y0 < 50 < y1
    with pytest.raises(PreviewError, match="has no page 4"):
        pdf.render(3)
    pdf.close()


def test_pdf_page_is_not_blank(pdf_file: Path) -> None:
    pdf = PdfPreview(pdf_file)
    page = pdf.render(0)
    pdf.close()
    assert min(page.samples) < 100  # dark text pixels on the white page


def test_not_a_pdf(tmp_path: Path) -> None:
    path = tmp_path / "fake.pdf"
    path.write_text("hello, I am text")
    with pytest.raises(PreviewError, match=r"fake\.pdf: not a PDF \(it starts with b'hello, I'\)"):
        PdfPreview(path)


def test_truncated_pdf(pdf_file: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "cut.pdf"
    damaged.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 10)
    with pytest.raises(PreviewError, match=r"cut\.pdf: the PDF is damaged"):
        PdfPreview(damaged)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PreviewError, match=r"gone\.pdf: cannot be read"):
        PdfPreview(tmp_path / "gone.pdf")


# -- workbooks ---------------------------------------------------------------------------------
def test_workbook_sheets_cells_and_formulas(workbook_file: Path) -> None:
    book = WorkbookPreview(workbook_file)
    assert book.sheet_names == ["Inputs", "Q1 Summary"]
    assert book.size("Inputs") == (3, 2)
    assert book.read("Inputs", 2, 3, 1, 2) == [["Revenue", 120], ["Costs", 45]]
    assert book.read("Inputs", 3, 4, 2, 3) == [[45, None], [None, None]]
    cell = book.cell("Q1 Summary", 1, 2)
    assert cell.formula == "=Inputs!B2-Inputs!B3"
    assert cell.value == 75
    assert cell.ref == "'Q1 Summary'!B1"
    assert book.cell("Inputs", 2, 2).formula is None
    book.close()


def test_cell_refs() -> None:
    assert cell_ref("Inputs", 12, 28) == "Inputs!AB12"
    assert cell_ref("Bob's", 1, 1) == "'Bob''s'!A1"


def test_workbook_values_are_read_only_when_asked(workbook_file: Path) -> None:
    book = WorkbookPreview(workbook_file)
    assert book._formulas is None  # the formulas view opens when it is first asked for
    book.read("Q1 Summary", 1, 1, 1, 2, formulas=True)
    assert book._formulas is not None
    book.close()


def test_not_a_workbook(tmp_path: Path) -> None:
    path = tmp_path / "model.xlsx"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(PreviewError, match=r"model\.xlsx: not an Excel workbook"):
        WorkbookPreview(path)


def test_damaged_workbook(workbook_file: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "cut.xlsx"
    damaged.write_bytes(workbook_file.read_bytes()[:600])
    with pytest.raises(PreviewError, match=r"cut\.xlsx: the workbook is damaged"):
        WorkbookPreview(damaged)


# -- CSV ---------------------------------------------------------------------------------------
def test_csv_quoted_newlines(quoted_csv: Path) -> None:
    table = CsvPreview(quoted_csv)
    assert table.done and table.row_count == 4
    assert table.header == ["id", "note", "amount"]
    assert table.rows(1, 2) == [["1", "first line\nsecond line", "10"], ["2", 'say "hi"', "20"]]
    assert table.rows(3, 5) == [["3", "plain", "30"]]
    table.close()


def test_csv_without_final_newline_and_semicolons(tmp_path: Path) -> None:
    path = tmp_path / "eu.csv"
    path.write_text("a;b\n1;2\n3;4", encoding="utf-8")
    table = CsvPreview(path)
    assert table.delimiter == ";"
    assert table.row_count == 3
    assert table.rows(2, 1) == [["3", "4"]]
    table.close()


def test_large_csv_is_indexed_in_chunks(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("w", encoding="utf-8") as handle:
        handle.write("id,label,amount\n")
        for number in range(400_000):
            handle.write(f'{number},"row, {number}",{number * 3}\n')
    assert path.stat().st_size > 10_000_000
    table = CsvPreview(path)
    first = table.row_count
    assert 100 < first < 400_001 and not table.done  # the first screen, before the scan
    assert table.rows(1, 2) == [["0", "row, 0", "0"], ["1", "row, 1", "3"]]
    counts = []
    while not table.scan_more(budget=2 * 1024 * 1024):
        counts.append(table.row_count)
    assert len(counts) >= 4 and counts == sorted(counts)
    assert table.row_count == 400_001
    assert table.rows(400_000, 1) == [["399999", "row, 399999", str(399_999 * 3)]]
    assert table.rows(123_457, 1) == [["123456", "row, 123456", str(123_456 * 3)]]
    table.close()


def test_quoted_newline_across_chunks(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    note = "x" * 100 + "\n" + "y" * 100
    path.write_text("id,note\n" + "".join(f'{n},"{note}"\n' for n in range(2000)), encoding="utf-8")
    table = CsvPreview(path)
    while not table.scan_more(budget=1000):  # chunk edges fall inside quoted fields
        pass
    assert table.row_count == 2001
    assert table.rows(2000, 1) == [["1999", note]]
    table.close()


def test_unclosed_quote_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text('a,b\n1,"open\n2,3\n', encoding="utf-8")
    with pytest.raises(PreviewError, match=r"bad\.csv: row 2 opens a quoted field that is never closed"):
        CsvPreview(path)


def test_binary_file_is_not_a_csv(tmp_path: Path) -> None:
    path = tmp_path / "blob.csv"
    path.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(PreviewError, match=r"blob\.csv: is not a CSV text file"):
        CsvPreview(path)


# -- text and images -----------------------------------------------------------------------------
def test_text_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Title\n" + "a" * 5000, encoding="utf-8")
    whole = read_text(path)
    assert whole.text.startswith("# Title") and not whole.truncated
    cut = read_text(path, cap=100)
    assert len(cut.text) == 100 and cut.truncated and cut.size == 5008


def test_binary_text_and_missing_image(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"\x89PNG\x00\x00")
    with pytest.raises(PreviewError, match=r"x\.txt: is not a text file"):
        read_text(path)
    with pytest.raises(PreviewError, match=r"none\.png: cannot be read"):
        read_image(tmp_path / "none.png")


def test_a_reader_dropped_without_close_lets_go_of_its_file(tmp_path: Path, workbook_file: Path) -> None:
    import gc
    import warnings

    from studio.previews.table import CsvPreview
    from studio.previews.workbook import WorkbookPreview

    table = tmp_path / "rates.csv"
    table.write_text("date,rate\n2026-01-01,2.1\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        csv_reader = CsvPreview(table)
        assert csv_reader.rows(1, 1) == [["2026-01-01", "2.1"]]
        book = WorkbookPreview(workbook_file)
        book.read(book.sheet_names[0], 1, 1, 1, 1)
        del csv_reader, book  # as when a preview's window closes without closing it
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


# -- Word and PowerPoint ---------------------------------------------------------------------------
def test_docx_body_in_order_with_headings_lists_and_a_table(tmp_path: Path) -> None:
    preview = read_word(make_docx(tmp_path / "memo.docx"))
    assert not preview.truncated
    shown = [(block.ref, block.text if isinstance(block, Paragraph) else block.rows) for block in preview.blocks]
    assert shown == [
        ("p=1", "Refinancing memo"),
        ("p=2", "Covenants"),
        ("p=3", "Leverage stays below 3.5x all year."),
        ("p=4", "Sign the term sheet"),
        ("p=5", "Repay the bridge"),
        ("p=6", "Reset the hedges"),
        ("p=7", "Lenders meet monthly"),
        ("table=1", (("Item", "2025", "2026"), ("DSCR", "1.42", "1.55"))),
        ("p=8", "Next steps"),
        ("p=9", "Signed off by the credit team."),
    ]
    paragraphs = [block for block in preview.blocks if isinstance(block, Paragraph)]
    assert [block.heading for block in paragraphs] == [0, 1, None, None, None, None, None, 2, None]
    assert [block.list_kind for block in paragraphs] == [None, None, None, "number", "number", "number", "bullet",
                                                        None, None]
    assert paragraphs[2].spans == (Span("Leverage stays "), Span("below 3.5x", bold=True), Span(" all year."))
    table = preview.blocks[7]
    assert isinstance(table, Table) and table.text() == "Item | 2025 | 2026\nDSCR | 1.42 | 1.55"


def test_a_list_level_and_a_numbering_switched_off(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Nested", style="List Bullet 2")
    plain = document.add_paragraph("Not a list any more", style="List Number")
    properties = plain._p.get_or_add_pPr()
    properties.append(properties.makeelement(qn("w:numPr"), {}))
    properties[-1].append(properties.makeelement(qn("w:numId"), {qn("w:val"): "0"}))
    document.save(str(tmp_path / "lists.docx"))
    first, second = read_word(tmp_path / "lists.docx").blocks
    assert isinstance(first, Paragraph) and (first.list_kind, first.list_level) == ("bullet", 1)
    assert isinstance(second, Paragraph) and second.list_kind is None


def test_an_empty_docx_has_no_blocks(tmp_path: Path) -> None:
    document = docx.Document()
    document.save(str(tmp_path / "empty.docx"))
    opened = WordDocument(tmp_path / "empty.docx")
    assert (opened.paragraph_count, opened.table_count) == (0, 0)
    assert read_word(tmp_path / "empty.docx").blocks == ()


def test_a_long_docx_is_cut_at_the_cap(tmp_path: Path) -> None:
    preview = read_word(make_docx(tmp_path / "long.docx", filler=50), cap=300)
    assert preview.truncated
    assert 3 < len(preview.blocks) < 40
    assert sum(len(block.text) for block in preview.blocks if isinstance(block, Paragraph)) <= 300


def test_pptx_slides_with_titles_tables_and_notes(tmp_path: Path) -> None:
    deck = SlideDeck(make_pptx(tmp_path / "deck.pptx"))
    assert deck.slide_count == 2
    first, second = deck.slides()
    assert (first.ref, first.title, first.notes) == ("slide=1", "Kestrel refinancing", "Mention the revised EBITDA.")
    assert [(part.text, part.is_title) for part in first.parts if isinstance(part, TextFrame)] == [
        ("Kestrel refinancing", True), ("Board update", False)]
    assert (second.ref, second.title, second.notes) == ("slide=2", "Net debt", "The table is from the model.")
    kinds = [type(part).__name__ for part in second.parts]
    assert kinds == ["TextFrame", "TextFrame", "Table"]
    table = second.parts[2]
    assert isinstance(table, Table) and table.rows == (("Year", "EBITDA"), ("2025", "812"))
    assert read_slides(tmp_path / "deck.pptx").slides == (first, second)


def test_an_empty_presentation_has_no_slides(tmp_path: Path) -> None:
    pptx.Presentation().save(str(tmp_path / "empty.pptx"))
    preview = read_slides(tmp_path / "empty.pptx")
    assert preview.slides == () and not preview.truncated


@pytest.mark.parametrize(("suffix", "make", "reader", "what"), [
    ("docx", make_docx, read_word, "the Word document is damaged"),
    ("pptx", make_pptx, read_slides, "the presentation is damaged"),
])
def test_damaged_and_non_office_files_are_named(tmp_path: Path, suffix, make, reader, what) -> None:  # noqa: ANN001
    made = make(tmp_path / f"whole.{suffix}")
    cut = tmp_path / f"cut.{suffix}"
    cut.write_bytes(made.read_bytes()[: made.stat().st_size // 2])
    with pytest.raises(PreviewError, match=rf"^cut\.{suffix}: {what}: it is not a complete \.{suffix} package"):
        reader(cut)
    fake = tmp_path / f"notes.{suffix}"
    fake.write_text("plain text, renamed")
    with pytest.raises(PreviewError, match=rf"^notes\.{suffix}: is not a .+ \(it starts with b'plai', not a zip"):
        reader(fake)
    malformed = tmp_path / f"malformed.{suffix}"
    main = "word/document.xml" if suffix == "docx" else "ppt/presentation.xml"
    with zipfile.ZipFile(made) as source, zipfile.ZipFile(malformed, "w") as target:
        for name in source.namelist():
            target.writestr(name, source.read(name)[:200] if name == main else source.read(name))
    with pytest.raises(PreviewError, match=rf"^malformed\.{suffix}: {what}: "):
        reader(malformed)
    with pytest.raises(PreviewError, match=rf"^absent\.{suffix}: cannot be read"):
        reader(tmp_path / f"absent.{suffix}")


def test_a_workbook_named_docx_is_not_a_word_document(workbook_file: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "model.docx"
    renamed.write_bytes(workbook_file.read_bytes())
    with pytest.raises(PreviewError, match=r"^model\.docx: the Word document is damaged: .+"):
        read_word(renamed)
