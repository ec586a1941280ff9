"""A small TOML writer for task.toml: root keys, tables, arrays of tables and inline tables of
strings, numbers, booleans and lists. Python reads TOML (tomllib) but does not write it, and the
task file is simple enough not to need a dependency; tests read every file back with tomllib
and with Harbor's own task model."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")

Table = Mapping[str, Any]


def key(name: str) -> str:
    return name if BARE_KEY.match(name) else json.dumps(name)


def value(item: Any) -> str:
    """One TOML value. JSON's string escapes (\\" \\\\ \\n \\uXXXX ...) are all valid in TOML."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if not math.isfinite(item):
            raise ValueError(f"TOML has no {item}")
        return repr(item)
    if isinstance(item, str):
        return json.dumps(item)
    if isinstance(item, Mapping):
        return "{ " + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + " }"
    if isinstance(item, Sequence):
        return "[" + ", ".join(value(v) for v in item) + "]"
    raise TypeError(f"no TOML form for {type(item).__name__}")


def _is_table(item: Any) -> bool:
    return isinstance(item, Mapping)


def _is_table_array(item: Any) -> bool:
    return isinstance(item, list) and bool(item) and all(isinstance(v, Mapping) for v in item)


def _emit(lines: list[str], path: list[str], table: Table, header: str | None) -> None:
    plain = [(k, v) for k, v in table.items() if not _is_table(v) and not _is_table_array(v)]
    if header is not None:
        lines.append("")
        lines.append(header)
    lines.extend(f"{key(k)} = {value(v)}" for k, v in plain)
    for name, item in table.items():
        if _is_table(item):
            sub = [*path, name]
            _emit(lines, sub, item, "[" + ".".join(key(part) for part in sub) + "]")
        elif _is_table_array(item):
            sub = [*path, name]
            for element in item:
                _emit(lines, sub, element, "[[" + ".".join(key(part) for part in sub) + "]]")


def dumps(document: Table, comment: str = "") -> str:
    """`document` as TOML, after `comment` (each of its lines prefixed with '# ')."""
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    _emit(lines, [], document, None)
    return "\n".join(lines).lstrip("\n") + "\n"
