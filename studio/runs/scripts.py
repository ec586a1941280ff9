"""How a script file is started inside a container: by its `#!` line, else by its extension."""

from __future__ import annotations

import shlex
from pathlib import Path

BY_EXTENSION = {".py": ["python3"], ".sh": ["sh"]}


def script_command(script: Path, mounted_at: str) -> list[str]:
    """The command that runs `script` (a host file) mounted at `mounted_at` in a container."""
    try:
        with open(script, "rb") as handle:
            first = handle.readline(256)
    except OSError:
        first = b""
    if first.startswith(b"#!"):
        interpreter = shlex.split(first[2:].decode("utf-8", errors="replace").strip())
        if interpreter:
            return [*interpreter, mounted_at]
    return [*BY_EXTENSION.get(script.suffix.lower(), ["sh"]), mounted_at]
