"""Evidence from PDFs (pymupdf): the text page by page, cited as `path#page=N`."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from studio.judging.evidence_budget import Budget, EvidenceLimits, ReadError

_DAMAGED = (pymupdf.FileDataError, RuntimeError, ValueError, OSError)


def read_pdf(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """(cut note, error): the text of each page; a page without text says so (it may be a scan)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(1024)
    except OSError as error:
        raise ReadError(f"cannot be read ({error.strerror})") from error
    if b"%PDF-" not in head:
        raise ReadError(f"the PDF is damaged: it is not a PDF (it starts with {head[:8]!r})")
    try:
        document = pymupdf.open(path, filetype="pdf")
    except _DAMAGED as error:
        raise ReadError(f"the PDF is damaged: {error}") from error
    with document:
        if document.needs_pass:
            raise ReadError("the PDF is password-protected: its text cannot be read")
        pages = document.page_count
        if pages == 0:
            raise ReadError("the PDF is damaged: it has no readable page")
        # pymupdf repairs a damaged file as it opens it: what it could not recover is simply absent
        repaired = ("the PDF is damaged (it was repaired to be read): pages or text may be missing"
                    if document.is_repaired else None)
        for number in range(min(pages, limits.pages)):
            ref = f"{rel}#page={number + 1}"
            try:
                text = str(document.load_page(number).get_text()).strip()
            except _DAMAGED as error:
                return None, f"the PDF is damaged at page {number + 1} of {pages}: {error}"
            if not budget.add(ref, text or "(no text on this page: it may be a scanned image)"):
                return budget.cut_note(f"{pages:,} pages") + f"; not shown: from page {number + 1}", repaired
        if pages > limits.pages:
            return f"cut at {limits.pages:,} pages (the evidence's limit per PDF) of {pages:,}", repaired
    return None, repaired
