"""The material preview opens each kind of file made here (and a damaged one) and shows its content."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QColor, QFont, QImage, QTextCursor, QTextListFormat
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QCheckBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QTableView,
    QTabWidget,
    QTextBrowser,
)

from studio.gui.base.tasks import TaskRunner
from studio.gui.widgets.office_preview import OfficeView
from studio.gui.widgets.preview import OPENING_NOTICE_MS, CsvModel, MaterialPreview, PageCanvas, SheetModel
from tests.previews.conftest import PDF_WORDS, cache_values, make_docx, make_pdf, make_pptx, make_workbook


@pytest.fixture
def preview(qtbot):
    runner = TaskRunner()
    widget = MaterialPreview(runner)
    qtbot.addWidget(widget)
    widget.resize(700, 500)
    widget.show()
    yield widget
    widget.show_file(None)  # closes the file it showed
    runner.wait()
    qtbot.wait(10)  # the results of the last jobs are delivered before the runner goes


def show(qtbot, preview: MaterialPreview, path: Path, kind: str) -> None:
    with qtbot.waitSignal(preview.shown, timeout=20000) as blocker:
        preview.show_file(path)
    assert blocker.args == [kind], preview.message.text()


def test_pdf_pages_and_search(qtbot, preview, tmp_path) -> None:
    show(qtbot, preview, make_pdf(tmp_path / "report.pdf", PDF_WORDS), "pdf")
    page = preview.findChild(QSpinBox, "previewPage")
    image = preview.findChild(PageCanvas, "previewPageImage")
    assert page.maximum() == 3 and page.value() == 1
    assert image.image.width() == int(300 * 1.5) and image.width() == image.image.width()
    assert image.grab().toImage().pixelColor(5, 5) == QColor("white")
    assert not preview.message.isVisible()

    view = preview.content
    with qtbot.waitSignal(view.page_shown, timeout=10000) as shown:
        QTest.keyClick(page, Qt.Key.Key_Up)
    assert shown.args == [1] and page.value() == 2

    search = preview.findChild(QLineEdit, "previewSearch")
    search.setFocus()
    QTest.keyClicks(search, "EBITDA")
    with qtbot.waitSignal(view.page_shown, timeout=10000) as shown:
        QTest.keyClick(search, Qt.Key.Key_Return)
    assert shown.args == [2] and page.value() == 3
    assert preview.findChild(QLabel, "previewSearchResult").text() == "1 found on page 3"
    hit = view.hits[0]
    x, y = int((hit.rect[0] + 2) * 1.5), int((hit.rect[1] + 1) * 1.5)
    marked = image.grab().toImage().pixelColor(x, y)  # as painted on screen
    assert marked.blue() < 200 < marked.red()  # yellow over the white page


def loaded(qtbot, model: SheetModel, row: int, column: int) -> str | None:
    """A cell's text once its block has been read on the background helper (empty until then)."""
    index = model.index(row, column)
    if not model.is_loaded(row):
        assert index.data() is None  # asks for the block, shows nothing meanwhile
        qtbot.waitUntil(lambda: model.is_loaded(row), timeout=10000)
    return index.data()


