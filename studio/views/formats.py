"""How the app writes sizes, times, durations and token counts: one way for every view."""

from __future__ import annotations

from datetime import datetime
from enum import Enum


def file_size(size: int) -> str:
    """Bytes in decimal units, as file managers show them: `34 B`, `2.0 kB`, `1.5 MB`."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"


def local_time(moment: datetime | None) -> str:
    """A moment in the user's time zone, to the minute ("" for none)."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment is not None else ""


def duration_text(seconds: float | None) -> str:
    """`12.5 s`, `3 min 05 s`, `2 h 04 min` ("" for none)."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def tokens_text(tokens: dict[str, int] | None) -> str:
    """`1,200 in · 300 out`: each kind of token a run recorded, as it recorded them."""
    if not tokens:
        return ""
    short = {"input": "in", "output": "out", "cached": "cached", "total": "total"}
    return " · ".join(f"{count:,} {short.get(name, name)}" for name, count in tokens.items())


def enum_choices(values: type[Enum]) -> list[tuple[str, str]]:
    """(label, value) of each member, for a drop-down: `source_record` reads "Source record"."""
    return [(str(member.value).replace("_", " ").capitalize(), str(member.value)) for member in values]
