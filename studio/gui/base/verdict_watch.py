"""Noticing that a project's verdict store changed: a verdict written by the review view, by
`dbstudio judge` in a terminal, or by a git pull. The scores, agreement and calibration shown in
the app are then computed again.

A QFileSystemWatcher on the project folder, `verdicts/` and each submission's folder gives the
prompt signal (a rater's file is replaced by rename, which changes its folder); a slow timer
catches what it misses. `changed` is sent once the files are quiet, and only when the store's
files (names, sizes, modification times) differ from the last look.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from studio.store import layout
from studio.store.fingerprint import verdicts_fingerprint

QUIET_MS = 300  # a judge writes one file per submission in bursts: look once they are done
POLL_MS = 5000



class VerdictWatcher(QObject):
    changed = Signal()
    """The verdict store's files changed since the last look."""

    def __init__(self, root: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.root = Path(root)
        self._seen = verdicts_fingerprint(self.root)
        self._quiet = QTimer(self)
        self._quiet.setSingleShot(True)
        self._quiet.setInterval(QUIET_MS)
        self._quiet.timeout.connect(self.check)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(lambda _path: self._quiet.start())
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self.check)
        self._poll.start()
        self._watch_folders()

    def _watch_folders(self) -> None:
        store = layout.verdicts_dir(self.root)
        folders = [self.root, store] + ([p for p in store.iterdir() if p.is_dir()] if store.is_dir() else [])
        wanted = {str(p) for p in folders if p.is_dir()}
        current = set(self._watcher.directories())
        if wanted - current:
            self._watcher.addPaths(sorted(wanted - current))
        if current - wanted:
            self._watcher.removePaths(sorted(current - wanted))

    def check(self) -> bool:
        """Look now; send `changed` (and answer True) when the store differs from the last look."""
        self._watch_folders()
        now = verdicts_fingerprint(self.root)
        if now == self._seen:
            return False
        self._seen = now
        self.changed.emit()
        return True
