"""How a script file is started inside a container: by its `#!` line, else by its extension
(python3 for `.py`, sh otherwise). Script harnesses and generated releases both start this way."""

from __future__ import annotations

import shlex
from pathlib import Path


def interpreter_for(script: Path) -> list[str]:
    """The interpreter words that start `script` (a host file)."""
    try:
        with open(script, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        first = b""
    if first.startswith(b"#!"):
        words = shlex.split(first[2:].decode("utf-8", errors="replace"))
        if words:
            return words
    return ["python3"] if script.suffix.lower() == ".py" else ["sh"]


def script_command(script: Path, mounted_at: str) -> list[str]:
    """The command that runs `script` mounted at `mounted_at` in a container."""
    return [*interpreter_for(script), mounted_at]
