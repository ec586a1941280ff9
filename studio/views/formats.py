"""How the app writes sizes, times, durations and token counts: one way for every view."""

from __future__ import annotations

import html
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studio.judging.verdicts import Verdict


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


NOT_DEFINED = "—"
VERDICT_TEXT = {"pass": "pass", "fail": "fail", "na": "n/a", "missing": "missing"}


def percent_text(value: float | None) -> str:
    """A value on the 0..100 scale, one decimal ("—" when undefined)."""
    return NOT_DEFINED if value is None else f"{value:.1f}%"


def coefficient_text(value: float | None) -> str:
    return NOT_DEFINED if value is None else f"{value:.3f}"


def interval_text(interval: list[float] | None, percent: bool = False) -> str:
    if not interval:
        return NOT_DEFINED
    return f"{interval[0]:.1f}–{interval[1]:.1f}%" if percent else f"{interval[0]:.3f} to {interval[1]:.3f}"


def verdict_text(value: str) -> str:
    """A verdict as the review shows it (na: n/a; a missing verdict with its reason: missing)."""
    return VERDICT_TEXT.get(value, "missing" if value.startswith("missing") else value)


def verdict_shown(verdict: Verdict | None) -> str:
    """A stored verdict's value as the review shows it; nothing for no verdict."""
    return "" if verdict is None else verdict_text(verdict.verdict)


def settled_text(verdict: Verdict) -> str:
    """A settled verdict with who settled it ("fail, by Carla", HTML-escaped); older files did not record it."""
    return f"{verdict_shown(verdict)}, by {html.escape(verdict.by)}" if verdict.by else verdict_shown(verdict)
