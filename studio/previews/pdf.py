"""PDF pages for the preview: page count, one page rendered at a zoom, text search with hit rectangles.

pymupdf documents are not safe to use from two threads at once: the GUI calls every method of one
`PdfPreview` from its one background helper, one job at a time."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from studio.previews.errors import PreviewError, starts_with


@dataclass(frozen=True)
class RenderedPage:
    """One page as an RGB buffer (rows of `stride` bytes) - what a QImage is built from."""

    number: int
    width: int
    height: int
    stride: int
    samples: bytes

    def png(self) -> bytes:
        pixmap = pymupdf.Pixmap(pymupdf.csRGB, self.width, self.height, self.samples, False)
        return bytes(pixmap.tobytes("png"))


@dataclass(frozen=True)
class SearchHit:
    """A place where the searched text was found: 0-based page and (x0, y0, x1, y1) in PDF points."""

    page: int
    rect: tuple[float, float, float, float]


class PdfPreview:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        head = starts_with(self.path, 1024)
        if b"%PDF-" not in head:
            raise PreviewError(self.path, f"not a PDF (it starts with {head[:8]!r})")
        try:
            self._doc = pymupdf.open(self.path, filetype="pdf")
        except (pymupdf.FileDataError, RuntimeError, ValueError) as error:
            raise PreviewError(self.path, f"the PDF is damaged: {error}") from error
        problem = ("the PDF is password-protected; open it with its password outside the app" if self._doc.needs_pass
                   else "the PDF is damaged: it has no readable page" if self._doc.page_count == 0 else None)
        if problem:
            self._doc.close()
            raise PreviewError(self.path, problem)

    @property
    def page_count(self) -> int:
        return int(self._doc.page_count)

    def _page(self, number: int) -> pymupdf.Page:
        if not 0 <= number < self.page_count:
            raise PreviewError(self.path, f"has no page {number + 1} (it has {self.page_count})")
        try:
            return self._doc.load_page(number)
        except (pymupdf.FileDataError, RuntimeError, ValueError) as error:
            raise PreviewError(self.path, f"page {number + 1} is damaged: {error}") from error

    def render(self, number: int, zoom: float = 1.0) -> RenderedPage:
        """Page `number` (0-based) as RGB pixels at `zoom` (1.0 = 72 dpi)."""
        page = self._page(number)
        try:
            pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        except (pymupdf.FileDataError, RuntimeError, ValueError) as error:
            raise PreviewError(self.path, f"page {number + 1} cannot be drawn: {error}") from error
        return RenderedPage(number, pixmap.width, pixmap.height, pixmap.stride, bytes(pixmap.samples))

    def page_text(self, number: int) -> str:
        return str(self._page(number).get_text())

    def search(self, text: str) -> list[SearchHit]:
        """Every place `text` occurs (any case), page by page."""
        if not text.strip():
            return []
        hits = []
        for number in range(self.page_count):
            for rect in self._page(number).search_for(text):
                hits.append(SearchHit(number, (rect.x0, rect.y0, rect.x1, rect.y1)))
        return hits

    def close(self) -> None:
        self._doc.close()
