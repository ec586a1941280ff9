"""The conflicts of a merge in progress, kept per clone in `.dbstudio/conflicts.json` (never
committed: `.dbstudio/` is in every project's .gitignore).

Each entry is one field of one file that both sides changed differently (kind "field"), one text
file whose lines both sides changed (kind "text", whole-file), or a file git could not merge at
all (kind "file": a binary material changed on both sides). Entries name the commit that was HEAD
when the merge began: once that merge is over (committed or aborted) they are stale and read as
none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from studio.collab.merge import MISSING, FieldConflict, field_name, parse_field
from studio.store.atomic import write_atomic

CONFLICTS_FILE = ".dbstudio/conflicts.json"
Kind = Literal["field", "text", "file"]
SIDES = ("base", "ours", "theirs")


@dataclass(frozen=True)
class Conflict:
    """One thing the expert must settle before the merge can be committed."""

    file: str  # relative to the project folder
    field: str  # `criteria[T05-C02].weight`, or "(whole file)" for kinds text and file
    kind: Kind
    base: Any = MISSING
    ours: Any = MISSING
    theirs: Any = MISSING
    head: str = ""

    @property
    def path(self) -> tuple[Any, ...]:
        return parse_field(self.field)

    def value(self, side: str) -> Any:
        if side not in SIDES:
            raise ValueError(f"no side {side}")
        return getattr(self, side)

    def shown(self, side: str) -> str:
        """A side's value as a person reads it: a text as it is, anything else as YAML, "(absent)"
        where that side has none."""
        value = self.value(side)
        if value is MISSING:
            return "(absent)"
        if isinstance(value, str):
            return value
        import yaml

        return yaml.safe_dump(value, allow_unicode=True, sort_keys=False,
                              default_flow_style=False).removesuffix("...\n").rstrip("\n")

    def short(self, side: str, width: int = 60) -> str:
        """The same on one line of at most `width` characters."""
        text = self.shown(side).strip().replace("\n", " ⏎ ")
        return text if len(text) <= width else text[:width - 1] + "…"

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"file": self.file, "field": self.field, "kind": self.kind, "head": self.head}
        for side in SIDES:
            value = getattr(self, side)
            if value is not MISSING:
                entry[side] = value
        return entry

    @classmethod
    def from_json(cls, entry: dict[str, Any]) -> Conflict:
        return cls(file=str(entry["file"]), field=str(entry["field"]), kind=entry.get("kind", "field"),
                   base=entry.get("base", MISSING), ours=entry.get("ours", MISSING),
                   theirs=entry.get("theirs", MISSING), head=str(entry.get("head", "")))


def from_field(file: str, conflict: FieldConflict, head: str) -> Conflict:
    return Conflict(file, field_name(conflict.path), "field", conflict.base, conflict.ours, conflict.theirs, head)


def read_all(project: Path) -> list[Conflict]:
    """Every recorded entry, stale ones included (an unreadable file reads as none)."""
    path = Path(project) / CONFLICTS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries = data.get("conflicts", []) if isinstance(data, dict) else []
    return [Conflict.from_json(entry) for entry in entries if isinstance(entry, dict) and "file" in entry]


def write_all(project: Path, conflicts: list[Conflict]) -> None:
    path = Path(project) / CONFLICTS_FILE
    if not conflicts:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"conflicts": [conflict.to_json() for conflict in conflicts]}, indent=2, ensure_ascii=False)
    write_atomic(path, (text + "\n").encode("utf-8"))


def record(project: Path, file: str, found: list[Conflict]) -> None:
    """Replace what is recorded for `file` with `found` (a merge driver's result for that file)."""
    kept = [conflict for conflict in read_all(project) if conflict.file != file]
    write_all(project, kept + found)


def clear(project: Path) -> None:
    write_all(project, [])
