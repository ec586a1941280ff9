"""Noticing that a project's verdict store changed: a verdict written by the review view, by
`dbstudio judge` in a terminal, or by a git pull. The scores, agreement and calibration shown in
the app are then computed again.

A QFileSystemWatcher on the project folder, `verdicts/` and each submission's folder gives the
prompt signal (a rater's file is replaced by rename, which changes its folder); a slow timer
catches what it misses. `changed` is sent once the files are quiet, and only when the store's
files (names, sizes, modification times) differ from the last look. The look itself (a walk of
the store) runs on a worker thread; `check()` looks at once for a caller that must know now.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from studio.gui.base.disk_scan import DiskScanner
from studio.store.disk_state import Fingerprint, verdict_fingerprint, verdict_folders

QUIET_MS = 300  # a judge writes one file per submission in bursts: look once they are done
POLL_MS = 5000


class VerdictWatcher(QObject):
    changed = Signal()
    """The verdict store's files changed since the last look."""

    def __init__(self, root: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.root = Path(root)
        self._seen = verdict_fingerprint(self.root)
        self.scanner = DiskScanner(self)
        self._quiet = QTimer(self)
        self._quiet.setSingleShot(True)
        self._quiet.setInterval(QUIET_MS)
        self._quiet.timeout.connect(self.check_soon)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(lambda _path: self._quiet.start())
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self.check_soon)
        self._poll.start()
        self._watch_folders(verdict_folders(self.root))

    def _watch_folders(self, folders: list[str]) -> None:
        wanted = set(folders)
        current = set(self._watcher.directories())
        if wanted - current:
            self._watcher.addPaths(sorted(wanted - current))
        if current - wanted:
            self._watcher.removePaths(sorted(current - wanted))

    def check(self) -> bool:
        """Look now; send `changed` (and answer True) when the store differs from the last look."""
        return self._apply(verdict_folders(self.root), verdict_fingerprint(self.root))

    def check_soon(self) -> None:
        """Look on the worker thread; `changed` is sent when the answer is in and differs."""
        root = self.root
        self.scanner.look(lambda: (verdict_folders(root), verdict_fingerprint(root)),
                          lambda look: self._apply(*look))

    def _apply(self, folders: list[str], now: Fingerprint) -> bool:
        self._watch_folders(folders)
        if now == self._seen:
            return False
        self._seen = now
        self.changed.emit()
        return True
