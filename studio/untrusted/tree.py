"""Reading an agent's tree: walking it without following a link, and reaching one file of it.

A link is followed only to a place inside the tree, component by component (so a link that
leads out through `..` or an absolute path, a dangling link and a loop are told apart); the file
reached must be a regular file, within the size limits, whose hard links are all inside the tree.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from studio.untrusted.limits import LINK_HOPS, Limits, size_text
from studio.untrusted.names import shown
from studio.untrusted.problems import UntrustedFileError, kind_text, special_kind

READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)


@dataclass(frozen=True)
class Member:
    """One path met while walking a tree (`path` is posix, relative to the root; a name that is not
    UTF-8 keeps its bytes as surrogate escapes, the way os.fsdecode gives them)."""

    path: str
    kind: Literal["file", "link", "dir", "special"]  # "dir" only for a folder with nothing kept in it
    full: str
    info: os.stat_result  # never followed
    target: str | None = None  # links only


def walk(root: str | Path, exclude: Callable[[str], bool] | None = None) -> Iterator[Member]:
    """Every file, link, device, FIFO and socket under `root`, and every folder left empty, never
    following a link. An excluded path is not entered; a folder whose every child is excluded (or a
    device, FIFO or socket) counts as empty."""
    stack = [("", str(root))]
    while stack:
        prefix, folder = stack.pop()
        with os.scandir(folder) as listing:
            children = list(listing)
        kept = 0
        for child in children:
            path = prefix + child.name
            if exclude is not None and exclude(path):
                continue
            info = child.stat(follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                yield Member(path, "link", child.path, info, os.readlink(child.path))
            elif stat.S_ISDIR(info.st_mode):
                stack.append((path + "/", child.path))
            elif stat.S_ISREG(info.st_mode):
                yield Member(path, "file", child.path, info)
            else:  # holds no content: a folder of nothing else counts as empty
                yield Member(path, "special", child.path, info)
                continue
            kept += 1
        if not kept and prefix:
            yield Member(prefix[:-1], "dir", folder, os.lstat(folder))


def on_disk(info: os.stat_result) -> int:
    return getattr(info, "st_blocks", 0) * 512


class HardLinks:
    """How many names of each file a walk met, so a file with a name outside the tree is known."""

    def __init__(self, members: Iterable[Member] = ()) -> None:
        self._seen: Counter[tuple[int, int]] = Counter()
        for member in members:
            self.add(member.info)

    def add(self, info: os.stat_result) -> None:
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            self._seen[(info.st_dev, info.st_ino)] += 1

    def outside(self, info: os.stat_result) -> bool:
        """True if the file has a name the walk did not meet: a hard link to a file elsewhere."""
        return info.st_nlink > 1 and self._seen[(info.st_dev, info.st_ino)] < info.st_nlink


def file_problem(rel: str, info: os.stat_result, limits: Limits, links: HardLinks | None, tree: str) -> str | None:
    """Why the regular file `rel` may not be copied out of the tree, or None."""
    if info.st_nlink > 1 and (links is None or links.outside(info)):
        return (
            f"{shown(rel)} has {info.st_nlink} hard links, one of them outside {tree}: it may be a file of "
            "the machine, so it is not read"
        )
    for what, size in (("", info.st_size), (" on disk", on_disk(info))):
        if size > limits.file_bytes:
            return (
                f"{shown(rel)} is {size_text(size)}{what}, over the limit of {size_text(limits.file_bytes)} "
                f"per file of {tree} (studio.untrusted.FILE_LIMIT)"
            )
    return None


def check_tree(members: Iterable[Member], limits: Limits, tree: str) -> None:
    """UntrustedFileError naming the first file over a limit, or the tree's total over its own."""
    members = list(members)
    links = HardLinks(members)
    apparent = disk = 0
    for member in members:
        if member.kind != "file":
            continue
        problem = file_problem(member.path, member.info, limits, links, tree)
        if problem is not None:
            raise UntrustedFileError(problem)
        apparent += member.info.st_size
        disk += on_disk(member.info)
    for what, size in (("", apparent), (" on disk", disk)):
        if size > limits.tree_bytes:
            raise UntrustedFileError(
                f"the files of {tree} add up to {size_text(size)}{what}, over the limit of "
                f"{size_text(limits.tree_bytes)} (studio.untrusted.TREE_LIMIT)"
            )


@dataclass(frozen=True)
class Reached:
    """A regular file of a tree, reached through links that stay inside it."""

    path: Path  # with no link in it
    info: os.stat_result


