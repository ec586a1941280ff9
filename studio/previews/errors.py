"""The error a preview shows instead of a damaged file's content."""

from __future__ import annotations

from pathlib import Path

from studio.errors import StudioError
from studio.untrusted import shown


class PreviewError(StudioError):
    """A file that cannot be previewed: the message names the file and what is wrong with it."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{shown(Path(path).name)}: {problem}")
        self.path = Path(path)
        self.problem = problem


def starts_with(path: Path, size: int = 8) -> bytes:
    """The first bytes of a file (to say what a damaged file looks like); a missing file is an error."""
    try:
        with path.open("rb") as handle:
            return handle.read(size)
    except OSError as error:
        raise PreviewError(path, f"cannot be read ({error.strerror})") from error
