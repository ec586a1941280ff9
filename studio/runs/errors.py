"""The base of every failure a user can cause while preparing, running or reading a trial run."""

from __future__ import annotations

from studio.errors import StudioError


class RunError(StudioError):
    """A run cannot start, go on or be read; the message says what to do."""
