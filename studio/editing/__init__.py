"""Qt-free edit commands over a project's round-trip YAML documents: each applies itself,
returns its inverse and what it changed. The app wraps them in a QUndoStack; the CLI and the
tests apply them directly."""

from studio.editing.changes import Changes
from studio.editing.commands import Chain, Command, Compound, InsertItem, MoveItem, RemoveItem, RemoveKey, SetValue
from studio.editing.documents import EditPathError, ProjectDocuments

__all__ = [
    "Chain", "Changes", "Command", "Compound", "EditPathError", "InsertItem", "MoveItem", "ProjectDocuments", "RemoveItem",
    "RemoveKey", "SetValue",
]