def test_workbook_values_formulas_and_cell_ref(qtbot, preview, tmp_path, qtmodeltester) -> None:
    path = make_workbook(tmp_path / "model.xlsx")
    cache_values(path)
    show(qtbot, preview, path, "xlsx")
    tabs = preview.findChild(QTabWidget, "previewSheets")
    assert [tabs.tabText(i) for i in range(tabs.count())] == ["Inputs", "Q1 Summary"]
    book_view = preview.content
    assert book_view.view("Q1 Summary") is None  # built when its tab is first shown
    with qtbot.waitSignal(book_view.sheet_ready, timeout=10000) as ready:
        tabs.setCurrentIndex(1)
    assert ready.args == ["Q1 Summary"]
    view = book_view.view("Q1 Summary")
    assert isinstance(view, QTableView) and view.isVisible()
    model = view.model()
    assert isinstance(model, SheetModel)
    qtmodeltester.check(model)
    cell = model.index(0, 1)
    assert loaded(qtbot, model, 0, 1) == "75"
    view.selectionModel().setCurrentIndex(cell, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    label = preview.findChild(QLabel, "previewCellRef")
    assert label.text() == "'Q1 Summary'!B1   75"
    toggle = preview.findChild(QCheckBox, "previewFormulas")
    with qtbot.waitSignal(model.dataChanged):
        QTest.mouseClick(toggle, Qt.MouseButton.LeftButton)
    assert toggle.isChecked()
    assert loaded(qtbot, model, 0, 1) == "=Inputs!B2-Inputs!B3"
    qtbot.waitUntil(lambda: label.text() == "'Q1 Summary'!B1   =Inputs!B2-Inputs!B3")  # follows the arrival
    inputs = book_view.view("Inputs").model()
    qtmodeltester.check(inputs)
    assert (inputs.rowCount(), inputs.columnCount()) == (3, 2)
    assert loaded(qtbot, inputs, 1, 0) == "Revenue"


def test_a_block_far_down_a_big_sheet_is_read_in_the_background(qtbot, preview, tmp_path) -> None:
    import openpyxl

    path = tmp_path / "ledger.xlsx"
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Ledger")
    for number in range(1, 2001):
        sheet.append([number, f"entry {number}"])
    book.save(path)
    show(qtbot, preview, path, "xlsx")
    model = preview.findChild(QTableView, "previewSheet_Ledger").model()
    assert model.rowCount() == 2000
    arrived: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda top, bottom: arrived.append((top.row(), bottom.row())))
    assert loaded(qtbot, model, 1850, 1) == "entry 1851"
    assert (1800, 1999) in arrived  # the block holding row 1851, announced as it came
    assert not model.is_loaded(1000)  # blocks never asked for are never read


def test_csv_rows_appear_while_the_scan_runs(qtbot, preview, tmp_path, qtmodeltester) -> None:
    path = tmp_path / "ledger.csv"
    with path.open("w", encoding="utf-8") as handle:
        handle.write('id,account,"note, quoted"\n')
        for number in range(300_000):
            handle.write(
                f'{number},A{number % 97},"line one\nline two"\n' if number == 5 else f"{number},A{number % 97},ok\n"
            )
    preview.scan_chunk = 512 * 1024  # several chunks for this 3.5 MB file
    show(qtbot, preview, path, "csv")
    view = preview.findChild(QTableView, "previewTable")
    model = view.model()
    assert isinstance(model, CsvModel)
    first = model.rowCount()
    assert 0 < first < 300_000  # the first screen is there before the whole file is indexed
    assert model.headerData(2, Qt.Orientation.Horizontal) == "note, quoted"
    assert model.index(5, 2).data() == "line one\nline two"
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _parent, start, end: inserted.append((start, end)))
    model.modelReset.connect(lambda: inserted.append((-1, -1)))
    with qtbot.waitSignal(preview.csv_indexed, timeout=60000) as done:
        pass
    assert done.args == [300_000] and model.rowCount() == 300_000
    assert len(inserted) >= 2 and inserted[0][0] == first and (-1, -1) not in inserted
    assert all(a[1] + 1 == b[0] for a, b in zip(inserted, inserted[1:]))
    assert model.index(299_999, 0).data() == "299999"
    qtmodeltester.check(model)


