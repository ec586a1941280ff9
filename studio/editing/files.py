"""Whole-file edits: a Markdown instruction or brief, an imported file's bytes, a new or deleted
file. The inverse puts back the exact bytes the file had before, or its absence."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from studio.editing.changes import Changes
from studio.editing.commands import Command
from studio.editing.documents import EditPathError, ProjectDocuments
from studio.store.yamlfile import make_yaml


@dataclass
class PutFile:
    """Replace file `rel` by `data` (None: delete it), until the documents are saved."""

    rel: str
    data: bytes | None
    ids: tuple[str, ...] = ()
    label: str = "Replace file"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        previous = documents.read_bytes(self.rel)
        documents.put(self.rel, self.data)
        return PutFile(self.rel, previous, self.ids, self.label), Changes.of(self.rel, *self.ids)


@dataclass
class MoveFile:
    """Move file `source` to `target` (which must not exist), with the content it has when the
    move is applied: edits made earlier in the same compound move with it."""

    source: str
    target: str
    ids: tuple[str, ...] = ()
    label: str = "Move file"

    def apply(self, documents: ProjectDocuments) -> tuple[Command, Changes]:
        if documents.exists(self.target):
            raise EditPathError(f"{self.target} already exists: cannot move {self.source} there")
        data = documents.read_bytes(self.source)
        if data is None:
            raise EditPathError(f"{self.source}: there is no such file to move")
        documents.read_bytes(self.target)  # remembered as absent, so the save guard notices a newcomer
        documents.put(self.target, data)
        documents.put(self.source, None)
        changes = Changes(frozenset((self.source, self.target)), frozenset(self.ids))
        return MoveFile(self.target, self.source, self.ids, self.label), changes


def set_text(documents: ProjectDocuments, rel: str, text: str) -> PutFile:
    """Replace a Markdown file's text (an instruction, the brief)."""
    return PutFile(rel, text.encode("utf-8"), label=f"Edit {rel}")


def yaml_text(data: dict[str, Any], comment: str | None = None) -> bytes:
    """`data` written as a project YAML file in house style, after an optional comment line."""
    stream = io.StringIO()
    if comment:
        stream.write(f"# {comment}\n")
    make_yaml().dump(data, stream)
    return stream.getvalue().encode("utf-8")
