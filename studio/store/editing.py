"""Editing a project's files safely: every write checks the file is still what we read.

An expert may edit a YAML file in another editor while the app has it open. Writing our
version over theirs would silently lose their work, so a write refuses when the bytes on
disk differ from the bytes we loaded, and says which file to reload.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from studio.errors import StudioError
from studio.store.atomic import write_atomic
from studio.store.yamlfile import YamlDocument

if TYPE_CHECKING:
    from studio.store.history import Revision  # gitpython: imported when used


class ExternalEditError(StudioError):
    """A file changed on disk after the app read it."""

    def __init__(self, rel: str):
        super().__init__(
            f"{rel} was changed outside DeliverBench Studio since it was opened: "
            "nothing was written; reload it to take the version on disk, or merge it with your unsaved "
            "edits field by field (Keep mine, in the app)"
        )
        self.rel = rel


class OutsideProjectError(StudioError):
    """A file name that leads out of the project folder (by `..` or a symbolic link)."""

    def __init__(self, rel: str, root: Path):
        super().__init__(
            f"{rel} is outside the project folder {root} (a '..' or a symbolic link leads out of it): "
            "the app reads and writes only inside the project; replace the link by the file itself"
        )
        self.rel = rel


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


class ProjectEditor:
    """The files of one open project, as the app last read or wrote them."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self._seen: dict[str, str | None] = {}
        self._written: set[str] = set()
        # Files the app created since the last commit: deleted again, git has nothing to record.
        self._created: set[str] = set()

    def _path(self, rel: str) -> Path:
        """The file `rel` names, refused when it lies outside the project folder."""
        pure = PurePosixPath(rel)
        path = self.root / rel
        real = Path(os.path.realpath(path))
        if pure.is_absolute() or ".." in pure.parts or (real != self.root and self.root not in real.parents):
            raise OutsideProjectError(rel, self.root)
        return path

    def _disk(self, rel: str) -> bytes | None:
        path = self._path(rel)
        return path.read_bytes() if path.is_file() else None

    def open_document(self, rel: str) -> YamlDocument:
        document = YamlDocument.load(self._path(rel))
        self._seen[rel] = _digest(document.text.encode("utf-8"))
        return document

    def read_text(self, rel: str) -> str:
        data = self._disk(rel)
        self._seen[rel] = _digest(data)
        return (data or b"").decode("utf-8")

    def known_files(self) -> list[str]:
        """Files the app has read or written (Markdown and material files included): the ones
        a save guards against someone else's edit, and the ones worth watching."""
        return sorted(self._seen)

    def changed_on_disk(self) -> list[str]:
        """Files read by the app that someone else has changed (or deleted) since."""
        return sorted(rel for rel, digest in self._seen.items() if _digest(self._disk(rel)) != digest)

    def read_bytes(self, rel: str) -> bytes | None:
        """The file's bytes on disk (None when there is none), remembered for the write guard."""
        data = self._disk(rel)
        self._seen[rel] = _digest(data)
        return data

    def read_digest(self, rel: str) -> str | None:
        """SHA-256 of the bytes the app last read or wrote of `rel` (None: there was no file, or
        the app never read it): what its unsaved edits start from (studio.editing.journal)."""
        return self._seen.get(rel)

    def forget(self, rel: str) -> None:
        """Forget what was read of `rel`: the next write of it is guarded as for a file never read."""
        self._seen.pop(rel, None)

    def require_unchanged(self, rel: str) -> None:
        """Refuse (ExternalEditError) when `rel` is not what the app last read or wrote."""
        if rel in self._seen and _digest(self._disk(rel)) != self._seen[rel]:
            raise ExternalEditError(rel)
        if rel not in self._seen and self._path(rel).exists():
            raise ExternalEditError(rel)

    def write_bytes(self, rel: str, data: bytes) -> None:
        self.require_unchanged(rel)
        if self._seen.get(rel) is None:  # checked above: the file is not there
            self._created.add(rel)
        write_atomic(self._path(rel), data)
        self._seen[rel] = _digest(data)
        self._written.add(rel)

    def write_document(self, rel: str, document: YamlDocument) -> None:
        text = document.dumps()
        self.write_bytes(rel, text.encode("utf-8"))
        document.text = text

    def write_text(self, rel: str, text: str) -> None:
        self.write_bytes(rel, text.encode("utf-8"))

    def delete(self, rel: str) -> None:
        """Remove a file the app read, refused when someone else changed it since; folders it
        leaves empty inside the project go too. A file already gone is left so."""
        self.require_unchanged(rel)
        path = self._path(rel)
        if not path.exists() and not path.is_symlink():
            return
        path.unlink()
        self._seen[rel] = None
        if rel in self._created:
            self._created.discard(rel)
            self._written.discard(rel)
        else:
            self._written.add(rel)
        folder = path.parent
        while folder != self.root and self.root in folder.parents and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent

    def unrecorded(self) -> list[str]:
        """Files the app wrote or deleted since its last commit: what its next commit records."""
        return sorted(self._written)

    def recorded(self, paths: Iterable[str]) -> None:
        """`paths` were committed (a write made meanwhile, on another thread, stays unrecorded)."""
        self._written.difference_update(paths)
        self._created.difference_update(paths)

    def save(self, message: str) -> Revision:
        """Commit what the app wrote. Other uncommitted edits stay as they are, uncommitted."""
        paths = self.unrecorded()
        from studio.store.history import ProjectRepository  # gitpython: only for a commit

        revision = ProjectRepository(self.root).commit(message, paths=paths)
        self.recorded(paths)
        return revision