def test_markdown_text_and_image(qtbot, preview, tmp_path) -> None:
    notes = tmp_path / "brief.md"
    notes.write_text("# Client brief\n\nThe **deadline** moved.\n", encoding="utf-8")
    show(qtbot, preview, notes, "markdown")
    browser = preview.findChild(QTextBrowser, "previewMarkdown")
    assert browser.toPlainText().startswith("Client brief")
    assert "<h1" in browser.toHtml() or "font-size:xx-large" in browser.toHtml()

    text = tmp_path / "log.txt"
    text.write_text("line 1\nline 2\n", encoding="utf-8")
    show(qtbot, preview, text, "text")
    editor = preview.findChild(QPlainTextEdit, "previewText")
    assert editor.toPlainText() == "line 1\nline 2\n" and editor.isReadOnly()
    assert preview.findChild(QTextBrowser, "previewMarkdown") is None or not browser.isVisible()

    picture = tmp_path / "chart.png"
    image = QImage(40, 20, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(picture))
    show(qtbot, preview, picture, "image")
    label = preview.findChild(QLabel, "previewImage")
    assert label.pixmap().size().width() == 40
    assert label.pixmap().toImage().pixelColor(3, 3) == QColor("red")


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("report.pdf", b"<html>not a pdf</html>", "report.pdf: not a PDF (it starts with b'<html>no')"),
        ("broken.pdf", b"%PDF-1.7\n\x00\x00 cut", "broken.pdf: the PDF is damaged"),
        ("model.xlsx", b"id,value\n", "model.xlsx: not an Excel workbook"),
        ("cut.xlsx", b"PK\x03\x04 truncated", "cut.xlsx: the workbook is damaged"),
        ("rows.csv", b'a,b\n1,"never closed\n', "rows.csv: row 2 opens a quoted field that is never closed"),
        ("chart.png", b"\x89PNG\r\n garbage", "chart.png: is not an image that can be shown"),
        ("notes.txt", b"\x00\x01binary", "notes.txt: is not a text file"),
        ("memo.docx", b"PK\x03\x04 truncated", "memo.docx: the Word document is damaged: it is not a complete .docx"),
        ("deck.pptx", b"slides?", "deck.pptx: is not a PowerPoint presentation (it starts with b'slid'"),
    ],
)
def test_damaged_file_shows_its_message(qtbot, preview, tmp_path, name, data, message) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    show(qtbot, preview, path, "error")
    label = preview.findChild(QLabel, "previewMessage")
    assert label.isVisible() and message in label.text()
    assert preview.content is None
    qtbot.wait(OPENING_NOTICE_MS + 50)
    assert message in label.text()  # the late "Opening…" notice never covers the error


def block_of(browser: OfficeView, text: str):  # noqa: ANN201 (a QTextBlock)
    found = browser.document().find(text)
    assert not found.isNull(), text
    return found.block()


def at_the_top(browser: OfficeView, ref: str) -> bool:
    """The cited block's first line is at the top of the view (the view scrolled to it)."""
    cursor = QTextCursor(browser.document())
    cursor.setPosition(browser.places[ref][0])
    return 0 <= browser.cursorRect(cursor).top() < 20


