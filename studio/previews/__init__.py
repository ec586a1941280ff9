"""Qt-free readers behind the material previews: PDF pages, workbook cells, CSV rows, Word documents,
PowerPoint slides, text.

Each reader opens a file lazily and reads only what a view asks for, so a 300-page PDF, a 50-sheet
workbook or a 100 MB CSV opens at once; a damaged file raises `PreviewError` naming the file."""

from __future__ import annotations

from pathlib import Path

from studio.previews.errors import PreviewError
from studio.untrusted import Limits, UntrustedFileError
from studio.untrusted.tree import reach

__all__ = ["PreviewError", "file_in_tree", "preview_kind"]

_KINDS = {
    ".pdf": "pdf",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".docx": "docx",
    ".pptx": "pptx",
    ".csv": "csv",
    ".tsv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".gif": "image",
    ".bmp": "image",
    ".webp": "image",
}


def preview_kind(path: Path | str) -> str:
    """How a file is previewed, by its suffix: pdf, xlsx, docx, pptx, csv, markdown, image or text."""
    return _KINDS.get(Path(path).suffix.lower(), "text")


def file_in_tree(folder: Path, rel: str, tree: str = "the submission") -> Path:
    """The file `rel` of an agent's tree (a submission) to preview, with no link in its path: reached only
    through links inside `folder`, a regular file within the limits (studio.untrusted). A link out (a host
    file, the project's evaluator references), a loop, a device or a FIFO is a PreviewError saying so."""
    try:
        return reach(folder, rel, tree=tree, limits=Limits()).path
    except UntrustedFileError as refused:
        raise PreviewError(Path(folder) / rel, str(refused)) from None
