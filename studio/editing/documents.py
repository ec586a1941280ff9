"""The round-trip documents of one open project, edited in memory and saved through the
ProjectEditor guard (a file changed on disk by someone else is never overwritten).

Besides the YAML documents it holds whole files as the app sees them: read once from disk (so a
change made there later is noticed at save, not silently taken in) or edited (an instruction's
Markdown, an imported material's bytes, the files of a new subtask, a file to delete), so every
edit, YAML or not, is saved together and undone the same way."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from studio.errors import StudioError
from studio.store import layout
from studio.store.editing import ProjectEditor
from studio.store.fastyaml import FastDocument
from studio.store.yamlfile import YamlDocument, YamlSyntaxError

Step = str | int
Path_ = tuple[Step, ...]


class EditPathError(StudioError):
    """An edit names a place that is not in the file (a missing key, an index out of range)."""


class ProjectDocuments:
    """Round-trip YAML documents of one project folder, opened on first edit, and whole files
    (bytes, or None for no file) as last read or edited; `dirty` names those to save."""

    def __init__(self, root: Path) -> None:
        self.editor = ProjectEditor(root)
        self._documents: dict[str, YamlDocument] = {}
        self._files: dict[str, bytes | None] = {}
        # Each open document's text as last dumped: ruamel's dump is the slowest part of an edit,
        # and the model rebuild, the unsaved-file view and the save all want the same text. Every
        # edit goes through `touched` (or `put` / `forget`), which drops the file's entry.
        self._dumped: dict[str, str] = {}
        self.dirty: set[str] = set()
        self._snapshots: Path | None = None

    @property
    def root(self) -> Path:
        return self.editor.root

    def viewable_path(self, rel: str) -> Path | None:
        """A path at which `rel` can be read as the project holds it now: the project's own file
        when it is saved as it is, else a read-only copy of the unsaved content (an imported or
        replaced material) in a temporary folder removed with these documents; None when an
        unsaved edit deletes the file. A copy is named by its content, so a viewer that
        remembers paths sees a new file when the content changes."""
        if rel not in self.dirty:
            return self.root / rel
        data = self.read_bytes(rel)
        if data is None:
            return None
        if self._snapshots is None:
            self._snapshots = Path(tempfile.mkdtemp(prefix="dbstudio-unsaved-"))
            weakref.finalize(self, shutil.rmtree, self._snapshots, True)
        copy = self._snapshots / hashlib.sha256(data).hexdigest()[:16] / Path(rel).name
        if not copy.is_file():
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)
            copy.chmod(0o444)
        return copy

    def _absent(self, rel: str) -> EditPathError:
        if rel in self.dirty:
            return EditPathError(f"{rel}: the file is deleted by an unsaved edit")
        return EditPathError(f"{rel}: there is no such file in the project")

    def document(self, rel: str) -> YamlDocument:
        document = self._documents.get(rel)
        if document is not None:
            return document
        if rel in self._files:
            data = self._files[rel]
            if data is None:
                raise self._absent(rel)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise EditPathError(f"{rel}: the file is not UTF-8 text: save it as UTF-8") from None
            document = self._parsed(rel, lambda: YamlDocument.parse(self.root / rel, text))
            del self._files[rel]  # from now on the document is the file's content
        elif not (self.root / rel).is_file():
            raise self._absent(rel)
        else:
            document = self._parsed(rel, lambda: self.editor.open_document(rel))
        self._documents[rel] = document
        return document

    @staticmethod
    def _parsed(rel: str, parse: Callable[[], YamlDocument]) -> YamlDocument:
        """`parse()`, its syntax error located in `rel`: an edit cannot start on a file that does not read."""
        try:
            return parse()
        except YamlSyntaxError as error:
            raise YamlSyntaxError(f"{rel}:{error.line}:{error.column}: {error.message}; fix the file first "
                                  "(dbstudio validate lists every problem)", error.line, error.column) from None

    def read_bytes(self, rel: str) -> bytes | None:
        """The file as it would be saved now: an open document, content read or edited before, else
        the disk, read once (None for a file that does not exist or an edit deleted)."""
        if rel in self._documents:
            return self.text(rel).encode("utf-8")
        if rel not in self._files:
            self._files[rel] = self.editor.read_bytes(rel)
        return self._files[rel]

    def exists(self, rel: str) -> bool:
        if rel in self._documents:
            return True
        if rel in self._files:
            return self._files[rel] is not None
        return (self.root / rel).is_file()

    def put(self, rel: str, data: bytes | None) -> None:
        """Replace the whole file by `data` (None: delete it) until the next save. Read the file
        first (`read_bytes`) so that the save can tell whether someone else changed it."""
        self._documents.pop(rel, None)
        self._dumped.pop(rel, None)
        self._files[rel] = data
        self.dirty.add(rel)

    def forget(self, rel: str) -> None:
        """Drop what is held of `rel`, unsaved edits included: the next read takes the disk's
        version (reloading a file someone else changed)."""
        self._documents.pop(rel, None)
        self._dumped.pop(rel, None)
        self._files.pop(rel, None)
        self.dirty.discard(rel)
        self.editor.forget(rel)

    def files_under(self, folder: str) -> list[str]:
        """Every file under `folder` (relative, posix) as the project would be after a save, sorted."""
        prefix = folder.rstrip("/") + "/"
        base = self.root / folder
        found = {path.relative_to(self.root).as_posix() for path in base.rglob("*") if path.is_file()} \
            if base.is_dir() else set()
        found |= {rel for rel in (*self._files, *self._documents) if rel.startswith(prefix)}
        return sorted(rel for rel in found if self.exists(rel))

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
        """Record that an edit changed the open document `rel` (every command calls this)."""
        self._dumped.pop(rel, None)
        self.dirty.add(rel)

    def subtask_ids(self) -> list[str]:
        """Ids of the subtask folders that hold a subtask.yaml after a save, by name (as the loader)."""
        ids = set()
        for rel in self.files_under(layout.SUBTASKS_DIR):
            parts = rel.split("/")
            if len(parts) == 3 and parts[2] == layout.SUBTASK_FILE:
                ids.add(parts[1])
        return sorted(ids)

    def text(self, rel: str) -> str:
        """The file as it would be saved now."""
        if rel in self._files:
            data = self._files[rel]
            if data is None:
                raise self._absent(rel)
            return data.decode("utf-8")
        text = self._dumped.get(rel)
        if text is None:
            text = self._dumped[rel] = self.document(rel).dumps()
        return text

    def dumped(self, rel: str) -> str | None:
        """The open document's text as last dumped, if it has not been edited since; None otherwise."""
        return self._dumped.get(rel)

    def remember_text(self, rel: str, text: str) -> None:
        """Take `text` as what dumping the open document `rel` gives now (see `replace_number`)."""
        if rel not in self._documents:
            raise EditPathError(f"{rel}: no open document to give a text")
        self._dumped[rel] = text

    def texts(self, files: frozenset[str] | set[str]) -> dict[str, str | None]:
        """The edited files' texts as they would be saved (None: deleted), for `store.loader.reload_files`."""
        return {rel: None if not self.exists(rel) else self.text(rel) for rel in files}

    def unsaved(self) -> dict[str, bytes | None]:
        """Every edited file's content as it would be saved now (None: deleted), for the view of the
        project that validation and review read (`studio.store.fileview.OverlayFiles`)."""
        return {rel: self.read_bytes(rel) if self.exists(rel) else None for rel in self.dirty}

    def save(self) -> list[str]:
        """Write every edited file atomically and delete the deleted ones; the files written or
        deleted. Every file is checked against the disk first, so a file changed by someone else
        refuses the save before anything is written; should a write still fail, the files
        already saved stay saved and the rest stay edited in memory."""
        order = sorted(self.dirty)
        for rel in order:
            self.editor.require_unchanged(rel)
        written = []
        for rel in order:
            document = self._documents.get(rel)
            if document is not None:
                text = self.text(rel)  # dumped once per edit, not again for the write
                self.editor.write_text(rel, text)
                document.text = text
            else:
                data = self._files[rel]
                if data is None:
                    self.editor.delete(rel)
                else:
                    self.editor.write_bytes(rel, data)
            self.dirty.discard(rel)
            written.append(rel)
        return written


