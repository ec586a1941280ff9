"""The rubric sheet's columns: header, criterion field, width, drop-down choices, and how a
field's value is shown in a cell. The exporter and the reader share this one description."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studio.model.vocabulary import Dimension, Target

RUBRIC_SHEET = "Rubrics"
INSTRUCTIONS_SHEET = "Instructions"
YES, NO = "yes", "no"
STATUSES = ("draft", "reviewed", "approved")
DEFAULT_STATUS = "draft"
# Lists are written one item per line (Alt+Enter in Excel); see docs/spreadsheets.md.
LIST_SEPARATOR = "\n"


@dataclass(frozen=True)
class Column:
    header: str
    field: str  # the criterion field it holds ("review.status" for the review's status)
    width: float
    choices: tuple[str, ...] = ()
    kind: str = "text"  # text, id, ids (a list of ids), lines (a list of paths), choice, weight, gate


COLUMNS = (
    Column("rubric", "rubric", 10, kind="id"),
    Column("id", "id", 12, kind="id"),
    Column("text", "text", 60),
    Column("covers", "covers", 36, kind="lines"),
    Column("target", "target", 12, tuple(t.value for t in Target), kind="choice"),
    Column("dimension", "dimension", 16, tuple(d.value for d in Dimension), kind="choice"),
    Column("weight", "weight", 9, kind="weight"),
    Column("gate", "gate", 7, (YES, NO), kind="gate"),
    Column("requires", "requires", 14, kind="ids"),
    Column("propagates", "propagates", 12, kind="ids"),
    Column("reuse_of", "reuse_of", 12, kind="id"),
    Column("status", "review.status", 11, STATUSES, kind="choice"),
    Column("reviewer", "review.reviewer", 18),
    Column("note", "review.note", 40),
)
BY_FIELD = {column.field: column for column in COLUMNS}
# The fields of a criterion a row sets; `rubric` and `id` (or `reuse_of`) say which criterion it is.
FIELDS = tuple(column.field for column in COLUMNS if column.field not in ("rubric", "id", "reuse_of"))
# A reused criterion's own fields; its other cells show the original and are not imported.
REUSED_FIELDS = ("covers",)
LIST_FIELDS = ("covers", "requires", "propagates")


def header_key(text: str) -> str:
    """A header as the reader matches it: case, spaces, '_', '-' and '.' do not matter."""
    for mark in "_-.":
        text = text.replace(mark, " ")
    return " ".join(text.lower().split())


HEADER_KEYS = {header_key(name): column for column in COLUMNS for name in (column.header, column.field)}


def shown(field: str, value: Any) -> Any:
    """A field's value as its cell shows it: lists one item a line, gate yes/no, the rest as is."""
    if field in LIST_FIELDS:
        return LIST_SEPARATOR.join(str(item) for item in value) if value else None
    if field == "gate":
        return YES if value else NO
    if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return str(value)


def plain(value: Any) -> str | None:
    """A cell's content compared as text, so that a cell the expert left alone reads as unchanged
    whether Excel kept it as a number or as text, and surrounding blanks do not count."""
    if value is None:
        return None
    if isinstance(value, bool):
        return YES if value else NO
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).replace("\r\n", "\n").replace("\r", "\n").strip()
    return text or None
