"""Evidence from Word and PowerPoint files: a docx's paragraphs and tables in order (`path#p=N-M`,
`path#table=N`), a pptx's slides with their text frames, tables and notes (`path#slide=N`).

The files are read by studio.previews.office (the preview's reader: what the judge cites is what the
preview scrolls to); this module groups what it yields into excerpts within the budget."""

from __future__ import annotations

from pathlib import Path

from studio.judging.evidence_budget import Budget, EvidenceLimits, ReadError
from studio.previews.errors import PreviewError
from studio.previews.office import SlideDeck, Table, TextFrame, WordDocument

PARAGRAPHS = 20
"""Paragraphs per excerpt of a docx; a heading starts a new excerpt."""


def read_docx(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """(cut note, error) of a Word document."""
    try:
        document = WordDocument(path)
    except PreviewError as error:
        raise ReadError(error.problem) from error
    paragraphs: list[str] = []
    first = number = 0

    def flush() -> bool:
        text = "\n".join(paragraphs).strip()
        paragraphs.clear()
        if not text:
            return True
        ref = f"{rel}#p={first}" if first == number else f"{rel}#p={first}-{number}"
        return budget.add(ref, text)

    try:
        for block in document.blocks():
            if isinstance(block, Table):
                if not (flush() and budget.add(f"{rel}#{block.ref}", block.text())):
                    break
                continue
            if paragraphs and (block.heading is not None or len(paragraphs) >= PARAGRAPHS) and not flush():
                break
            number = block.number
            if not paragraphs:
                first = number
            paragraphs.append(block.text)
        else:
            flush()
    except PreviewError as error:
        flush()
        return None, error.problem
    whole = f"{document.paragraph_count:,} paragraphs and {document.table_count:,} tables"
    return (budget.cut_note(whole) if budget.full else None), None


def read_pptx(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """(cut note, error) of a presentation: one excerpt per slide."""
    try:
        deck = SlideDeck(path)
    except PreviewError as error:
        raise ReadError(error.problem) from error
    try:
        for slide in deck.slides():
            parts = [part.text if isinstance(part, TextFrame) else part.text() for part in slide.parts]
            if slide.notes:
                parts.append(f"(speaker notes) {slide.notes}")
            if not budget.add(f"{rel}#{slide.ref}", "\n".join(parts) or "(no text on this slide)"):
                return (budget.cut_note(f"{deck.slide_count:,} slides")
                        + f"; not shown: from slide {slide.number + 1}"), None
    except PreviewError as error:
        return None, error.problem
    return None, None