def test_word_document_as_formatted_text_scrolled_to_a_cited_table(qtbot, preview, tmp_path) -> None:
    show(qtbot, preview, make_docx(tmp_path / "memo.docx", filler=150), "docx")
    browser = preview.findChild(OfficeView, "previewDocument")
    assert browser is preview.content and browser.isReadOnly()
    assert browser.toPlainText().startswith("Refinancing memo\nCovenants\nLeverage stays below 3.5x all year.\n")
    body = block_of(browser, "Leverage").charFormat().fontPointSize() or browser.font().pointSizeF()
    title, heading = block_of(browser, "Refinancing memo"), block_of(browser, "Covenants")
    assert title.blockFormat().headingLevel() == 1 and heading.blockFormat().headingLevel() == 1
    assert title.charFormat().fontPointSize() > heading.charFormat().fontPointSize() > body
    bold = browser.document().find("below 3.5x")
    assert bold.charFormat().fontWeight() == QFont.Weight.Bold
    assert browser.document().find("Leverage").charFormat().fontWeight() == QFont.Weight.Normal
    steps = [block_of(browser, text).textList() for text in ("Sign the term", "Repay the bridge", "Reset the hedges")]
    assert steps[0] is not None and steps[0].format().style() == QTextListFormat.Style.ListDecimal
    assert steps[0].count() == 3 and all(step == steps[0] for step in steps)
    assert [steps[0].itemText(block_of(browser, "Reset the hedges"))] == ["3."]
    bullet = block_of(browser, "Lenders meet monthly").textList()
    assert bullet is not None and bullet != steps[0] and bullet.format().style() == QTextListFormat.Style.ListDisc
    in_lists, block = [], browser.document().begin()
    while block.isValid():
        in_lists += [block.text()] if block.textList() is not None else []
        block = block.next()
    assert in_lists == ["Sign the term sheet", "Repay the bridge", "Reset the hedges", "Lenders meet monthly"]
    table = QTextCursor(browser.document())
    table.setPosition(browser.places["table=1"][0])
    assert table.currentTable() is not None
    cells = table.currentTable()
    assert (cells.rows(), cells.columns()) == (2, 3)
    assert cells.cellAt(1, 1).firstCursorPosition().block().text() == "1.42"
    assert browser.toPlainText().index("Reset the hedges") < browser.toPlainText().index("DSCR") < \
        browser.toPlainText().index("Filler paragraph 1.")
    assert "Next steps" in browser.toPlainText() and "the start of the document" not in browser.toPlainText()

    assert browser.verticalScrollBar().value() == 0
    assert browser.scroll_to("#p=60-62")  # a paragraph far down: filler 53
    assert browser.verticalScrollBar().value() > 0 and at_the_top(browser, "p=60")
    assert browser.textCursor().selectedText() == "Filler paragraph 53."
    assert browser.scroll_to("table=1") and at_the_top(browser, "table=1")
    assert browser.textCursor().currentTable() is not None and "DSCR" in browser.textCursor().selectedText()
    assert not browser.scroll_to("table=2") and not browser.scroll_to("slide=1") and not browser.scroll_to("p=x")


def test_an_empty_word_document_says_so(qtbot, preview, tmp_path) -> None:
    import docx

    docx.Document().save(str(tmp_path / "empty.docx"))
    show(qtbot, preview, tmp_path / "empty.docx", "docx")
    assert preview.findChild(OfficeView, "previewDocument").toPlainText() == "The document has no text."


def test_presentation_slide_by_slide_scrolled_to_a_cited_slide(qtbot, preview, tmp_path) -> None:
    show(qtbot, preview, make_pptx(tmp_path / "deck.pptx", filler=30), "pptx")
    browser = preview.findChild(OfficeView, "previewSlides")
    assert browser is preview.content
    text = browser.toPlainText()
    assert text.startswith("Slide 1 - Kestrel refinancing\nBoard update\nSpeaker notes\nMention the revised EBITDA.\n"
                           "Slide 2 - Net debt\nNet debt 4,417\n")
    assert text.count("Kestrel refinancing") == 1  # the title shows once, in the slide's heading
    assert block_of(browser, "Slide 2 - Net debt").blockFormat().headingLevel() == 2
    cursor = QTextCursor(browser.document())
    cursor.setPosition(browser.document().find("EBITDA", browser.places["slide=2"][0]).position() - 1)
    assert cursor.currentTable() is not None and cursor.currentTable().rows() == 2
    assert text.index("EBITDA", text.index("Slide 2")) < text.index("The table is from the model.") < \
        text.index("Slide 3 - Appendix 1")
    assert block_of(browser, "The table is from the model.").charFormat().fontItalic()
    assert browser.scroll_to("slide=12") and at_the_top(browser, "slide=12")
    assert browser.verticalScrollBar().value() > 0
    assert browser.textCursor().selectedText() == "Slide 12 - Appendix 10"
    assert browser.scroll_to("slide=2") and at_the_top(browser, "slide=2")
    assert not browser.scroll_to("slide=33") and not browser.scroll_to("table=1")


