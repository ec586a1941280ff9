"""Word and PowerPoint previews: a docx as formatted rich text (`previewDocument`: headings, lists and
tables in order) and a pptx slide by slide (`previewSlides`: each slide's number and title, its text,
its tables, its speaker notes).

The document is built block by block with a QTextCursor, so the place of every block the judge's
evidence cites (`p=N`, `table=N`, `slide=N`, studio.previews.office) is known exactly:
`scroll_to(ref)` shows it at the top of the view, selected."""

from __future__ import annotations

from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFrameFormat,
    QTextLength,
    QTextList,
    QTextListFormat,
    QTextTableFormat,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from studio.previews.office import Block, Paragraph, Slide, SlidesPreview, Table, TextFrame, WordPreview

HEADING_SCALE = {0: 2.0, 1: 1.6, 2: 1.35, 3: 1.2}
"""A heading's font size against the body's, by level (0 is a document's Title); deeper levels get 1.1."""
_BULLETS = (QTextListFormat.Style.ListDisc, QTextListFormat.Style.ListCircle, QTextListFormat.Style.ListSquare)
_MUTED = QColor(110, 110, 110)


class OfficeView(QTextBrowser):
    """A docx or pptx shown read-only. `places` maps each cited fragment (`p=3`, `table=1`, `slide=2`) to
    its position in the document."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.places: dict[str, tuple[int, int]] = {}
        self._cursor = QTextCursor(self.document())
        self._fresh = True  # the cursor's block is empty and unused: the next block takes it
        self._lists: dict[int, tuple[str, QTextList]] = {}

    # -- building ---------------------------------------------------------------------------------
    def show_word(self, preview: WordPreview) -> None:
        self.setObjectName("previewDocument")
        for block in preview.blocks:
            self._word_block(block)
        if not preview.blocks:
            self._line("The document has no text.", muted=True)
        if preview.truncated:
            self._line("(only the start of the document is shown)", muted=True)
        self._done()

    def show_slides(self, preview: SlidesPreview) -> None:
        self.setObjectName("previewSlides")
        for slide in preview.slides:
            self._slide(slide)
        if not preview.slides:
            self._line("The presentation has no slides.", muted=True)
        if preview.truncated:
            self._line("(only the first slides are shown)", muted=True)
        self._done()

    def _done(self) -> None:
        self.moveCursor(QTextCursor.MoveOperation.Start)

    def _block(self, block_format: QTextBlockFormat | None = None, char_format: QTextCharFormat | None = None) -> int:
        """Start a block (the document's first, or the empty one after a table, is reused); its position."""
        block_format = block_format or QTextBlockFormat()
        char_format = char_format or QTextCharFormat()
        if self._fresh:
            self._cursor.setBlockFormat(block_format)
            self._cursor.setBlockCharFormat(char_format)
            self._fresh = False
        else:
            self._cursor.insertBlock(block_format, char_format)
        return self._cursor.position()

    def _line(self, text: str, muted: bool = False, italic: bool = False, bold: bool = False,
              indent: int = 0) -> int:
        block_format = QTextBlockFormat()
        block_format.setIndent(indent)
        char_format = _char(bold=bold, italic=italic or muted, color=_MUTED if muted else None)
        position = self._block(block_format, char_format)
        self._cursor.insertText(text, char_format)
        return position

    def _heading(self, text: str, level: int, top_margin: float = 0) -> tuple[int, int]:
        block_format = QTextBlockFormat()
        block_format.setHeadingLevel(min(max(level, 1), 6))
        block_format.setTopMargin(top_margin or 8)
        block_format.setBottomMargin(4)
        char_format = _char(bold=True)
        char_format.setFontPointSize(self.font().pointSizeF() * HEADING_SCALE.get(level, 1.1))
        start = self._block(block_format, char_format)
        self._cursor.insertText(text, char_format)
        return start, self._cursor.position()

    def _word_block(self, block: Block) -> None:
        if isinstance(block, Table):
            self._lists.clear()
            self.places[block.ref] = self._table(block)
            return
        if block.heading is not None:
            self._lists.clear()
            self.places[block.ref] = self._heading(block.text, block.heading)
            return
        start = self._block()
        for span in block.spans:
            self._cursor.insertText(span.text, _char(bold=span.bold, italic=span.italic))
        if block.list_kind is not None:
            self._add_to_list(block)
        else:
            self._lists.clear()
        self.places[block.ref] = (start, self._cursor.position())

    def _add_to_list(self, block: Paragraph) -> None:
        """A list item joins the list open at its level (a new one if the kind changed); deeper lists close."""
        level = block.list_level
        for deeper in [open_level for open_level in self._lists if open_level > level]:
            del self._lists[deeper]
        kind = block.list_kind or "number"
        current = self._lists.get(level)
        if current is not None and current[0] == kind:
            current[1].add(self._cursor.block())
            return
        list_format = QTextListFormat()
        list_format.setIndent(level + 1)
        list_format.setStyle(_BULLETS[level % len(_BULLETS)] if kind == "bullet" else QTextListFormat.Style.ListDecimal)
        self._lists[level] = (kind, self._cursor.createList(list_format))

    def _table(self, table: Table) -> tuple[int, int]:
        columns = max((len(row) for row in table.rows), default=0)
        if not table.rows or not columns:
            return self._line("(an empty table)", muted=True), self._cursor.position()
        table_format = QTextTableFormat()
        table_format.setBorder(1)
        table_format.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        table_format.setCellPadding(4)
        table_format.setCellSpacing(0)
        table_format.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        text_table = self._cursor.insertTable(len(table.rows), columns, table_format)
        header = _char(bold=True)
        for row_number, row in enumerate(table.rows):
            for column, text in enumerate(row):
                cell_cursor = text_table.cellAt(row_number, column).firstCursorPosition()
                cell_cursor.insertText(text, header if row_number == 0 else QTextCharFormat())
        self._cursor.movePosition(QTextCursor.MoveOperation.End)  # the empty block Qt keeps after a table
        self._fresh = True
        return text_table.firstPosition(), text_table.lastPosition()

    def _slide(self, slide: Slide) -> None:
        title = f"Slide {slide.number}" + (f" - {slide.title}" if slide.title else "")
        start, _end = self._heading(title, 2, top_margin=0 if slide.number == 1 else 22)
        shown = [part for part in slide.parts if not (isinstance(part, TextFrame) and part.is_title)]
        for part in shown:
            if isinstance(part, Table):
                self._table(part)
                continue
            for text, level in part.paragraphs:
                if text.strip():
                    self._line(text, indent=level)
        if not shown:
            self._line("(no text on this slide)" if not slide.title else "(only a title)", muted=True)
        if slide.notes:
            self._line("Speaker notes", muted=True, bold=True)
            for text in slide.notes.splitlines():
                self._line(text, muted=True)
        self.places[slide.ref] = (start, self._cursor.position())

    # -- going to a cited place -------------------------------------------------------------------
    def scroll_to(self, ref: str) -> bool:
        """Show the block a fragment cites (`p=3`, `p=3-5` - its first paragraph -, `table=1`, `slide=2`,
        with or without the leading "#") at the top of the view, selected; False when there is none."""
        name, _, value = ref.lstrip("#").partition("=")
        first = value.split("-", 1)[0]
        if not first.isdigit() or f"{name}={int(first)}" not in self.places:
            return False
        start, end = self.places[f"{name}={int(first)}"]
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        if name == "p" and self.objectName() == "previewDocument":  # a paragraph: the whole block
            cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock)
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        elif name != "slide":
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        else:  # a slide: its heading line
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        top = QTextCursor(self.document())
        top.setPosition(start)
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + self.cursorRect(top).top() - 6)
        return True


def _char(bold: bool = False, italic: bool = False, color: QColor | None = None) -> QTextCharFormat:
    char_format = QTextCharFormat()
    char_format.setFontWeight(QFont.Weight.Bold if bold else QFont.Weight.Normal)
    char_format.setFontItalic(italic)
    if color is not None:
        char_format.setForeground(QBrush(color))
    return char_format

