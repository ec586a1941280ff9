"""The base of every failure of judging or expert review that a user can fix."""

from __future__ import annotations

from studio.errors import StudioError


class JudgingError(StudioError):
    """Judging or reviewing cannot go on; the message says what to do."""
