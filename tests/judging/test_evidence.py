"""Evidence extraction on real files made here: every kind, its citable refs, the stated cuts, broken files."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest

from studio.judging.evidence import Evidence, EvidenceLimits, Excerpt, FileEvidence, extract_evidence, locate
from studio.judging.evidence_xlsx import WorkbookCells
from tests.judging.evidence_files import (
    damage,
    share_formula,
    write_docx,
    write_pdf,
    write_png,
    write_pptx,
    write_workbook,
)


def _texts(evidence: Evidence, path: str) -> dict[str, str]:
    (file,) = [file for file in evidence.files if file.path == path]
    return {excerpt.ref: excerpt.text for excerpt in file.excerpts}


def _file(evidence: Evidence, path: str) -> FileEvidence:
    (file,) = [file for file in evidence.files if file.path == path]
    return file


# ---- Markdown, text, CSV, JSON ---------------------------------------------------------------------------------


def test_markdown_blocks_start_at_headings_and_cite_the_lines_they_hold(tmp_path: Path) -> None:
    lines = ["# Memo", "", "Net debt is 4,471.", "", "## Covenants", "Leverage below 3.5x.", "", "## Sign-off", "Done."]
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "memo.md").write_text("\n".join(lines) + "\n")
    evidence = extract_evidence(tmp_path)
    texts = _texts(evidence, "outputs/memo.md")
    assert list(texts) == ["outputs/memo.md#L1-L4", "outputs/memo.md#L5-L7", "outputs/memo.md#L8-L9"]
    for ref, text in texts.items():  # each ref's lines are exactly the excerpt's text
        path, where = locate(ref)
        assert path == "outputs/memo.md"
        first, last = (int(n) for n in ref.split("#L")[1].split("-L"))
        assert where == {"line": first}
        assert text == "\n".join(lines[first - 1 : last]).strip("\n")
    assert _file(evidence, "outputs/memo.md").kind == "markdown"
    assert "[outputs/memo.md#L5-L7]\n## Covenants\nLeverage below 3.5x." in evidence.render()


def test_long_text_is_cut_at_the_file_limit_with_a_note_that_says_how_much(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("".join(f"line {n} of the log\n" for n in range(1, 5001)))
    evidence = extract_evidence(tmp_path, limits=EvidenceLimits(file_chars=2_000))
    file = _file(evidence, "log.txt")
    shown = sum(len(e.ref) + len(e.text) + 4 for e in file.excerpts)
    assert 1_500 < shown <= 2_000
    whole = len((tmp_path / "log.txt").read_text())
    assert file.cut == f"cut at 2,000 characters (the evidence's limit per file) of {whole:,} characters"
    assert f"NOTE: {file.cut}" in evidence.render()
    assert "line 1 of the log" in file.excerpts[0].text and "line 4999 of" not in evidence.render()


def test_bad_utf8_is_an_error_that_names_the_byte_and_the_text_is_still_shown(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_bytes(b"revenue 812\nbad \xff\xfe here\n")
    file = _file(extract_evidence(tmp_path), "notes.txt")
    assert file.error is not None and "not valid UTF-8 (at byte 16" in file.error
    assert file.excerpts[0].text == "revenue 812\nbad \ufffd\ufffd here"


def test_csv_blocks_after_the_first_repeat_the_header(tmp_path: Path) -> None:
    rows = ["year,ebitda"] + [f"{2000 + n},{n * 10}" for n in range(60)]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    texts = _texts(extract_evidence(tmp_path), "t.csv")
    assert list(texts) == ["t.csv#L1-L30", "t.csv#L31-L60", "t.csv#L61"]
    assert texts["t.csv#L1-L30"].startswith("year,ebitda\n2000,0")
    assert texts["t.csv#L31-L60"] == "(columns: year,ebitda)\n" + "\n".join(rows[30:60])
    assert _file(extract_evidence(tmp_path), "t.csv").error is None


def test_a_malformed_csv_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text('a,b\n1,2\n3,"unclosed\n')
    file = _file(extract_evidence(tmp_path), "t.csv")
    assert file.error is not None and file.error.startswith("the CSV is malformed at line 3")
    assert file.excerpts[0].text.endswith('3,"unclosed')


def test_json_as_lines_minified_json_indented_and_malformed_json_named(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"net_debt": 4471, "years": [2024, 2025]}, indent=2))
    (tmp_path / "b.json").write_text(json.dumps({"rows": [{"id": n, "value": n * 1.5} for n in range(200)]}))
    (tmp_path / "c.json").write_text('{"net_debt": 4471,\n "years": [2024 2025]}')
    evidence = extract_evidence(tmp_path)
    assert _texts(evidence, "a.json") == {"a.json#L1-L7": (tmp_path / "a.json").read_text()}
    minified = _file(evidence, "b.json")
    assert minified.error is None and {e.ref for e in minified.excerpts} == {"b.json"}
    assert json.loads("\n".join(e.text for e in minified.excerpts)) == json.loads((tmp_path / "b.json").read_text())
    broken = _file(evidence, "c.json")
    assert broken.error == "the JSON is malformed at line 2 column 17: Expecting ',' delimiter"
    assert '"years": [2024 2025]' in broken.excerpts[0].text


# ---- Workbooks -------------------------------------------------------------------------------------------------


def _model(path: Path) -> Path:
    return write_workbook(
        path,
        {
            "Debt": {
                "A1": "Senior",
                "B1": 1000,
                "B2": 2000.5,
                "B3": 1470.5,
                "B4": "=SUM(B1:B3)",
                "B5": "=B4*2",
                "C1": True,
                "C2": datetime.datetime(2025, 3, 31),
            },
            "Cash Flow": {"A1": "=Debt!B4", "D9": "two\nlines"},
        },
        saved={"Debt!B4": 4471, "Cash Flow!A1": 4471},
    )


def test_every_cell_of_every_sheet_with_its_saved_value_and_formula(tmp_path: Path) -> None:
    _model(tmp_path / "outputs" / "model.xlsx")
    evidence = extract_evidence(tmp_path)
    texts = _texts(evidence, "outputs/model.xlsx")
    assert texts == {
        "outputs/model.xlsx!Debt!A1:C1": "A1 = Senior | B1 = 1000 | C1 = TRUE",
        "outputs/model.xlsx!Debt!B2:C2": "B2 = 2000.5 | C2 = 2025-03-31T00:00:00",
        "outputs/model.xlsx!Debt!B3": "B3 = 1470.5",
        "outputs/model.xlsx!Debt!B4": "B4 = 4471 (formula =SUM(B1:B3))",
        "outputs/model.xlsx!Debt!B5": "B5 = (formula =B4*2; no computed value saved in the file)",
        "outputs/model.xlsx!'Cash Flow'!A1": "A1 = 4471 (formula =Debt!B4)",
        "outputs/model.xlsx!'Cash Flow'!D9": "D9 = two\\nlines",
    }
    assert (
        "(one line per row: CELL = saved value (formula ...); cite a cell as outputs/model.xlsx!Sheet!A1)\n"
        "[outputs/model.xlsx!Debt!A1:C1] A1 = Senior | B1 = 1000 | C1 = TRUE\n"
    ) in evidence.render()
    assert locate("outputs/model.xlsx!Debt!B2:C2") == ("outputs/model.xlsx", {"sheet": "Debt", "cell": "B2"})
    assert locate("outputs/model.xlsx!'Cash Flow'!A1") == ("outputs/model.xlsx", {"sheet": "Cash Flow", "cell": "A1"})
    assert locate("outputs/model.xlsx!Debt!B4") == ("outputs/model.xlsx", {"sheet": "Debt", "cell": "B4"})


def test_the_one_pass_reading_gives_what_openpyxl_gives_in_its_two_read_only_passes(tmp_path: Path) -> None:
    path = _model(tmp_path / "model.xlsx")
    with WorkbookCells(path) as book:
        one = list(book.rows(one_pass=True))
        two = list(book.rows(one_pass=False))
    assert one == two and len(one) == 7
    values = openpyxl.load_workbook(path, data_only=True)
    assert [(s, r, c, v) for s, r, cells in one for c, v, _ in cells if v is not None] == [
        (sheet.title, cell.row, cell.column, cell.value)
        for sheet in values.worksheets
        for row in sheet.iter_rows()
        for cell in row
        if cell.value is not None
    ]


def test_saved_values_of_every_type_and_formulas_as_excel_writes_them(tmp_path: Path) -> None:
    path = write_workbook(
        tmp_path / "m.xlsx",
        {
            "Calc": {
                "A1": 1,
                "A2": 2,
                "A3": 3,
                "B1": "=A1*2",
                "B2": "=A2*2",
                "B3": "=A3*2",  # filled down: saved as one shared formula
                "C1": "=DATE(2025,3,31)",
                "C2": "=A1>0",
                "C3": "=A1/0",
                "C4": '="net "&A1',
            }
        },
        saved={
            "Calc!B1": 2,
            "Calc!B2": 4,
            "Calc!B3": 6,
            "Calc!C1": 45747,
            "Calc!C2": True,
            "Calc!C3": "#DIV/0!",
            "Calc!C4": "net 1",
        },
        formats={"Calc!C1": "yyyy-mm-dd"},
    )
    share_formula(path, 1, "B1", ["B2", "B3"])
    assert _texts(extract_evidence(tmp_path), "m.xlsx") == {
        "m.xlsx!Calc!A1:C1": "A1 = 1 | B1 = 2 (formula =A1*2) | C1 = 2025-03-31T00:00:00 (formula =DATE(2025,3,31))",
        "m.xlsx!Calc!A2:C2": "A2 = 2 | B2 = 4 (formula =A2*2) | C2 = TRUE (formula =A1>0)",
        "m.xlsx!Calc!A3:C3": "A3 = 3 | B3 = 6 (formula =A3*2) | C3 = #DIV/0! (formula =A1/0)",
        "m.xlsx!Calc!C4": 'C4 = net 1 (formula ="net "&A1)',
    }
    with WorkbookCells(path) as book:  # the same cells as openpyxl's two public read-only passes
        assert list(book.rows(one_pass=True)) == list(book.rows(one_pass=False))


def test_the_collector_is_paused_during_extraction_and_restored_after(tmp_path: Path) -> None:
    import gc

    from studio.collector import collector_paused

    (tmp_path / "a.md").write_text("A\n")
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        extract_evidence(tmp_path)  # nested: leaves it paused for the outer one
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        extract_evidence(tmp_path)
        assert not gc.isenabled()  # one that was off before stays off
    finally:
        gc.enable()


def test_a_workbook_is_cut_at_the_cell_limit_and_the_note_names_what_is_not_shown(tmp_path: Path) -> None:
    write_workbook(tmp_path / "m.xlsx", {"A": {f"A{n}": n for n in range(1, 101)}, "B": {"A1": 1}, "C": {"A1": 2}})
    file = _file(extract_evidence(tmp_path, limits=EvidenceLimits(cells=40)), "m.xlsx")
    assert len(file.excerpts) == 40 and file.excerpts[-1] == Excerpt("m.xlsx!A!A40", "A40 = 40")
    assert file.cut == (
        "cut at 40 cells (the evidence's limit per workbook); "
        "not shown: the rest of sheet 'A' from cell A41 and sheets 'B', 'C'"
    )
    by_chars = _file(extract_evidence(tmp_path, limits=EvidenceLimits(file_chars=300)), "m.xlsx")
    assert by_chars.cut is not None and by_chars.cut.startswith("cut at 300 characters (the evidence's limit per file)")
    assert 10 < len(by_chars.excerpts) < 40
    assert sum(len(e.ref) + len(e.text) + 4 for e in by_chars.excerpts) <= 300


def test_a_row_reaching_a_limit_is_cut_between_cells_and_the_note_names_the_first_cell_not_shown(
    tmp_path: Path,
) -> None:
    write_workbook(
        tmp_path / "m.xlsx",
        {"Wide": {f"{column}{row}": row * 100 + index for row in (1, 2) for index, column in enumerate("ABCDEFGHIJ")}},
    )
    file = _file(extract_evidence(tmp_path, limits=EvidenceLimits(cells=13)), "m.xlsx")
    assert [e.ref for e in file.excerpts] == ["m.xlsx!Wide!A1:J1", "m.xlsx!Wide!A2:C2"]
    assert file.excerpts[1].text == "A2 = 200 | B2 = 201 | C2 = 202"
    assert (
        file.cut
        == "cut at 13 cells (the evidence's limit per workbook); not shown: the rest of sheet 'Wide' from cell D2"
    )
    first_row = "A1 = 100 | B1 = 101 | C1 = 102 | D1 = 103 | E1 = 104"
    limit = len("m.xlsx!Wide!A1:J1") + len(first_row) + 4
    by_chars = _file(extract_evidence(tmp_path, limits=EvidenceLimits(file_chars=limit)), "m.xlsx")
    assert [(e.ref, e.text) for e in by_chars.excerpts] == [("m.xlsx!Wide!A1:E1", first_row)]
    assert by_chars.cut == (
        f"cut at {limit} characters (the evidence's limit per file); not shown: the rest of sheet 'Wide' from cell F1"
    )


@pytest.mark.parametrize("breakage", ["not a zip", "cut in half", "sheet xml"])
def test_a_damaged_workbook_is_an_error_not_an_exception(tmp_path: Path, breakage: str) -> None:
    path = _model(tmp_path / "m.xlsx")
    if breakage == "not a zip":
        path.write_text("year,ebitda\n2025,812\n")
    elif breakage == "cut in half":
        damage(path)
    else:
        with zipfile.ZipFile(path) as archive:
            parts = {name: archive.read(name) for name in archive.namelist()}
        parts["xl/worksheets/sheet1.xml"] = parts["xl/worksheets/sheet1.xml"][:400]
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in parts.items():
                archive.writestr(name, data)
    file = _file(extract_evidence(tmp_path), "m.xlsx")
    assert file.kind == "xlsx" and file.error is not None
    assert file.error.startswith(("the workbook is damaged", "sheet 'Debt' is damaged"))
    assert f"EVIDENCE ERROR: {file.error}" in extract_evidence(tmp_path).render()


# ---- PDF, Word, PowerPoint, images ---------------------------------------------------------------------------


def test_pdf_text_per_page_with_page_refs_and_a_page_without_text_said(tmp_path: Path) -> None:
    write_pdf(tmp_path / "memo.pdf", ["Net debt 4,471", "", "Covenant headroom 12%"])
    file = _file(extract_evidence(tmp_path), "memo.pdf")
    assert file.error is None and file.cut is None
    assert {e.ref: e.text for e in file.excerpts} == {
        "memo.pdf#page=1": "Net debt 4,471",
        "memo.pdf#page=2": "(no text on this page: it may be a scanned image)",
        "memo.pdf#page=3": "Covenant headroom 12%",
    }
    assert locate("memo.pdf#page=3") == ("memo.pdf", {"page": 3})


def test_pdf_cut_at_the_page_limit(tmp_path: Path) -> None:
    write_pdf(tmp_path / "long.pdf", [f"page {n}" for n in range(1, 8)])
    file = _file(extract_evidence(tmp_path, limits=EvidenceLimits(pages=3)), "long.pdf")
    assert [e.text for e in file.excerpts] == ["page 1", "page 2", "page 3"]
    assert file.cut == "cut at 3 pages (the evidence's limit per PDF) of 7"


@pytest.mark.parametrize("breakage", ["garbage", "cut in half"])
def test_a_damaged_pdf_is_an_error(tmp_path: Path, breakage: str) -> None:
    path = write_pdf(tmp_path / "memo.pdf", [f"page {n} " * 50 for n in range(1, 6)])
    if breakage == "garbage":
        path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    else:
        damage(path)
    file = _file(extract_evidence(tmp_path), "memo.pdf")
    assert file.error is not None and file.error.startswith("the PDF is damaged")


def test_docx_paragraphs_and_tables_in_document_order(tmp_path: Path) -> None:
    write_docx(tmp_path / "memo.docx")
    file = _file(extract_evidence(tmp_path), "memo.docx")
    assert [(e.ref, e.text) for e in file.excerpts] == [
        ("memo.docx#p=1-2", "Refinancing memo\nThe senior facility is 4,471 thousand."),
        ("memo.docx#p=3-4", "Covenants\nLeverage stays below 3.5x."),
        ("memo.docx#table=1", "Item | Value\nDSCR | 1.42"),
        ("memo.docx#p=5", "Signed off by the credit team."),
    ]
    assert locate("memo.docx#p=3-4") == ("memo.docx", {"paragraph": 3})
    assert locate("memo.docx#table=1") == ("memo.docx", {"table": 1})


def test_pptx_slides_with_text_tables_and_notes(tmp_path: Path) -> None:
    write_pptx(tmp_path / "deck.pptx")
    file = _file(extract_evidence(tmp_path), "deck.pptx")
    assert [(e.ref, e.text) for e in file.excerpts] == [
        ("deck.pptx#slide=1", "Kestrel refinancing\nBoard update\n(speaker notes) Mention the revised EBITDA."),
        ("deck.pptx#slide=2", "Net debt 4,417\nYear | EBITDA\n2025 | 812"),
    ]
    assert locate("deck.pptx#slide=2") == ("deck.pptx", {"slide": 2})


@pytest.mark.parametrize(
    ("kind", "writer", "message"),
    [
        ("docx", write_docx, "the Word document is damaged: it is not a complete .docx package"),
        ("pptx", write_pptx, "the presentation is damaged: it is not a complete .pptx package"),
    ],
)
def test_damaged_office_files_are_errors(tmp_path: Path, kind: str, writer, message: str) -> None:  # noqa: ANN001
    damage(writer(tmp_path / f"f.{kind}"))
    (tmp_path / f"g.{kind}").write_bytes(b"PK\x03\x04 not really")
    path = writer(tmp_path / f"h.{kind}")  # a whole package whose main part is malformed XML
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    main = "word/document.xml" if kind == "docx" else "ppt/presentation.xml"
    parts[main] = parts[main][:200]
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    evidence = extract_evidence(tmp_path)
    for name in (f"f.{kind}", f"g.{kind}"):
        file = _file(evidence, name)
        assert file.kind == kind and file.excerpts == () and file.error is not None
        assert file.error.startswith(message)
    malformed = _file(evidence, f"h.{kind}")
    assert malformed.excerpts == () and malformed.error is not None
    assert malformed.error.startswith(message.split(":")[0] + ": ")


def test_images_are_listed_and_given_to_a_multimodal_judge_unless_broken(tmp_path: Path) -> None:
    write_png(tmp_path / "charts" / "ebitda.png", 64, 48)
    damage(write_png(tmp_path / "charts" / "broken.png", 300, 200))
    (tmp_path / "charts" / "fake.jpg").write_text("not an image")
    evidence = extract_evidence(tmp_path)
    assert _texts(evidence, "charts/ebitda.png") == {
        "charts/ebitda.png": "(image, 64 x 48 pixels, PNG; given to a judge that reads images)"
    }
    for broken in ("charts/broken.png", "charts/fake.jpg"):
        file = _file(evidence, broken)
        assert file.kind == "image" and file.error is not None and file.error.startswith("the image is damaged")
    assert evidence.images() == [tmp_path / "charts" / "ebitda.png"]
    assert locate("charts/ebitda.png") == ("charts/ebitda.png", {})


# ---- The whole submission --------------------------------------------------------------------------------------


def test_a_submission_of_every_kind_renders_one_section_per_file(tmp_path: Path) -> None:
    _model(tmp_path / "outputs" / "model.xlsx")
    write_pdf(tmp_path / "outputs" / "memo.pdf", ["one", "two"])
    write_docx(tmp_path / "outputs" / "memo.docx")
    write_pptx(tmp_path / "outputs" / "deck.pptx")
    (tmp_path / "outputs" / "notes.md").write_text("# Notes\n")
    (tmp_path / "outputs" / "archive.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "outputs" / ".~lock.model.xlsx#").write_text("lock")
    evidence = extract_evidence(tmp_path)
    assert [(f.path, f.kind) for f in evidence.files] == [
        ("outputs/archive.zip", "other"),
        ("outputs/deck.pptx", "pptx"),
        ("outputs/memo.docx", "docx"),
        ("outputs/memo.pdf", "pdf"),
        ("outputs/model.xlsx", "xlsx"),
        ("outputs/notes.md", "markdown"),
    ]
    text = evidence.render()
    assert text.index("### outputs/deck.pptx (pptx)") < text.index("### outputs/model.xlsx (xlsx)")
    assert "### outputs/archive.zip (other)\n(not shown: a file of a kind the evidence does not read)" in text
    assert "[outputs/memo.pdf#page=2] two" in text
    assert all(f.error is None for f in evidence.files)
    for file in evidence.files:  # every excerpt's ref locates its own file
        assert all(locate(e.ref)[0] == file.path for e in file.excerpts)


def test_the_total_limit_leaves_later_files_out_with_a_note(tmp_path: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text("x" * 60 + "\n" + "y" * 60 + "\n")
    evidence = extract_evidence(tmp_path, limits=EvidenceLimits(file_chars=1_000, total_chars=200))
    a, b, c = evidence.files
    assert a.cut is None and len(a.excerpts) == 1
    assert b.cut is not None and "the evidence's limit of 200 characters over all files" in b.cut
    assert c.excerpts == () and c.cut == (
        "not shown: the evidence reached its total limit (the evidence's limit of 200 characters over all files)"
    )
    assert c.sha256 and evidence.render().count("x" * 60) == 1


def test_only_the_given_paths_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "a.md").write_text("A\n")
    (tmp_path / "outputs" / "b.md").write_text("B\n")
    os.mkfifo(tmp_path / "outputs" / "pipe")
    evidence = extract_evidence(tmp_path, ["outputs/b.md", "outputs/missing.xlsx", "outputs", "outputs/pipe"])
    assert [(f.path, f.kind, f.error) for f in evidence.files] == [
        ("outputs", "other", "outputs is a folder, not a file"),
        ("outputs/b.md", "markdown", None),
        ("outputs/missing.xlsx", "xlsx", "outputs/missing.xlsx does not exist in the submission"),
        ("outputs/pipe", "other", "outputs/pipe is a FIFO (named pipe), not a regular file"),
    ]
    assert [f.path for f in extract_evidence(tmp_path).files] == ["outputs/a.md", "outputs/b.md"]


def test_a_link_out_of_the_submission_is_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "host" / "credentials.txt"
    secret.parent.mkdir()
    secret.write_text("OPENAI_API_KEY=sk-not-for-the-judge\n")
    submission = tmp_path / "submission"
    (submission / "outputs").mkdir(parents=True)
    (submission / "outputs" / "memo.md").write_text("Net debt 4,417\n")
    (submission / "outputs" / "notes.txt").symlink_to(secret)
    (submission / "outputs" / "same-memo.md").symlink_to(submission / "outputs" / "memo.md")
    evidence = extract_evidence(submission)
    assert _file(evidence, "outputs/notes.txt").error == (
        "outputs/notes.txt is a link to a file outside the submission: not read"
    )
    assert _file(evidence, "outputs/same-memo.md").excerpts == (Excerpt("outputs/same-memo.md#L1", "Net debt 4,417"),)
    assert "sk-not-for-the-judge" not in evidence.render()


def test_the_content_key_changes_exactly_when_a_file_does(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    _model(tmp_path / "a" / "model.xlsx")
    (tmp_path / "a" / "memo.md").write_text("Net debt 4,471\n")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    key = extract_evidence(tmp_path / "a").content_key()
    assert extract_evidence(tmp_path / "b").content_key() == key
    assert extract_evidence(tmp_path / "a", limits=EvidenceLimits(file_chars=100)).content_key() == key
    (tmp_path / "b" / "memo.md").write_text("Net debt 4,417\n")
    assert extract_evidence(tmp_path / "b").content_key() != key
    (tmp_path / "b" / "memo.md").write_text("Net debt 4,471\n")
    (tmp_path / "b" / "memo.md").rename(tmp_path / "b" / "memo2.md")
    assert extract_evidence(tmp_path / "b").content_key() != key


def test_locate_leaves_a_ref_naming_no_place_at_the_file() -> None:
    assert locate("outputs/notes.md#L12-L30") == ("outputs/notes.md", {"line": 12})
    assert locate("outputs/notes.md#L4") == ("outputs/notes.md", {"line": 4})
    assert locate("outputs/model.xlsx!Debt!$B$4") == ("outputs/model.xlsx", {"sheet": "Debt", "cell": "B4"})
    assert locate("o.xlsx!'It''s'!c7") == ("o.xlsx", {"sheet": "It's", "cell": "C7"})
    assert locate("outputs/notes.md#somewhere") == ("outputs/notes.md", {})
    assert locate("outputs/memo.pdf") == ("outputs/memo.pdf", {})


def test_hostile_submission_files_are_evidence_errors_never_host_content_or_a_crash(tmp_path: Path) -> None:
    from tests.untrusted.hostile import HOST_SECRET, device_node, host_secret

    secret = host_secret(tmp_path)
    project = tmp_path / "project"
    (project / "evaluator").mkdir(parents=True)
    (project / "evaluator" / "reference.md").write_text("EVALUATOR-ONLY reference answer\n")
    submission = project / "runs" / "run-1" / "submissions" / "T01"
    (submission / "outputs").mkdir(parents=True)
    (submission / "outputs" / "memo.md").write_text("Net debt 4,417\n")
    (submission / "outputs" / "loop.md").symlink_to("loop.md")
    (submission / "outputs" / "reference.md").symlink_to("../../../../../evaluator/reference.md")
    (submission / "outputs" / "passwd.txt").symlink_to("/" + os.path.relpath(secret, "/"))
    (submission / "outputs" / "host").symlink_to(secret.parent)
    os.link(secret, submission / "outputs" / "hard.txt")
    device_node(submission / "outputs" / "zero.txt")
    os.close(os.open(os.fsencode(submission) + b"/outputs/bad-\xff.md", os.O_CREAT | os.O_WRONLY, 0o644))
    with open(os.fsencode(submission) + b"/outputs/bad-\xff.md", "wb") as handle:
        handle.write(b"written under a name that is not UTF-8\n")

    evidence = extract_evidence(submission)
    errors = {file.path: file.error for file in evidence.files}
    assert errors == {
        "outputs/bad-\\xff.md": None,
        "outputs/host": "outputs/host is a link to a file outside the submission: not read",
        "outputs/hard.txt": "outputs/hard.txt has 2 hard links, one of them outside the submission: it may be a "
        "file of the machine, so it is not read",
        "outputs/loop.md": "outputs/loop.md is a loop of symbolic links: not read",
        "outputs/memo.md": None,
        "outputs/passwd.txt": "outputs/passwd.txt is a link to a file outside the submission: not read",
        "outputs/reference.md": "outputs/reference.md leads out of the submission (through ..): not read",
    }  # the device node holds no content: not listed
    assert _file(evidence, "outputs/bad-\\xff.md").excerpts[0].ref == "outputs/bad-\\xff.md#L1"
    text = evidence.render()
    assert HOST_SECRET.strip() not in text and "EVALUATOR-ONLY" not in text
    text.encode("utf-8")
    assert len(evidence.content_key()) == 64  # raised UnicodeEncodeError on the raw name before
    asked = extract_evidence(submission, ["outputs/loop.md", "outputs/zero.txt", "outputs/host/passwd"])
    assert [file.error for file in asked.files] == [
        "outputs/host/passwd is a link to a file outside the submission: not read",
        "outputs/loop.md is a loop of symbolic links: not read",  # was RuntimeError: Symlink loop
        "outputs/zero.txt is a device node, not a regular file",
    ]
