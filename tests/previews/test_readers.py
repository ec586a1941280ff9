from __future__ import annotations

from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.previews import PreviewError, preview_kind
from studio.previews.pdf import PdfPreview
from studio.previews.table import CsvPreview
from studio.previews.text import read_image, read_text
from studio.previews.workbook import WorkbookPreview, cell_ref


def test_preview_error_is_a_studio_error() -> None:
    assert issubclass(PreviewError, StudioError)


@pytest.mark.parametrize(("name", "kind"), [("a.PDF", "pdf"), ("b.xlsx", "xlsx"), ("c.csv", "csv"),
                                            ("d.md", "markdown"), ("e.png", "image"), ("f.txt", "text")])
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
