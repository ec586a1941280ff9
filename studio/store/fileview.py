"""A read-only view of a project's files, as validation and review should see them.

By default the view is the project folder on disk. An open project edited in the app also holds
files not yet saved (an instruction typed in, an imported material, the files of a new subtask, a
file deleted by an edit); its view lays those over the disk, so the findings describe the project
the expert is looking at, not the one last saved. Paths are project-relative, posix."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from studio.store import layout

_NOTHING: Mapping[str, bytes | None] = MappingProxyType({})


def normal(rel: str) -> str:
    """`rel` spelled the one way the overlay keys it ("a/./b" and "a//b" are "a/b")."""
    return posixpath.normpath(rel.replace("\\", "/"))


class DiskFiles:
    """The project folder as it is on disk. `overrides` (here none) maps a file to its content
    as the view sees it instead of the disk's: bytes, or None for a file the view does not have."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def overrides(self) -> Mapping[str, bytes | None]:
        return _NOTHING

    def is_file(self, rel: str) -> bool:
        """Whether `rel` is a file of the project."""
        if self.overrides:
            key = normal(rel)
            if key in self.overrides:
                return self.overrides[key] is not None
        return (self.root / rel).is_file()

    def read_bytes(self, rel: str) -> bytes | None:
        """The file's content; None when there is no such file. Raises OSError when it exists on
        disk but cannot be read."""
        if self.overrides:
            key = normal(rel)
            if key in self.overrides:
                return self.overrides[key]
        path = self.root / rel
        return path.read_bytes() if path.is_file() else None

    def read_text(self, rel: str) -> str | None:
        """The file as UTF-8 text (undecodable bytes replaced); None when there is no such file."""
        data = self.read_bytes(rel)
        return None if data is None else data.decode("utf-8", errors="replace")

    def files_under(self, folder: str) -> list[str]:
        """Every file under `folder` (relative, posix), sorted."""
        base = self.root / folder
        found = {path.relative_to(self.root).as_posix() for path in base.rglob("*") if path.is_file()} \
            if base.is_dir() else set()
        if self.overrides:
            prefix = normal(folder) + "/"
            found |= {rel for rel in self.overrides if rel.startswith(prefix)}
            found = {rel for rel in found if self.overrides.get(rel, b"") is not None}
        return sorted(found)

    def subtask_ids(self) -> list[str]:
        """Names of the folders under subtasks/ that hold a subtask.yaml, sorted (as the loader reads them)."""
        ids = {folder.name for folder in layout.subtask_folders(self.root)}
        for rel, data in self.overrides.items():
            parts = rel.split("/")
            if len(parts) == 3 and parts[0] == layout.SUBTASKS_DIR and parts[2] == layout.SUBTASK_FILE:
                if data is None:
                    ids.discard(parts[1])
                else:
                    ids.add(parts[1])
        return sorted(ids)


class OverlayFiles(DiskFiles):
    """The disk with unsaved files laid over it: a file in `overrides` is that content (None: deleted
    by an unsaved edit); every other file is the disk's. `overrides` is a snapshot, not a live view of
    the edits, so a background check reads one consistent state while the expert edits on."""

    def __init__(self, root: Path, overrides: Mapping[str, bytes | None]) -> None:
        super().__init__(root)
        self._overrides = MappingProxyType({normal(rel): data for rel, data in overrides.items()})

    @property
    def overrides(self) -> Mapping[str, bytes | None]:
        return self._overrides
