"""Evidence from images: listed with their size; a multimodal judge is given the files (Evidence.images())."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, UnidentifiedImageError

from studio.judging.evidence_budget import Budget, EvidenceLimits, ReadError


def read_image(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """(cut note, error): the image is decoded whole, so a truncated or corrupt one is an error, not a blank."""
    try:
        with Image.open(path) as image:
            image.load()
            described = f"(image, {image.width} x {image.height} pixels, {image.format or 'unknown format'}; " \
                        "given to a judge that reads images)"
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as error:
        raise ReadError(f"the image is damaged or not an image: {error}") from error
    budget.add(rel, described)
    return None, None
