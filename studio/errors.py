"""The one base class for failures a user can cause and fix (bad input, a refused operation).

The CLI prints a `StudioError` as a message with exit 1 or 2; the app's background helper
shows it as a message. Anything else that escapes is a bug and gets a crash report.
"""

from __future__ import annotations


class StudioError(Exception):
    """An expected failure: the message names what is wrong and what to do about it."""