def test_a_second_pdf_reuses_the_view_with_its_own_pages(qtbot, preview, tmp_path) -> None:
    show(qtbot, preview, make_pdf(tmp_path / "report.pdf", PDF_WORDS), "pdf")
    first_view = preview.content
    search = preview.findChild(QLineEdit, "previewSearch")
    search.setText("EBITDA")
    with qtbot.waitSignal(first_view.searched, timeout=10000):
        QTest.keyClick(search, Qt.Key.Key_Return)
    show(qtbot, preview, make_pdf(tmp_path / "letter.pdf", ["only page"]), "pdf")
    assert preview.content is first_view  # the same widgets, a new document
    page = preview.findChild(QSpinBox, "previewPage")
    assert page.maximum() == 1 and page.value() == 1 and page.suffix() == " of 1"
    assert first_view.hits == [] and search.text() == "" and first_view.page.number == 0
    assert first_view.pdf.path.name == "letter.pdf"


def test_showing_another_file_replaces_the_first(qtbot, preview, tmp_path) -> None:
    show(qtbot, preview, make_pdf(tmp_path / "a.pdf", ["one"]), "pdf")
    notes = tmp_path / "b.txt"
    notes.write_text("second", encoding="utf-8")
    show(qtbot, preview, notes, "text")
    pages = preview.findChild(QSpinBox, "previewPage")  # the PDF view is kept for the next PDF, hidden
    assert pages is None or not pages.isVisible()
    assert preview.findChild(QPlainTextEdit, "previewText").isVisible()
    preview.show_file(None)
    assert preview.message.text() == "No file to preview" and preview.content is None


# -- where the preview is shown -------------------------------------------------------------------
@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    import shutil

    from studio.store.workspace import sample_project

    root = tmp_path / "kestrel"
    shutil.copytree(sample_project(), root)
    return root


def test_material_editor_previews_its_file(qtbot, sample_copy) -> None:
    from studio.editing.session import ProjectSession
    from studio.gui.base.project_context import ProjectContext
    from studio.gui.project.editors import open_editor

    context = ProjectContext(ProjectSession(sample_copy))
    editor = open_editor(context, "material", "M02")  # management-accounts-fy2023-fy2025.xlsx
    qtbot.addWidget(editor)
    preview = editor.findChild(MaterialPreview, "materialPreview")
    with qtbot.waitSignal(preview.shown, timeout=20000) as shown:
        editor.show()
    assert shown.args == ["xlsx"]
    tabs = preview.findChild(QTabWidget, "previewSheets")
    assert tabs.count() >= 1 and preview.content.current_view().model().rowCount() > 0
    preview.show_file(None)
    preview.runner.wait()
    qtbot.wait(10)


def test_preview_dock_follows_the_selected_material(qtbot, sample_copy) -> None:
    from PySide6.QtWidgets import QDockWidget

    from tests.gui.shell_support import open_window

    window = open_window(qtbot, sample_copy)
    dock = window.findChild(QDockWidget, "previewDock")
    assert dock is not None and window.preview is None  # built on first use
    window.select_in_explorer("material", "M06")  # fleet-valuation-extract.pdf
    preview = window.findChild(MaterialPreview, "materialPreview")
    qtbot.waitUntil(lambda: preview.kind == "pdf" and preview.content is not None, timeout=20000)
    assert preview.findChild(QSpinBox, "previewPage").maximum() >= 1
    with qtbot.waitSignal(preview.shown, timeout=20000) as shown:
        window.select_in_explorer("material", "M04")  # shipment-volumes-2023-2025.csv
    assert shown.args == ["csv"] and preview.path.name == "shipment-volumes-2023-2025.csv"
    assert preview.findChild(QTableView, "previewTable").model().rowCount() > 0
    window.close_project()
    window.runner.wait()
    qtbot.wait(10)


