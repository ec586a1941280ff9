"""Hostile trees for the tests: what an untrusted agent can leave in a folder it controls."""

from __future__ import annotations

import os
import stat
from pathlib import Path

HOST_SECRET = "root:x:0:0:HOST-ONLY secret line\n"


def host_secret(tmp_path: Path) -> Path:
    """A file of the machine, outside every tree: nothing the product does may read or change it."""
    secret = tmp_path / "host" / "passwd"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text(HOST_SECRET, encoding="utf-8")
    return secret


def device_node(path: Path, minor: int = 5) -> Path:
    """A character device like /dev/zero (1, 5), whose reading never ends, or /dev/null (1, 3); we are root in CI."""
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    return path


def sparse(path: Path, size: int) -> Path:
    """A file of `size` bytes that takes almost nothing on disk (what `truncate -s` makes)."""
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path
