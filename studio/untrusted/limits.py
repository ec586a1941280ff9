"""The stated limits on an agent-controlled tree; every message about one names the limit it met."""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1 << 20
GiB = 1 << 30

FILE_LIMIT = 512 * MiB
"""One file the product copies or stores out of an agent's tree, counted twice: its apparent size
(what a copy writes: a sparse file's holes come out as zeros) and the blocks it takes on disk."""
TREE_LIMIT = 4 * GiB
"""All the files of one tree (one checkpoint, one Harbor step's workspace), apparent and on disk."""
LOG_LIMIT = 16 * MiB
"""A log kept whole up to this size; a longer one keeps its first LOG_HEAD and last LOG_TAIL bytes
with a line between them saying how much was cut, so the end, where the error is, survives."""
LOG_HEAD = 4 * MiB
LOG_TAIL = LOG_LIMIT - LOG_HEAD
LINK_HOPS = 40
"""Symbolic links followed inside a tree to reach one file (the kernel's own MAXSYMLINKS): more is a loop."""


def size_text(size: int) -> str:
    """A byte count for a message: "1,073,741,824 bytes (1.0 GiB)"."""
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size:,} bytes ({size / scale:.1f} {unit})"
    return f"{size:,} bytes"


@dataclass(frozen=True)
class Limits:
    """The limits one caller applies (tests give smaller ones; the product uses the defaults)."""

    file_bytes: int = FILE_LIMIT
    tree_bytes: int = TREE_LIMIT
    log_head: int = LOG_HEAD
    log_tail: int = LOG_TAIL


DEFAULT_LIMITS = Limits()
"""The product's limits, as stated above."""
