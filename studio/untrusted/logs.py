"""Logs from an agent (a container's output, Harbor's step logs): kept whole up to LOG_LIMIT, else
their first LOG_HEAD and last LOG_TAIL bytes with a line between saying how much was cut, so the
last lines, where the error is, always survive."""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from studio.untrusted.limits import DEFAULT_LIMITS, Limits, size_text
from studio.untrusted.names import shown
from studio.untrusted.problems import UntrustedFileError, special_kind
from studio.untrusted.tree import READ_FLAGS, HardLinks, file_problem, open_reached, reach, real_folder, walk


def cut_marker(cut: int, total: int | None, limits: Limits) -> bytes:
    whole = f"the log is {size_text(total)}, " if total is not None else ""
    return (
        f"\n[dbstudio: {size_text(cut)} of output cut here: {whole}over the limit of "
        f"{size_text(limits.log_head + limits.log_tail)} (studio.untrusted.LOG_LIMIT); its first "
        f"{size_text(limits.log_head)} are above and its last {size_text(limits.log_tail)} below]\n"
    ).encode()


class CappedLog:
    """A log written as output arrives, readable live, never longer than head + 2 x tail: past the head,
    output is written on and the file is cut back to head + marker + last tail bytes whenever it grows
    past that, and once more on close."""

    def __init__(self, path: Path, limits: Limits = DEFAULT_LIMITS) -> None:
        self.path = path
        self.limits = limits
        self.total = 0
        self._out: BinaryIO = open(path, "ab")
        self._head = 0
        self._tail: deque[bytes] = deque()
        self._tail_bytes = 0
        self._after_head = 0  # bytes written to the file after the head (marker included)
        self._closed = False
        self._lock = threading.Lock()  # the stream's writer thread and the waiting side both end it

    def write(self, chunk: bytes) -> None:
        with self._lock:
            self._write(chunk)

    def _write(self, chunk: bytes) -> None:
        if self._closed or not chunk:
            return
        self.total += len(chunk)
        room = self.limits.log_head - self._head
        if room > 0:
            self._out.write(chunk[:room])
            self._head += min(room, len(chunk))
            chunk = chunk[room:]
        if chunk:
            self._tail.append(chunk)
            self._tail_bytes += len(chunk)
            while self._tail and self._tail_bytes - len(self._tail[0]) >= self.limits.log_tail:
                self._tail_bytes -= len(self._tail.popleft())
            self._out.write(chunk)
            self._after_head += len(chunk)
            if self._after_head > 2 * self.limits.log_tail:
                self._cut()
        self._out.flush()

    def _cut(self, total_known: bool = False) -> None:
        tail = b"".join(self._tail)[-self.limits.log_tail :]
        cut = self.total - self._head - len(tail)
        self._out.truncate(self._head)
        self._out.seek(self._head)
        marker = cut_marker(cut, self.total if total_known else None, self.limits)
        self._out.write(marker + tail)
        self._after_head = len(marker) + len(tail)

    def replace_tail(self, chunks: Iterable[bytes], note: str) -> None:
        """End the log with `chunks` (its last lines fetched some other way) after a line saying `note`."""
        with self._lock:
            self._replace_tail(chunks, note)

    def _replace_tail(self, chunks: Iterable[bytes], note: str) -> None:
        if self._closed:
            return
        self._closed = True  # a writer still reading the stream writes nothing more
        kept: deque[bytes] = deque()
        size = 0
        for chunk in chunks:
            kept.append(chunk)
            size += len(chunk)
            while kept and size - len(kept[0]) >= self.limits.log_tail:
                size -= len(kept.popleft())
        tail = b"".join(kept)[-self.limits.log_tail :]
        self._out.truncate(self._head)
        self._out.seek(self._head)
        self._out.write(f"\n[dbstudio: {note}]\n".encode() + tail)
        self._out.close()

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.total > self.limits.log_head + self.limits.log_tail:
            self._cut(total_known=True)
        self._out.close()


