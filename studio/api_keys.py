"""API keys for the agents and the judge: from the environment, else from the OS keyring; never from a file
of the project, a run or a log."""

from __future__ import annotations

import os

# The keyring service every key of the app is stored under: `keyring set dbstudio VARIABLE`.
KEYRING_SERVICE = "dbstudio"


def secret(variable: str) -> str | None:
    """The value of `variable` from the environment, else from the OS keyring (service "dbstudio", user
    `variable`); None if in neither. A machine without a keyring backend (a server, CI) counts as an empty
    keyring: the caller then says how to give the key."""
    value = os.environ.get(variable)
    if value:
        return value
    try:
        import keyring
        import keyring.errors
    except ImportError:
        return None
    try:
        return keyring.get_password(KEYRING_SERVICE, variable) or None
    except (keyring.errors.KeyringError, RuntimeError, OSError):
        return None
