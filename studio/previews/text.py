"""Markdown, plain text and images: read whole, but never more than a cap."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.previews.errors import PreviewError

TEXT_CAP = 2 * 1024 * 1024
"""A longer text shows its first 2 MB: a text widget with more is slow and nobody reads it there."""
IMAGE_CAP = 64 * 1024 * 1024


@dataclass(frozen=True)
class TextPreview:
    text: str
    truncated: bool
    size: int


def read_text(path: Path | str, cap: int = TEXT_CAP) -> TextPreview:
    path = Path(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            data = handle.read(cap)
    except OSError as error:
        raise PreviewError(path, f"cannot be read ({error.strerror})") from error
    if b"\x00" in data[:8192]:
        raise PreviewError(path, f"is not a text file (it starts with {data[:8]!r}); open it with its own program")
    return TextPreview(data.decode("utf-8-sig", errors="replace"), size > cap, size)


def read_image(path: Path | str) -> bytes:
    """The image's bytes (Qt decodes them and says when they are not an image)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > IMAGE_CAP:
            raise PreviewError(path, f"is too large to preview ({size // (1024 * 1024)} MB)")
        return path.read_bytes()
    except OSError as error:
        raise PreviewError(path, f"cannot be read ({error.strerror})") from error
