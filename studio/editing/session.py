"""One open project: its round-trip documents and the project model rebuilt from them after
every edit. The app's undo stack, the CLI's spreadsheet import and the tests all edit through it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.editing.changes import Changes
from studio.editing.commands import Command, SetValue
from studio.editing.documents import ProjectDocuments, replace_number
from studio.store import fastyaml
from studio.store.fileview import DiskFiles, OverlayFiles
from studio.store.layout import is_project_yaml
from studio.store.loader import LoadedProject, load_project, reload_files

if TYPE_CHECKING:
    from studio.store.history import ProjectRepository, Revision  # gitpython: imported when used


class ProjectSession:
    """The documents of one project folder and `loaded`, the model as the documents say now."""

    def __init__(self, root: Path, loaded: LoadedProject | None = None) -> None:
        self.documents = ProjectDocuments(Path(root))
        self.loaded = loaded if loaded is not None else load_project(self.documents.root)
        self._show_unsaved()

    @property
    def root(self) -> Path:
        return self.documents.root

    def apply(self, command: Command) -> tuple[Command, Changes]:
        """Make one edit; the model is rebuilt from the touched files only. Returns the inverse
        edit and what changed. On an error nothing is changed (the command undoes itself)."""
        before = self.documents.dumped(command.rel) if isinstance(command, SetValue) else None
        inverse, changes = command.apply(self.documents)
        if before is not None and isinstance(command, SetValue) and isinstance(inverse, SetValue):
            self._patch_number(command, inverse.value, before)
        self.refresh(changes)
        return inverse, changes

    def _patch_number(self, command: SetValue, old: Any, before: str) -> None:
        """Give the documents the edited file's text without a ruamel dump when the edit only
        replaced one plain integer by another (a weight, a time limit): the dump is most of an
        edit's time, and the text it would give is the one before with that number replaced."""
        document = self.loaded.documents.get(command.rel)
        if not isinstance(document, fastyaml.FastDocument) or document.text != before:
            return  # the model was not read from that text: its positions may not be the text's
        text = replace_number(before, document, command.path, old, command.value)
        if text is not None:
            self.documents.remember_text(command.rel, text)

    def refresh(self, changes: Changes) -> None:
        """Bring `loaded` up to date after an edit that changed `changes.files`: the YAML files
        among them are read again from their edited texts, and every other file (an instruction,
        a material) is seen by validation and review through `loaded.files` as it is unsaved."""
        yaml_files = {rel for rel in changes.files if is_project_yaml(rel)}
        if yaml_files:
            self.loaded = reload_files(self.loaded, self.documents.texts(yaml_files))
        elif changes.files:
            # A new LoadedProject, not the same one changed: a check running in the background
            # keeps reading the state it started on.
            self.loaded = dataclasses.replace(self.loaded)
        else:
            return
        self._show_unsaved()

    def _show_unsaved(self) -> None:
        unsaved = self.documents.unsaved()
        self.loaded.files = OverlayFiles(self.root, unsaved) if unsaved else DiskFiles(self.root)

    @property
    def modified(self) -> bool:
        """Whether there are edits not yet written to disk."""
        return bool(self.documents.dirty)

    def save(self) -> list[str]:
        """Write every edited file atomically (a file changed on disk is refused, not overwritten)."""
        written = self.documents.save()
        if written:
            # Nothing is unsaved now: the view is the disk again (a new LoadedProject, as in refresh).
            self.loaded = dataclasses.replace(self.loaded)
            self._show_unsaved()
        return written

    def commit(self, message: str) -> Revision:
        """Commit the files the app has written (save first)."""
        return self.documents.editor.save(message)

    def repository(self) -> ProjectRepository:
        from studio.store.history import ProjectRepository  # gitpython: only when the history is read

        return ProjectRepository(self.root)

    def changed_on_disk(self) -> list[str]:
        """Files the app read that someone else changed (or deleted) since."""
        return self.documents.editor.changed_on_disk()
