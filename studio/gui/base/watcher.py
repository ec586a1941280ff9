"""Noticing project files changed on disk by another program (an editor, git, a sync tool).

A QFileSystemWatcher gives the prompt signal; a slow timer (and the window's activation) catches what
it misses, such as a file replaced by rename. Each look at the disk (a walk of the folder, a hash
per file) runs on a worker thread (`check_soon`); `check()` looks at once, for a caller that must
know now. A file is reported once per new content: the app's own saves and contents the user chose
to keep are known."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from studio.gui.base.disk_scan import DiskScanner
from studio.store.disk_state import ProjectFiles, digest, look_at_project

POLL_MS = 3000


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
        # Bumped whenever `_known` is set from the disk here (a save, a rescan): a look that started
        # before it may have read the file before the app wrote it, and is not believed.
        self._generation = 0
        self.scanner = DiskScanner(self)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_signal)
        self._watcher.directoryChanged.connect(self._on_signal)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.check_soon)
        self._pending = QTimer(self)  # editors write in bursts: look once they are done
        self._pending.setSingleShot(True)
        self._pending.setInterval(150)
        self._pending.timeout.connect(self.check_soon)
        self.rescan()
        self._timer.start()

    def _read_files(self) -> set[str]:
        return set(self._extra_files()) if self._extra_files is not None else set()

    def rescan(self) -> None:
        """Take the files on disk as known (after opening or reloading the project)."""
        self._generation += 1
        look = look_at_project(self.root, set(self._known) | self._read_files())
        self._known = dict(look.digests)
        self._watch()

    def acknowledge(self, files: Iterable[str]) -> None:
        """The app wrote these files itself, or the user chose to keep their own version."""
        self._generation += 1
        for rel in files:
            self._known[rel] = digest(self.root / rel)
        self._watch()

    def _watch(self) -> None:
        paths = [str(self.root / rel) for rel, known in self._known.items() if known is not None]
        folders = {str(Path(p).parent) for p in paths}
        wanted = set(paths) | folders
        watched = set(self._watcher.files()) | set(self._watcher.directories())
        missing = sorted(wanted - watched)
        if missing:
            self._watcher.addPaths(missing)

    def _on_signal(self, _path: str) -> None:
        self._pending.start()

    def changed(self) -> list[str]:
        """Files whose bytes differ from the known ones (a deleted file counts); looks at once."""
        look = look_at_project(self.root, set(self._known) | self._read_files())
        return [rel for rel, now in look.digests.items() if now != self._known.get(rel)]

    def check(self) -> list[str]:
        """Look now and report changed files once per new content; returns them."""
        read = self._read_files()
        return self._apply(look_at_project(self.root, set(self._known) | read), read)

    def check_soon(self) -> None:
        """Look on the worker thread; changed files are reported when the answer is in."""
        root, read, generation = self.root, self._read_files(), self._generation
        also = set(self._known) | read
        self.scanner.look(lambda: look_at_project(root, also), lambda look: self._looked(generation, read, look))

    def _looked(self, generation: int, read: set[str], look: ProjectFiles) -> None:
        if generation != self._generation:
            self.check_soon()  # the app wrote meanwhile: look again rather than report its own write
            return
        self._apply(look, read)

    def _apply(self, look: ProjectFiles, read: set[str]) -> list[str]:
        # A file the app read since the last look (a form opened an instruction): its content now
        # is the baseline. A new project YAML file, by contrast, is someone else's change.
        for rel in sorted(read - look.yaml_files - set(self._known)):
            self._known[rel] = look.digests.get(rel)
        changed = [rel for rel, now in look.digests.items() if now != self._known.get(rel)]
        if changed:
            for rel in changed:
                self._known[rel] = look.digests[rel]
            self._watch()  # an editor that saves by rename leaves the watcher on the old inode
            self.files_changed.emit(changed)
        return changed

    def stop(self) -> None:
        self._timer.stop()
        self._pending.stop()
        self.scanner.stop()
        paths = self._watcher.files() + self._watcher.directories()
        if paths:
            self._watcher.removePaths(paths)