def test_an_imported_material_not_yet_saved_is_previewed_from_its_unsaved_content(qtbot, sample_copy, tmp_path) -> None:
    from studio.editing.materials import import_material
    from studio.editing.session import ProjectSession
    from studio.gui.base.project_context import ProjectContext
    from studio.gui.project.editors import open_editor

    source = make_pdf(tmp_path / "survey.pdf", ["site survey", "page two"])
    context = ProjectContext(ProjectSession(sample_copy))
    context.push(
        import_material(context.session.documents, source, "M90", "Site survey", "new_evidence", "original_record")
    )
    assert not (sample_copy / "materials" / "survey.pdf").exists()  # not saved yet
    editor = open_editor(context, "material", "M90")
    qtbot.addWidget(editor)
    preview = editor.findChild(MaterialPreview, "materialPreview")
    with qtbot.waitSignal(preview.shown, timeout=20000) as shown:
        editor.show()
    assert shown.args == ["pdf"], preview.message.text()
    assert preview.findChild(QSpinBox, "previewPage").maximum() == 2
    assert preview.path.read_bytes() == source.read_bytes() and sample_copy not in preview.path.parents
    preview.show_file(None)
    preview.runner.wait()
    qtbot.wait(10)


def test_a_file_that_takes_a_while_says_it_is_opening(qtbot, preview, tmp_path) -> None:
    import time

    notes = tmp_path / "notes.txt"
    notes.write_text("slow to come", encoding="utf-8")
    preview.runner.run("Busy", lambda: time.sleep(0.6), lambda _result: None)  # the helper is busy first
    preview.show_file(notes)
    assert preview.message.isHidden()  # no flash of text for a file that opens at once
    qtbot.waitUntil(lambda: not preview.message.isHidden(), timeout=2000)
    assert preview.message.text() == "Opening notes.txt…"
    qtbot.waitUntil(lambda: preview.kind == "text" and preview.content is not None, timeout=5000)
    assert preview.message.isHidden()


def test_a_fifty_sheet_workbook_reads_only_the_sheets_shown(qtbot, preview, tmp_path) -> None:
    import openpyxl

    path = tmp_path / "group.xlsx"
    book = openpyxl.Workbook(write_only=True)  # no recorded sheet sizes: each would be counted row by row
    for number in range(50):
        sheet = book.create_sheet(f"Entity {number:02d}")
        for row in range(30):
            sheet.append([f"entity {number}", row, row * 2.5])
    book.save(path)
    show(qtbot, preview, path, "xlsx")
    view = preview.content
    assert view.tabs.count() == 50
    assert view.view("Entity 00") is not None and view.view("Entity 00").model().rowCount() == 30
    assert all(view.book.known_size(f"Entity {n:02d}") is None for n in range(1, 50))  # nothing read yet
    with qtbot.waitSignal(view.sheet_ready, timeout=10000):
        view.tabs.setCurrentIndex(49)
    table = view.view("Entity 49")
    assert table is not None and table.model().rowCount() == 30
    assert loaded(qtbot, table.model(), 29, 0) == "entity 49"
    assert all(view.book.known_size(f"Entity {n:02d}") is None for n in range(1, 49))


def test_a_file_of_a_submission_is_shown_only_when_it_is_its_own(preview, qtbot, tmp_path: Path) -> None:
    from tests.untrusted.hostile import HOST_SECRET, host_secret

    secret = host_secret(tmp_path)
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "passwd.md").symlink_to(secret)
    (submission / "memo.md").write_text("# Memo\n")
    with qtbot.waitSignal(preview.shown) as shown:
        preview.show_file(submission / "passwd.md", within=submission)
    assert shown.args == ["error"] and preview.content is None
    assert preview.message.text() == "passwd.md: passwd.md is a link to a file outside the submission: not read"
    assert HOST_SECRET.strip() not in preview.message.text()
    with qtbot.waitSignal(preview.shown) as shown:
        preview.show_file(submission / "memo.md", within=submission)
    assert shown.args == ["markdown"] and preview.path == submission / "memo.md"