def replace_number(text: str, document: FastDocument, path: Path_, old: Any, new: Any) -> str | None:
    """`text` with the plain integer `old` at `path` (a key of a block mapping, alone on its line
    but for a comment) written as `new`: what ruamel would dump after that edit, given that `text`
    is its dump before. None when the edit is not that simple (ruamel is then asked to dump)."""
    if type(old) is not int or type(new) is not int or "\r" in text or not path or not isinstance(path[-1], str):
        return None
    node = document.root
    for step in path:
        if isinstance(node, yaml.MappingNode) and isinstance(step, str):
            if node.flow_style:
                return None
            node = next((value for key, value in node.value if isinstance(key, yaml.ScalarNode)
                         and key.value == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            node = node.value[step]
        else:
            return None
    if not isinstance(node, yaml.ScalarNode) or node.style not in (None, "") or node.value != str(old) \
            or node.start_mark.line != node.end_mark.line:
        return None
    lines = text.split("\n")
    row, start, end = node.start_mark.line, node.start_mark.column, node.end_mark.column
    line = lines[row]
    if not line.isascii() or line[start:end] != str(old):
        return None
    rest = line[end:]
    # ruamel keeps a comment after the value at its column: only a same-width number keeps it so here.
    if rest.strip() and len(str(new)) != len(str(old)):
        return None
    lines[row] = line[:start] + str(new) + rest
    return "\n".join(lines)