def copy_log(source: int, target: Path, size: int, limits: Limits) -> bool:
    """Copy the open file `source` to the new file `target`, head and tail only when it is over the
    limit; True when it was cut. Only what is kept is read, so a sparse 10 GB log costs 16 MiB."""
    keep = limits.log_head + limits.log_tail
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with open(descriptor, "wb") as out:
        if size <= keep:
            _copy_range(source, out, 0, keep + 1)
            return False
        _copy_range(source, out, 0, limits.log_head)
        out.write(cut_marker(size - keep, size, limits))
        _copy_range(source, out, size - limits.log_tail, limits.log_tail)
        return True


def _copy_range(source: int, out: BinaryIO, start: int, length: int) -> None:
    os.lseek(source, start, os.SEEK_SET)
    while length > 0 and (chunk := os.read(source, min(length, 1 << 20))):
        out.write(chunk)
        length -= len(chunk)


def copy_logs(source: Path, target: Path, *, tree: str, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    """Copy the regular files of the log folder `source` into the new folder `target` (each over
    LOG_LIMIT cut to head + tail); returns a note for each path left out or cut. Links, devices, FIFOs
    and sockets are never copied, and setuid/setgid bits never kept (files come out 0644)."""
    folder = real_folder(source.parent, source.name, tree=tree)
    if folder is None:
        return []
    notes: list[str] = []
    target.mkdir(parents=True, exist_ok=True)
    members = list(walk(folder))
    links = HardLinks(members)
    total = 0
    for member in sorted(members, key=lambda m: m.path):
        where = target / member.path
        if member.kind == "dir":
            where.mkdir(parents=True, exist_ok=True)
            continue
        if member.kind == "link":
            notes.append(f"{shown(member.path)} is a symbolic link (to {shown(member.target or '')}): not copied")
            continue
        if member.kind == "special":
            notes.append(f"{shown(member.path)} is {special_kind(member.info.st_mode)}: not copied")
            continue
        problem = file_problem(member.path, member.info, Limits(file_bytes=1 << 62), links, tree)
        if problem is not None:
            notes.append(problem)
            continue
        kept = min(member.info.st_size, limits.log_head + limits.log_tail)
        if total + kept > limits.tree_bytes:
            notes.append(
                f"{shown(member.path)}: not copied, the logs kept reached {size_text(limits.tree_bytes)} "
                "(studio.untrusted.TREE_LIMIT)"
            )
            continue
        try:
            descriptor = os.open(member.full, READ_FLAGS)
        except OSError as error:
            notes.append(f"{shown(member.path)} cannot be read ({error.strerror}): not copied")
            continue
        try:
            now = os.fstat(descriptor)
            if (now.st_dev, now.st_ino) != (member.info.st_dev, member.info.st_ino):
                raise UntrustedFileError(f"{shown(member.path)} was replaced while it was copied")
            where.parent.mkdir(parents=True, exist_ok=True)
            if copy_log(descriptor, where, now.st_size, limits):
                notes.append(
                    f"{shown(member.path)} is {size_text(now.st_size)}: cut to its first "
                    f"{size_text(limits.log_head)} and last {size_text(limits.log_tail)}"
                )
            total += kept
        except UntrustedFileError as refused:
            notes.append(str(refused))
        finally:
            os.close(descriptor)
    return notes


def copy_log_file(root: Path, rel: str, target: Path, *, tree: str, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """Copy the one log `rel` of the tree `root` to the new file `target` (head and tail past the limit),
    never through a link; returns why it was not copied as it is, or None (a missing log is no copy)."""
    try:
        reached = reach(root, rel, tree=tree, limits=Limits(file_bytes=1 << 62))
    except UntrustedFileError as refused:
        return None if not os.path.lexists(Path(root) / rel) else str(refused)
    descriptor = open_reached(reached, rel)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if copy_log(descriptor, target, reached.info.st_size, limits):
            return (
                f"{shown(rel)} is {size_text(reached.info.st_size)}: cut to its first {size_text(limits.log_head)} "
                f"and last {size_text(limits.log_tail)}"
            )
        return None
    finally:
        os.close(descriptor)
