"""Who a run's containers run as, and the ownership of the folders they write.

Never root: a user's own CLI runs its containers as that user (what the agent writes is theirs);
a CLI run as root runs them as TRIAL_USER, and hands the workspace and the state folder over to
it before each container. After each container the run takes the folders back in hand: no
setuid or setgid bit survives on the host, and every file and folder is readable and writable
by its owner, so the checkpoint store (run as the same user) can read what the agent left.
The run folder itself is private to its owner (0700), so no other local user reaches the
workspace while an agent works in it.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from studio.runs.errors import RunError

# The first ordinary user and group of Debian and of the official Node.js images ("node"), which
# the CLI agents' images are built from: a uid the image most likely names in its /etc/passwd.
TRIAL_UID = 1000
TRIAL_GID = 1000
PRIVATE_FOLDER = 0o700
_USER = re.compile(r"^([0-9]+):([0-9]+)$")


@dataclass(frozen=True)
class ContainerUser:
    uid: int
    gid: int

    def spec(self) -> str:
        return f"{self.uid}:{self.gid}"


def container_user(setting: str | None = None) -> ContainerUser:
    """The user a run's containers run as: `setting` ("UID:GID", --user) when given, else the host
    user, else (the CLI runs as root) TRIAL_UID:TRIAL_GID. Root is refused: the agent is untrusted."""
    if setting:
        match = _USER.match(setting.strip())
        if match is None:
            raise RunError(f"--user {setting!r} is not UID:GID (numbers, e.g. 1000:1000)")
        user = ContainerUser(int(match.group(1)), int(match.group(2)))
        if os.geteuid() != 0 and (user.uid, user.gid) != (os.geteuid(), os.getegid()):
            raise RunError(
                f"--user {setting} needs dbstudio to run as root: the run's folders are yours "
                f"({os.geteuid()}:{os.getegid()}), and only root can hand them over to another user; leave --user out"
            )
        if user.uid == 0:
            raise RunError(
                "--user 0:... would run the untrusted agent as root: give a non-root UID:GID "
                '(docs/security.md, "Containers")'
            )
        return user
    if os.geteuid() != 0:
        return ContainerUser(os.geteuid(), os.getegid())
    return ContainerUser(TRIAL_UID, TRIAL_GID)


def make_private(folder: Path) -> None:
    """Only the run's owner may enter its folder (and so reach the workspace under it)."""
    os.chmod(folder, PRIVATE_FOLDER)


def hand_over(folder: Path, user: ContainerUser) -> None:
    """Make `folder` and everything in it the container user's (only when we run as root and they
    differ: a user's own containers already write as that user)."""
    if os.geteuid() != 0 or user.uid == 0:
        return
    for path in _tree(folder):
        info = os.lstat(path)
        if (info.st_uid, info.st_gid) != (user.uid, user.gid):
            os.lchown(path, user.uid, user.gid)


def take_back(folder: Path) -> None:
    """After a container: clear every setuid, setgid and sticky bit, and give the owner read and write
    (and search on folders), so nothing the agent left can raise a local user's privileges and the
    host can read it all. Links are not followed; devices and pipes are left to the checkpoint store."""
    if not os.path.isdir(folder) or os.path.islink(folder):
        return
    _fix_mode(os.fspath(folder))
    # top-down: a folder the agent made unreadable is made readable before it is walked into
    for top, dirs, files in os.walk(folder, followlinks=False):
        for name in (*dirs, *files):
            _fix_mode(os.path.join(top, name))


_SPECIAL_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX


def _fix_mode(path: str) -> None:
    info = os.lstat(path)
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISDIR(info.st_mode):
        wanted = (mode | stat.S_IRWXU) & ~_SPECIAL_BITS
    elif stat.S_ISREG(info.st_mode):
        wanted = (mode | stat.S_IRUSR | stat.S_IWUSR) & ~_SPECIAL_BITS
    else:
        return
    if wanted != mode:
        os.chmod(path, wanted)


def _tree(folder: Path) -> list[str]:
    """`folder` and every path under it, folders before their contents, links not followed."""
    if not os.path.isdir(folder) or os.path.islink(folder):
        return []
    found = [os.fspath(folder)]
    for top, dirs, files in os.walk(folder, followlinks=False):
        found.extend(os.path.join(top, name) for name in dirs)
        found.extend(os.path.join(top, name) for name in files)
    return found
