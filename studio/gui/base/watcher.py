"""Noticing project files changed on disk by another program (an editor, git, a sync tool).

A QFileSystemWatcher gives the prompt signal; `check()` (called when the window is activated and
on a slow timer) catches what the watcher misses, such as a file replaced by rename. A file is
reported once per new content: the app's own saves and contents the user chose to keep are known."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from studio.store import layout

POLL_MS = 3000


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class ProjectWatcher(QObject):
    """Watches one project folder's files; `files_changed(list[str])` names changed files."""

    files_changed = Signal(list)
    """Project files (relative paths) whose bytes on disk differ from what the app last knew."""

    def __init__(self, root: Path, extra_files: Callable[[], Iterable[str]] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.root = Path(root)
        self._extra_files = extra_files  # files the session read besides the project's YAML
        self._known: dict[str, str | None] = {}
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_signal)
        self._watcher.directoryChanged.connect(self._on_signal)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.check)
        self._pending = QTimer(self)  # editors write in bursts: look once they are done
        self._pending.setSingleShot(True)
        self._pending.setInterval(150)
        self._pending.timeout.connect(self.check)
        self.rescan()
        self._timer.start()

    def _yaml_files(self) -> set[str]:
        return {path.relative_to(self.root).as_posix() for path in layout.yaml_files(self.root)}

    def _files(self, yaml_files: set[str] | None = None) -> list[str]:
        files = set(self._yaml_files() if yaml_files is None else yaml_files)
        files |= set(self._known)
        if self._extra_files is not None:
            files |= set(self._extra_files())
        return sorted(files)

    def rescan(self) -> None:
        """Take the files on disk as known (after opening or reloading the project)."""
        self._known = {rel: _digest(self.root / rel) for rel in self._files()}
        self._watch()

    def acknowledge(self, files: Iterable[str]) -> None:
        """The app wrote these files itself, or the user chose to keep their own version."""
        for rel in files:
            self._known[rel] = _digest(self.root / rel)
        self._watch()

    def _watch(self) -> None:
        paths = [str(self.root / rel) for rel in self._known if (self.root / rel).is_file()]
        folders = {str(Path(p).parent) for p in paths}
        wanted = set(paths) | folders
        watched = set(self._watcher.files()) | set(self._watcher.directories())
        missing = sorted(wanted - watched)
        if missing:
            self._watcher.addPaths(missing)

    def _on_signal(self, _path: str) -> None:
        self._pending.start()

    def changed(self, yaml_files: set[str] | None = None) -> list[str]:
        """Files whose bytes differ from the known ones (a deleted file counts)."""
        return [rel for rel in self._files(yaml_files) if _digest(self.root / rel) != self._known.get(rel)]

    def check(self) -> list[str]:
        """Report changed files once per new content; returns them."""
        # A file the app read since the last look (a form opened an instruction): its content now
        # is the baseline. A new project YAML file, by contrast, is someone else's change.
        read = set(self._extra_files()) if self._extra_files is not None else set()
        yaml_files = self._yaml_files()  # one scan of the folder per look
        new = sorted(read - yaml_files - set(self._known))
        if new:
            self.acknowledge(new)
        changed = self.changed(yaml_files)
        if changed:
            for rel in changed:
                self._known[rel] = _digest(self.root / rel)
            self._watch()  # an editor that saves by rename leaves the watcher on the old inode
            self.files_changed.emit(changed)
        return changed

    def stop(self) -> None:
        self._timer.stop()
        self._pending.stop()
        paths = self._watcher.files() + self._watcher.directories()
        if paths:
            self._watcher.removePaths(paths)
