"""The round-trip documents of one open project, edited in memory and saved through the
ProjectEditor guard (a file changed on disk by someone else is never overwritten)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from studio.errors import StudioError
from studio.store.editing import ProjectEditor
from studio.store.yamlfile import YamlDocument

Step = str | int
Path_ = tuple[Step, ...]


class EditPathError(StudioError):
    """An edit names a place that is not in the file (a missing key, an index out of range)."""


class ProjectDocuments:
    """Round-trip YAML documents of one project folder, opened on first edit."""

    def __init__(self, root: Path) -> None:
        self.editor = ProjectEditor(root)
        self._documents: dict[str, YamlDocument] = {}
        self.dirty: set[str] = set()

    @property
    def root(self) -> Path:
        return self.editor.root

    def document(self, rel: str) -> YamlDocument:
        document = self._documents.get(rel)
        if document is None:
            document = self._documents[rel] = self.editor.open_document(rel)
        return document

    def node(self, rel: str, path: Path_) -> Any:
        """The mapping, list or value at `path` in file `rel`."""
        node = self.document(rel).data
        for depth, step in enumerate(path):
            if isinstance(node, CommentedMap) and isinstance(step, str) and step in node:
                node = node[step]
            elif isinstance(node, CommentedSeq) and isinstance(step, int) and 0 <= step < len(node):
                node = node[step]
            else:
                where = ".".join(str(s) for s in path[: depth + 1])
                raise EditPathError(f"{rel}: nothing at {where}: the file changed since the edit was made; reload it")
        return node

    def touched(self, rel: str) -> None:
        self.dirty.add(rel)

    def text(self, rel: str) -> str:
        """The file as it would be saved now."""
        return self.document(rel).dumps()

    def texts(self, files: frozenset[str] | set[str]) -> dict[str, str]:
        """The edited files' texts as they would be saved, for `store.loader.reload_files`."""
        return {rel: self.text(rel) for rel in files}

    def save(self) -> list[str]:
        """Write every edited file atomically (refused for a file changed on disk); the files written."""
        written = []
        for rel in sorted(self.dirty):
            self.editor.write_document(rel, self._documents[rel])
            written.append(rel)
        self.dirty.clear()
        return written
