"""What the app's watchers compare between two looks at the disk: a project's YAML files with the
digest of every file it knows, and the verdict store's files with their sizes and times. Read on a
worker thread (a folder walk and a hash per file are too slow for the UI thread of a large project)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

from studio.store import layout

Fingerprint = tuple[tuple[str, int, int], ...]


def digest(path: Path) -> str | None:
    """The file's SHA-256 (None: no such file, or it cannot be read)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


@dataclass(frozen=True)
class ProjectFiles:
    """One look at a project folder: its YAML files, and the digest of each file looked at."""

    yaml_files: frozenset[str]
    digests: dict[str, str | None]


def project_yaml_files(root: Path) -> frozenset[str]:
    return frozenset(path.relative_to(root).as_posix() for path in layout.yaml_files(root))


def look_at_project(root: Path, also: Iterable[str] = ()) -> ProjectFiles:
    """The project's YAML files now, and the digests of those and of `also` (project-relative)."""
    root = Path(root)
    yaml_files = project_yaml_files(root)
    return ProjectFiles(yaml_files, {rel: digest(root / rel) for rel in sorted(yaml_files | set(also))})


def verdict_fingerprint(root: Path) -> Fingerprint:
    """Every file of the verdict store with its size and modification time: each `*.yaml` entry at any
    depth (as `rglob` finds them, symlinked folders not followed), by path. One scan per folder with
    plain strings: the window's first look at a store of 4,000 files is made on the UI thread."""
    store = layout.verdicts_dir(root)
    found: list[tuple[tuple[str, ...], tuple[str, int, int]]] = []

    def walk(folder: str, parts: tuple[str, ...]) -> None:
        try:
            with os.scandir(folder) as listed:
                entries = list(listed)
        except PermissionError:  # as rglob: a folder it may not list is passed over
            return
        for entry in entries:
            if entry.name.endswith(".yaml"):
                try:
                    status = entry.stat()
                except OSError:
                    pass
                else:
                    named = (*parts, entry.name)
                    found.append((named, ("/".join(named), status.st_size, status.st_mtime_ns)))
            try:
                inside = entry.is_dir() and not entry.is_symlink()
            except OSError:
                inside = False
            if inside:
                walk(entry.path, (*parts, entry.name))

    try:
        walk(str(store), ())
    except OSError:
        return ()
    found.sort(key=itemgetter(0))  # as paths sort: part by part
    return tuple(look for _, look in found)


def verdict_folders(root: Path) -> list[str]:
    """The folders whose entries change when a verdict file is written: the project folder, the
    store and each submission's folder (a rater's file is replaced by rename)."""
    store = layout.verdicts_dir(root)
    try:
        inside = [entry.path for entry in os.scandir(store) if entry.is_dir()] if store.is_dir() else []
    except OSError:
        return []
    return sorted([*(str(p) for p in (Path(root), store) if p.is_dir()), *inside])
