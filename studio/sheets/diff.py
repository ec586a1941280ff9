"""What an edited rubric sheet changes: fields of existing criteria, new criteria, removed ones."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from studio.sheets.columns import shown


@dataclass(frozen=True)
class FieldChange:
    """One field of one criterion, `old` as the project holds it, `new` as the sheet says."""

    rubric: str
    criterion: str
    field: str
    old: Any
    new: Any
    cell: str  # Sheet!C7
    reused: bool = False  # a reused criterion's own field (its covers)


@dataclass(frozen=True)
class AddedCriterion:
    """A row for a criterion the project does not have; placed after `after` in its rubric
    (None: first)."""

    rubric: str
    criterion: str
    values: dict[str, Any]
    row: int
    after: str | None = None
    reused: bool = False


@dataclass(frozen=True)
class RemovedCriterion:
    """A criterion of the project with no row in the sheet."""

    rubric: str
    criterion: str
    reused: bool = False
    text: str = field(default="", compare=False)
    """What the removed criterion requires (or which criterion it reused), so a reviewer sees what goes."""


def _cell(value: Any) -> str:
    """A value as a table cell shows it: lists joined, yes/no, nothing for None."""
    if isinstance(value, list):
        return shown("covers", value) or ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def _text(value: Any) -> str:
    value = shown("covers", value) if isinstance(value, list) else value
    if value is None:
        return "(empty)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return repr(value) if isinstance(value, str) and "\n" in value else str(value)


@dataclass
class SheetDiff:
    """Everything an import would change, in sheet order."""

    changed: list[FieldChange] = field(default_factory=list)
    added: list[AddedCriterion] = field(default_factory=list)
    removed: list[RemovedCriterion] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.removed)

    def by_criterion(self) -> dict[tuple[str, str], list[FieldChange]]:
        """Changed fields grouped by (rubric, criterion), in sheet order."""
        grouped: dict[tuple[str, str], list[FieldChange]] = {}
        for change in self.changed:
            grouped.setdefault((change.rubric, change.criterion), []).append(change)
        return grouped

    def rows(self) -> list[tuple[str, ...]]:
        """The diff as a table, one row per changed field, added and removed criterion:
        (what, rubric, criterion, field, old, new, where in the sheet)."""
        rows: list[tuple[str, ...]] = [("changed", c.rubric, c.criterion, c.field, _cell(c.old), _cell(c.new), c.cell)
                                       for c in self.changed]
        for added in self.added:
            what = f"reuses {added.values.get('reuse_of')}" if added.reused else _cell(added.values.get("text"))
            rows.append(("added", added.rubric, added.criterion, "", "", what, f"row {added.row}"))
        rows += [("removed", r.rubric, r.criterion, "", r.text, "", "") for r in self.removed]
        return rows

    def lines(self) -> Iterator[str]:
        """The diff as text: one line per changed field, added and removed criterion."""
        for change in self.changed:
            yield f"~ {change.rubric} {change.criterion} {change.field}: {_text(change.old)} -> {_text(change.new)}"
        for added in self.added:
            what = f"reuses {added.values.get('reuse_of')}" if added.reused else _text(added.values.get("text"))
            yield f"+ {added.rubric} {added.criterion} (row {added.row}): {what}"
        for removed in self.removed:
            yield f"- {removed.rubric} {removed.criterion}" + (f": {removed.text}" if removed.text else "")

    def summary(self) -> str:
        return (f"{len(self.changed)} field{'s' if len(self.changed) != 1 else ''} changed, "
                f"{len(self.added)} criteri{'a' if len(self.added) != 1 else 'on'} added, "
                f"{len(self.removed)} removed")

    def to_json(self) -> dict[str, Any]:
        return {
            "changed": [{"rubric": c.rubric, "criterion": c.criterion, "field": c.field, "old": c.old, "new": c.new,
                         "cell": c.cell} for c in self.changed],
            "added": [{"rubric": a.rubric, "criterion": a.criterion, "row": a.row, "after": a.after,
                       "reused": a.reused, "values": a.values} for a in self.added],
            "removed": [{"rubric": r.rubric, "criterion": r.criterion, "reused": r.reused, "text": r.text} for r in self.removed],
        }