def reach(
    root: str | Path,
    rel: str,
    *,
    tree: str = "the folder",
    limits: Limits | None = None,
    links: HardLinks | None = None,
) -> Reached:
    """The regular file `rel` names under `root`, following links only inside `root`.

    UntrustedFileError (naming `rel` escaped) for a link out of the tree, a dangling link, a loop, a
    folder, a device, FIFO or socket, a file over `limits`, or one hard-linked outside the tree."""
    base = os.path.realpath(root)
    done: list[str] = []
    pending = [part for part in rel.split("/")]
    hops = LINK_HOPS
    info: os.stat_result | None = None
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                raise UntrustedFileError(f"{shown(rel)} leads out of {tree} (through ..): not read", "outside")
            done.pop()
            continue
        current = os.path.join(base, *done, part)
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            what = "is a link to nothing (dangling)" if hops < LINK_HOPS else "does not exist in " + tree
            raise UntrustedFileError(f"{shown(rel)} {what}", "dangling" if hops < LINK_HOPS else "missing") from None
        except OSError as error:
            raise UntrustedFileError(f"{shown(rel)} cannot be read ({error.strerror})", "unreadable") from None
        if stat.S_ISLNK(info.st_mode):
            hops -= 1
            if hops < 0:
                raise UntrustedFileError(f"{shown(rel)} is a loop of symbolic links: not read", "loop")
            target = os.readlink(current)
            if os.path.isabs(target):
                if target != base and not target.startswith(base.rstrip("/") + "/"):
                    raise UntrustedFileError(f"{shown(rel)} is a link to a file outside {tree}: not read", "outside")
                done, target = [], target[len(base) :]
            pending = target.split("/") + pending
            continue
        if pending and not stat.S_ISDIR(info.st_mode):
            raise UntrustedFileError(
                f"{shown(rel)} does not exist in {tree} ({shown(part)} is not a folder)", "missing"
            )
        done.append(part)
    if info is None or not done:
        raise UntrustedFileError(f"{shown(rel)} names {tree} itself, not a file in it", "folder")
    if not stat.S_ISREG(info.st_mode):
        what = (
            "a folder, not a file" if stat.S_ISDIR(info.st_mode) else f"{kind_text(info.st_mode)}, not a regular file"
        )
        raise UntrustedFileError(f"{shown(rel)} is {what}", "folder" if stat.S_ISDIR(info.st_mode) else "special")
    if limits is not None or info.st_nlink > 1:
        problem = file_problem(rel, info, limits or Limits(), links, tree)
        if problem is not None:
            raise UntrustedFileError(problem, "limit")
    return Reached(Path(base, *done), info)


def open_reached(reached: Reached, rel: str) -> int:
    """A descriptor on the file `reach` found, refused if it was swapped for a link or another file since."""
    try:
        descriptor = os.open(reached.path, READ_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UntrustedFileError(f"{shown(rel)} became a symbolic link while it was read: not read") from None
        raise UntrustedFileError(f"{shown(rel)} cannot be read ({error.strerror})") from None
    now = os.fstat(descriptor)
    if (now.st_dev, now.st_ino) != (reached.info.st_dev, reached.info.st_ino) or not stat.S_ISREG(now.st_mode):
        os.close(descriptor)
        raise UntrustedFileError(f"{shown(rel)} was replaced while it was read: not read")
    return descriptor


def read_bytes(root: str | Path, rel: str, *, limit: int, tree: str = "the folder") -> bytes:
    """The whole content of the regular file `rel` of the tree, refused over `limit` bytes."""
    reached = reach(root, rel, tree=tree)
    if reached.info.st_size > limit:
        raise UntrustedFileError(
            f"{shown(rel)} is {size_text(reached.info.st_size)}, over the limit of {size_text(limit)} for this file"
        )
    descriptor = open_reached(reached, rel)
    with open(descriptor, "rb", closefd=True) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise UntrustedFileError(f"{shown(rel)} grew over the limit of {size_text(limit)} while it was read")
    return data


def real_folder(root: str | Path, rel: str, *, tree: str = "the folder") -> Path | None:
    """The folder `rel` under `root` when every part of the way is a real folder (no link); None when it
    is missing; UntrustedFileError when a part is a link or not a folder."""
    current = Path(root)
    for part in rel.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            raise UntrustedFileError(f"{shown(rel)} leads out of {tree} (through ..)")
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(info.st_mode):
            raise UntrustedFileError(
                f"{shown(str(current.relative_to(root)))} in {tree} is a symbolic link "
                f"(to {shown(os.readlink(current))}): it is not followed"
            )
        if not stat.S_ISDIR(info.st_mode):
            raise UntrustedFileError(
                f"{shown(str(current.relative_to(root)))} in {tree} is {kind_text(info.st_mode)}, not a folder"
            )
    return current


__all__ = [
    "HardLinks",
    "Member",
    "Reached",
    "check_tree",
    "file_problem",
    "open_reached",
    "reach",
    "read_bytes",
    "real_folder",
    "special_kind",
    "walk",
]
