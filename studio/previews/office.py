"""Word and PowerPoint files read in order: a docx's body (headings with their level, paragraphs, list
items, tables) and a pptx's slides (title, text frames, tables, speaker notes).

The one reader of the two formats: the material preview shows what it yields and the judge's evidence
(studio.judging.evidence_office) quotes it. Each block carries the fragment the evidence cites it by -
`p=N` (the Nth paragraph of the body, tables not counted), `table=N`, `slide=N` - so the preview can
scroll to what a judge cites. A damaged or non-Office file is a `PreviewError` naming it."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import docx
import pptx
from docx.opc.exceptions import PackageNotFoundError as DocxPackageNotFound
from docx.table import Table as DocxTable
from docx.text.hyperlink import Hyperlink
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.exc import PackageNotFoundError as PptxPackageNotFound

from studio.previews.errors import PreviewError, starts_with

# lxml's XMLSyntaxError (malformed XML inside the package) is a SyntaxError
_DAMAGED = (zipfile.BadZipFile, DocxPackageNotFound, PptxPackageNotFound, SyntaxError, KeyError, ValueError,
            TypeError, AttributeError, IndexError, OSError)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"

ListKind = Literal["bullet", "number"]
TableRows = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Span:
    """A run of a paragraph's text with its emphasis."""

    text: str
    bold: bool = False
    italic: bool = False


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of a docx's body. `heading` is its level (0 for a Title, 1.. for Heading 1..) or None;
    a list item has `list_kind` and its 0-based `list_level`."""

    number: int
    text: str
    spans: tuple[Span, ...]
    style: str = ""
    heading: int | None = None
    list_kind: ListKind | None = None
    list_level: int = 0

    @property
    def ref(self) -> str:
        return f"p={self.number}"


@dataclass(frozen=True)
class Table:
    """A table (of a docx's body or a slide): its rows of cell texts. `number` counts a docx's tables
    (a slide's tables have 0: they are cited by their slide)."""

    number: int
    rows: TableRows

    @property
    def ref(self) -> str:
        return f"table={self.number}"

    def text(self) -> str:
        """One line per row, cells separated by " | " (a cell's own lines joined by spaces)."""
        return "\n".join(" | ".join(cell.strip().replace("\n", " ") for cell in row) for row in self.rows)


Block = Paragraph | Table


@dataclass(frozen=True)
class TextFrame:
    """A text frame of a slide (a placeholder, a text box, a shape's text): its paragraphs with their
    0-based bullet level."""

    paragraphs: tuple[tuple[str, int], ...]
    is_title: bool = False

    @property
    def text(self) -> str:
        return "\n".join(text for text, _level in self.paragraphs).strip()


@dataclass(frozen=True)
class Slide:
    number: int
    title: str
    parts: tuple[TextFrame | Table, ...]
    """The slide's text frames (its title's among them) and tables, in the order of its shapes."""
    notes: str

    @property
    def ref(self) -> str:
        return f"slide={self.number}"


def _problem(error: Exception, suffix: str) -> str:
    if isinstance(error, zipfile.BadZipFile | DocxPackageNotFound | PptxPackageNotFound):
        return f"it is not a complete .{suffix} package (a zip archive of its parts)"
    return str(error) or type(error).__name__


def _check_zip(path: Path, what: str) -> None:
    head = starts_with(path, 4)
    if head != b"PK\x03\x04":
        raise PreviewError(path, f"is not {what} (it starts with {head!r}, not a zip archive)")


# -- Word ----------------------------------------------------------------------------------------
class WordDocument:
    """An opened docx: `blocks()` yields its body's paragraphs and tables in order."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        _check_zip(self.path, "a Word document")
        try:
            self._document = docx.Document(str(self.path))
            self._body: list[Any] = list(self._document.iter_inner_content())
        except _DAMAGED as error:
            raise PreviewError(self.path, f"the Word document is damaged: {_problem(error, 'docx')}") from error
        self.table_count = sum(1 for block in self._body if isinstance(block, DocxTable))
        self.paragraph_count = len(self._body) - self.table_count
        self._numbering: Any = None

    def blocks(self) -> Iterator[Block]:
        paragraphs = tables = 0
        for block in self._body:
            try:
                if isinstance(block, DocxTable):
                    tables += 1
                    yield Table(tables, tuple(tuple(cell.text for cell in row.cells) for row in block.rows))
                else:
                    paragraphs += 1
                    yield self._paragraph(paragraphs, block)
            except _DAMAGED as error:
                where = f"table {tables}" if isinstance(block, DocxTable) else f"paragraph {paragraphs}"
                raise PreviewError(self.path, f"the Word document is damaged at {where}: "
                                              f"{error or type(error).__name__}") from error

    def _paragraph(self, number: int, paragraph: Any) -> Paragraph:
        style = paragraph.style
        name = (style.name or "") if style is not None else ""
        heading = None
        if name.startswith(("Heading", "Title")):
            digits = "".join(char for char in name if char.isdigit())
            heading = 0 if name.startswith("Title") else int(digits) if digits else 1
        spans = []
        for item in paragraph.iter_inner_content():
            runs = item.runs if isinstance(item, Hyperlink) else [item]
            spans += [Span(run.text, bool(run.bold), bool(run.italic)) for run in runs if run.text]
        kind, level = self._list_of(paragraph, name) if heading is None else (None, 0)
        return Paragraph(number, paragraph.text, tuple(spans), name, heading, kind, level)

    def _list_of(self, paragraph: Any, style_name: str) -> tuple[ListKind | None, int]:
        """Whether a paragraph is a list item (numbered in its own properties or by its style), and its level."""
        num_id = level = None
        element: Any = paragraph._p
        style = paragraph.style
        while element is not None:
            numbering = element.find(f"{_W}pPr/{_W}numPr")
            if numbering is not None:
                found_id = numbering.find(f"{_W}numId")
                found_level = numbering.find(f"{_W}ilvl")
                num_id = found_id.get(f"{_W}val") if found_id is not None and num_id is None else num_id
                if found_level is not None and level is None:
                    level = int(found_level.get(f"{_W}val") or 0)
                if num_id is not None:
                    break
            element = style.element if style is not None else None
            style = style.base_style if style is not None else None
        by_name: ListKind | None = ("bullet" if style_name.startswith("List Bullet")
                                    else "number" if style_name.startswith("List Number") else None)
        if level is None:
            tail = style_name.rsplit(" ", 1)[-1]
            level = int(tail) - 1 if by_name and tail.isdigit() else 0
        if num_id is None:
            return by_name, level
        if num_id == "0":  # numbering switched off
            return None, 0
        return self._format_of(num_id, level) or by_name or "number", level

    def _format_of(self, num_id: str, level: int) -> ListKind | None:
        if self._numbering is None:
            try:
                self._numbering = self._document.part.numbering_part.element
            except (KeyError, NotImplementedError, AttributeError):
                self._numbering = False
        if self._numbering is False:
            return None
        num = next((n for n in self._numbering.iterfind(f"{_W}num") if n.get(f"{_W}numId") == num_id), None)
        abstract = num.find(f"{_W}abstractNumId") if num is not None else None
        if abstract is None:
            return None
        abstract_id = abstract.get(f"{_W}val")
        for definition in self._numbering.iterfind(f"{_W}abstractNum"):
            if definition.get(f"{_W}abstractNumId") != abstract_id:
                continue
            for lvl in definition.iterfind(f"{_W}lvl"):
                if lvl.get(f"{_W}ilvl") == str(level):
                    fmt = lvl.find(f"{_W}numFmt")
                    value = fmt.get(f"{_W}val") if fmt is not None else None
                    return "bullet" if value == "bullet" else None if value == "none" else "number"
        return None


# -- PowerPoint ----------------------------------------------------------------------------------
class SlideDeck:
    """An opened pptx: `slides()` yields its slides in order."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        _check_zip(self.path, "a PowerPoint presentation")
        try:
            self._slides = list(pptx.Presentation(str(self.path)).slides)
        except _DAMAGED as error:
            raise PreviewError(self.path, f"the presentation is damaged: {_problem(error, 'pptx')}") from error
        self.slide_count = len(self._slides)

    def slides(self) -> Iterator[Slide]:
        for number, slide in enumerate(self._slides, start=1):
            try:
                title_shape = slide.shapes.title
                title_id = title_shape.shape_id if title_shape is not None else None
                parts = tuple(_parts(slide.shapes, title_id))
                notes = slide.notes_slide.notes_text_frame.text.strip() if slide.has_notes_slide else ""
            except _DAMAGED as error:
                raise PreviewError(self.path, f"the presentation is damaged at slide {number}: "
                                              f"{error or type(error).__name__}") from error
            title = next((part.text for part in parts if isinstance(part, TextFrame) and part.is_title), "")
            yield Slide(number, title, parts, notes)


def _parts(shapes: Any, title_id: int | None) -> Iterator[TextFrame | Table]:
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _parts(shape.shapes, title_id)
        elif getattr(shape, "has_table", False) and shape.has_table:
            yield Table(0, tuple(tuple(cell.text for cell in row.cells) for row in shape.table.rows))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame and shape.text_frame.text.strip():
            paragraphs = tuple((paragraph.text, paragraph.level) for paragraph in shape.text_frame.paragraphs)
            yield TextFrame(paragraphs, is_title=title_id is not None and shape.shape_id == title_id)


# -- what the preview shows ----------------------------------------------------------------------
TEXT_CAP = 2 * 1024 * 1024
"""A longer document shows its first 2 MB of text (as a long text file does)."""


@dataclass(frozen=True)
class WordPreview:
    blocks: tuple[Block, ...]
    truncated: bool
    """True when the text went past the cap: the blocks are the document's first ones."""


@dataclass(frozen=True)
class SlidesPreview:
    slides: tuple[Slide, ...]
    truncated: bool


def read_word(path: Path | str, cap: int = TEXT_CAP) -> WordPreview:
    """A docx's body in order, up to `cap` characters of text."""
    blocks: list[Block] = []
    size = 0
    for block in WordDocument(path).blocks():
        size += len(block.text) if isinstance(block, Paragraph) else sum(len(cell) for row in block.rows for cell in row)
        if size > cap:
            return WordPreview(tuple(blocks), True)
        blocks.append(block)
    return WordPreview(tuple(blocks), False)


def read_slides(path: Path | str, cap: int = TEXT_CAP) -> SlidesPreview:
    """A pptx's slides in order, up to `cap` characters of text."""
    slides: list[Slide] = []
    size = 0
    for slide in SlideDeck(path).slides():
        size += len(slide.notes) + sum(len(part.text) if isinstance(part, TextFrame) else len(part.text())
                                       for part in slide.parts)
        if size > cap:
            return SlidesPreview(tuple(slides), True)
        slides.append(slide)
    return SlidesPreview(tuple(slides), False)
