"""The one rule for every file tree an agent controls: a workspace, a checkpoint, a submission, a
Harbor job folder, a log (docs/security.md, "Agent-controlled files").

Never follow a link out of the tree, never write through a link, never copy a device, FIFO or
socket, never keep setuid/setgid bits, cap sizes (apparent and on disk), and treat names as bytes
(`shown` escapes them wherever they are printed). Every part of the product that reads, copies or
writes such a tree goes through this package.
"""

from __future__ import annotations

from studio.untrusted.limits import FILE_LIMIT, LINK_HOPS, LOG_HEAD, LOG_LIMIT, LOG_TAIL, TREE_LIMIT, Limits
from studio.untrusted.names import shown
from studio.untrusted.problems import UntrustedFileError, special_kind

__all__ = [
    "FILE_LIMIT",
    "LINK_HOPS",
    "LOG_HEAD",
    "LOG_LIMIT",
    "LOG_TAIL",
    "TREE_LIMIT",
    "Limits",
    "UntrustedFileError",
    "shown",
    "special_kind",
]
