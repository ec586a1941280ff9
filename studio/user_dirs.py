"""Where the app keeps a user's own files (preferences, crash logs): an environment variable of its
own wins, else the XDG base directory, else the Windows or home-folder default."""

from __future__ import annotations

import os
from pathlib import Path


def user_folder(own_variable: str, xdg_variable: str, windows_variable: str, *home_default: str) -> Path:
    """`$own_variable`, else `$xdg_variable/dbstudio` (an absolute one: the XDG spec says to ignore a
    relative value), else `%windows_variable%/dbstudio` on Windows, else ~/`home_default`/dbstudio."""
    if os.environ.get(own_variable):
        return Path(os.environ[own_variable])
    xdg = os.environ.get(xdg_variable)
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "dbstudio"
    if os.name == "nt" and os.environ.get(windows_variable):
        return Path(os.environ[windows_variable]) / "dbstudio"
    return Path.home().joinpath(*home_default, "dbstudio")
