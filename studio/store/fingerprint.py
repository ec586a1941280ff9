"""A cheap look at whether a project's verdict store changed: its files' names, sizes and
modification times, read without opening one (the app's verdict watcher compares two looks)."""

from __future__ import annotations

from pathlib import Path

from studio.store import layout

Fingerprint = tuple[tuple[str, int, int], ...]


def verdicts_fingerprint(root: Path) -> Fingerprint:
    """Every file of the store with its size and modification time."""
    store = layout.verdicts_dir(root)
    found = []
    try:
        for path in sorted(store.rglob("*.yaml")):
            try:
                stat = path.stat()
            except OSError:
                continue
            found.append((path.relative_to(store).as_posix(), stat.st_size, stat.st_mtime_ns))
    except OSError:
        return ()
    return tuple(found)
