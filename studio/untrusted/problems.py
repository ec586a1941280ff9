"""Why a path of an agent's tree is not taken: the error, and the kinds of file never copied."""

from __future__ import annotations

import stat

from studio.errors import StudioError


class UntrustedFileError(StudioError):
    """A file of an agent-controlled tree that is refused: the message names it (escaped), what is wrong,
    and the limit or rule it broke. `reason` is one word for callers that treat cases apart: outside,
    dangling, loop, missing, folder, special, limit, hard-link, changed, unreadable."""

    def __init__(self, message: str, reason: str = "refused") -> None:
        super().__init__(message)
        self.reason = reason


def special_kind(mode: int) -> str | None:
    """ "a FIFO", "a device node", "a socket" for a file that holds no content to copy, else None."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device node"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def kind_text(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a file"
    return special_kind(mode) or "not a regular file"
