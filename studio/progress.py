"""What long work reports as it goes, and how it learns that it should stop: a Qt-free object the
work is handed (the judge, a bulk import), which the app listens to from another thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ProgressReport:
    done: int
    total: int | None  # None: how much is left is not known
    text: str = ""


class Progress:
    """Reports of the work as it goes (`report`), and a stop request it checks (`cancelled`): set from
    any thread, read by the work between its steps, so stopping keeps what was finished."""

    def __init__(self) -> None:
        self._cancelled = threading.Event()
        self._listeners: list[Callable[[ProgressReport], None]] = []
        self.last: ProgressReport | None = None

    def listen(self, listener: Callable[[ProgressReport], None]) -> None:
        self._listeners.append(listener)

    def report(self, done: int, total: int | None = None, text: str = "") -> None:
        self.last = ProgressReport(done, total, text)
        for listener in list(self._listeners):
            listener(self.last)

    def cancel(self) -> None:
        """Ask the work to stop at its next step."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()
