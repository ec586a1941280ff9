"""Evidence from Word and PowerPoint files: a docx's paragraphs and tables in order (`path#p=N-M`,
`path#table=N`), a pptx's slides with their text frames, tables and notes (`path#slide=N`)."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docx
import pptx
from docx.opc.exceptions import PackageNotFoundError as DocxPackageNotFound
from docx.table import Table
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.exc import PackageNotFoundError as PptxPackageNotFound

from studio.judging.evidence_budget import Budget, EvidenceLimits, ReadError

PARAGRAPHS = 20
"""Paragraphs per excerpt of a docx; a heading starts a new excerpt."""

# lxml's XMLSyntaxError (malformed XML inside the package) is a SyntaxError
_DAMAGED = (zipfile.BadZipFile, DocxPackageNotFound, PptxPackageNotFound, SyntaxError, KeyError, ValueError,
            TypeError, AttributeError, IndexError, OSError)


def _problem(error: Exception, suffix: str) -> str:
    if isinstance(error, zipfile.BadZipFile | DocxPackageNotFound | PptxPackageNotFound):
        return f"it is not a complete .{suffix} package (a zip archive of its parts)"
    return str(error) or type(error).__name__


def _table_text(rows: Iterator[Any]) -> str:
    return "\n".join(" | ".join(cell.text.strip().replace("\n", " ") for cell in row.cells) for row in rows)


def read_docx(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """(cut note, error) of a Word document."""
    try:
        document = docx.Document(str(path))
        blocks = list(document.iter_inner_content())
    except _DAMAGED as error:
        raise ReadError(f"the Word document is damaged: {_problem(error, 'docx')}") from error
    paragraphs: list[str] = []
    first = number = tables = 0

    def flush() -> bool:
        text = "\n".join(paragraphs).strip()
        paragraphs.clear()
        if not text:
            return True
        ref = f"{rel}#p={first}" if first == number else f"{rel}#p={first}-{number}"
        return budget.add(ref, text)

    for block in blocks:
        if isinstance(block, Table):
            tables += 1
            if not (flush() and budget.add(f"{rel}#table={tables}", _table_text(iter(block.rows)))):
                break
            continue
        heading = (block.style is not None and (block.style.name or "").startswith(("Heading", "Title")))
        if paragraphs and (heading or len(paragraphs) >= PARAGRAPHS) and not flush():
            break
        number += 1
        if not paragraphs:
            first = number
        paragraphs.append(block.text)
    else:
        flush()
    all_tables = sum(1 for block in blocks if isinstance(block, Table))
    whole = f"{len(blocks) - all_tables:,} paragraphs and {all_tables:,} tables"
    return (budget.cut_note(whole) if budget.full else None), None


def _shape_texts(shapes: Any) -> Iterator[str]:
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_texts(shape.shapes)
        elif getattr(shape, "has_table", False) and shape.has_table:
            yield _table_text(iter(shape.table.rows))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame and shape.text_frame.text.strip():
            yield shape.text_frame.text.strip()


def read_pptx(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """(cut note, error) of a presentation: one excerpt per slide."""
    try:
        slides = list(pptx.Presentation(str(path)).slides)
    except _DAMAGED as error:
        raise ReadError(f"the presentation is damaged: {_problem(error, 'pptx')}") from error
    for number, slide in enumerate(slides, start=1):
        try:
            parts = list(_shape_texts(slide.shapes))
            notes = slide.notes_slide.notes_text_frame.text.strip() if slide.has_notes_slide else ""
        except _DAMAGED as error:
            return None, f"the presentation is damaged at slide {number}: {error or type(error).__name__}"
        if notes:
            parts.append(f"(speaker notes) {notes}")
        if not budget.add(f"{rel}#slide={number}", "\n".join(parts) or "(no text on this slide)"):
            return budget.cut_note(f"{len(slides):,} slides") + f"; not shown: from slide {number + 1}", None
    return None, None
