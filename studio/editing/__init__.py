"""Qt-free edit commands over a project's round-trip documents: each applies itself,
returns its inverse and what it changed. The app wraps them in a QUndoStack; the CLI and the
tests apply them directly.

- `commands`: elementary edits of YAML (SetValue, RemoveKey, InsertKey, InsertItem, RemoveItem,
  MoveItem), Compound (independent edits as one) and Chain (edits built one after another).
- `files`: whole files (PutFile: new, replaced or deleted; MoveFile; set_text for Markdown).
- `fields`: where each object lives (object_location), set_field, instructions and the brief.
- `timeline`, `materials`, `dependencies`, `delivery`, `references`, `rubric`: add, remove and
  move in the domain's words; `rename`: any id, every reference following (see `usages`).
- `session`: ProjectSession, the documents and the model rebuilt after each edit.
"""

from studio.editing.changes import Changes
from studio.editing.commands import (
    Chain,
    Command,
    Compound,
    InsertItem,
    InsertKey,
    MoveItem,
    RemoveItem,
    RemoveKey,
    SetValue,
)
from studio.editing.documents import EditPathError, ProjectDocuments
from studio.editing.files import MoveFile, PutFile

__all__ = [
    "Chain", "Changes", "Command", "Compound", "EditPathError", "InsertItem", "InsertKey", "MoveFile", "MoveItem",
    "ProjectDocuments", "PutFile", "RemoveItem", "RemoveKey", "SetValue",
]
