"""The error of a history operation, apart from studio.store.history so that code that only raises
or catches it (restore, the object diff, the history panel) does not import GitPython."""

from __future__ import annotations

from studio.errors import StudioError


class HistoryError(StudioError):
    """A history operation that cannot be done; the message says why and what to do."""
