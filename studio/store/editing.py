"""Editing a project's files safely: every write checks the file is still what we read.

An expert may edit a YAML file in another editor while the app has it open. Writing our
version over theirs would silently lose their work, so a write refuses when the bytes on
disk differ from the bytes we loaded, and says which file to reload.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from studio.errors import StudioError
from studio.store.atomic import write_atomic
from studio.store.history import ProjectRepository, Revision
from studio.store.yamlfile import YamlDocument


class ExternalEditError(StudioError):
    """A file changed on disk after the app read it."""

    def __init__(self, rel: str):
        super().__init__(
            f"{rel} was changed outside DeliverBench Studio since it was opened: "
            "reload it (your unsaved edits to it are kept in memory) or save under a new name"
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

    def _disk(self, rel: str) -> bytes | None:
        path = self.root / rel
        return path.read_bytes() if path.is_file() else None

    def open_document(self, rel: str) -> YamlDocument:
        document = YamlDocument.load(self.root / rel)
        self._seen[rel] = _digest(document.text.encode("utf-8"))
        return document

    def read_text(self, rel: str) -> str:
        data = self._disk(rel)
        self._seen[rel] = _digest(data)
        return (data or b"").decode("utf-8")

    def changed_on_disk(self) -> list[str]:
        """Files read by the app that someone else has changed (or deleted) since."""
        return sorted(rel for rel, digest in self._seen.items() if _digest(self._disk(rel)) != digest)

    def write_bytes(self, rel: str, data: bytes) -> None:
        if rel in self._seen and _digest(self._disk(rel)) != self._seen[rel]:
            raise ExternalEditError(rel)
        if rel not in self._seen and (self.root / rel).exists():
            raise ExternalEditError(rel)
        write_atomic(self.root / rel, data)
        self._seen[rel] = _digest(data)
        self._written.add(rel)

    def write_document(self, rel: str, document: YamlDocument) -> None:
        text = document.dumps()
        self.write_bytes(rel, text.encode("utf-8"))
        document.text = text

    def write_text(self, rel: str, text: str) -> None:
        self.write_bytes(rel, text.encode("utf-8"))

    def save(self, message: str) -> Revision:
        """Commit what the app wrote. Other uncommitted edits stay as they are, uncommitted."""
        repo = ProjectRepository(self.root)
        revision = repo.commit(message, paths=sorted(self._written))
        self._written.clear()
        return revision
