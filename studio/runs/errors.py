"""The base of every failure of a trial run that a user can fix (engine, image, harness, store)."""

from __future__ import annotations

from studio.errors import StudioError


class RunError(StudioError):
    """A trial run cannot start or go on; the message says what to do."""
