"""Column-wise checking of a clean verdict table: the same verdict as the row-by-row checks,
in C-level passes (map, zip, set, slicing). Any doubt returns None and the row checks decide."""

from __future__ import annotations

from itertools import compress, islice, repeat
from operator import itemgetter, ne, or_
from typing import Sequence

from studio.scoring.cells import check_cells
from studio.scoring.columns import VerdictColumns
from studio.scoring.engine import FINAL_SCOPE, RubricColumns, ScoringError

class _RequiresCells(dict):
    """A `requires` cell -> the tuple of ids it names, split once per distinct cell."""

    def __missing__(self, cell: str) -> tuple[str, ...]:
        value = self[cell] = tuple(r.strip() for r in cell.split(";") if r.strip())
        return value

class _Specs(dict):
    """Cell combination -> checked values (or problems), computed on first sight."""

    def __missing__(self, key: tuple) -> tuple | list:
        value = self[key] = check_cells(*key)
        return value

def clean_columns(columns: Sequence[Sequence[str]], col: dict[str, int], trimmed: bool = False) -> VerdictColumns | None:
    """The table read from its columns (header excluded), if it has no problem at all.
    `trimmed`: the reader knows no cell has surrounding blanks, so nothing is stripped."""
    n = len(columns[col["project"]])
    if n == 0:
        return None
    names = ("project", "system", "scope", "criterion")
    stripped = [columns[col[name]] if trimmed else list(map(str.strip, columns[col[name]])) for name in names]
    if not all(map(all, stripped)):
        return None  # an empty id cell
    projects, systems, scopes, criteria = stripped
    specs = _Specs()
    gate_cells = columns[col["gate"]] if "gate" in col else repeat("")
    checked = list(map(specs.__getitem__, zip(columns[col["weight"]], columns[col["target"]], columns[col["dimension"]],
                                              columns[col["verdict"]], gate_cells, map(FINAL_SCOPE.__eq__, scopes))))
    if any(type(v) is list for v in specs.values()):
        return None
    weights, targets, dimensions, verdicts, gates = zip(*checked)
    if "requires" in col:
        requires = tuple(map(_RequiresCells().__getitem__, columns[col["requires"]]))
    else:
        requires = ((),) * n
    fields = [tuple(criteria), weights, targets, dimensions, verdicts, gates, requires]
    starts = _run_starts(projects, systems, scopes)
    keys = [(projects[s], systems[s], scopes[s]) for s in starts]
    if len(set(keys)) != len(keys):
        # Rows of one rubric are scattered: put them together (a stable sort keeps their order).
        groups = list(zip(projects, systems, scopes))
        gather = itemgetter(*sorted(range(n), key=groups.__getitem__))  # n > 1: keys repeat
        fields = [gather(f) for f in fields]
        projects, systems, scopes = (list(c) for c in zip(*gather(groups)))
        starts = _run_starts(projects, systems, scopes)
        keys = [(projects[s], systems[s], scopes[s]) for s in starts]
    runs = list(zip(starts, starts[1:] + [n]))
    table = VerdictColumns(keys, runs, RubricColumns(*fields))
    if not _ids_unique_and_weights_shared(table):
        return None
    try:
        return table.resolve_requires()  # resolving them is also the check for unknown ids and cycles
    except ScoringError:
        return None


def _ids_unique_and_weights_shared(table: VerdictColumns) -> bool:
    """No criterion twice in one rubric, and every system's rubric weighs a criterion alike.

    Systems usually list a project's rubric identically, so each rubric is first compared
    whole (tuple equality, in C) with the first one seen for its project and scope; only a
    rubric that differs is checked criterion by criterion.
    """
    ids, weights = table.rows.ids, table.rows.weights
    reference: dict[tuple[str, str], tuple[tuple, tuple]] = {}
    merged: dict[tuple[str, str], dict[str, int]] = {}
    for (project, _, scope), (start, end) in zip(table.keys, table.runs):
        these_ids, these_weights = ids[start:end], weights[start:end]
        seen = reference.get((project, scope))
        if seen is not None and seen[0] == these_ids:
            if seen[1] != these_weights:
                return False
            continue
        if len(set(these_ids)) != end - start:
            return False  # repeated criteria: the row checks count identical ones once, report conflicts
        if seen is None:
            reference[(project, scope)] = (these_ids, these_weights)
        known = merged.setdefault((project, scope), dict(zip(*reference[(project, scope)])))
        for cid, weight in zip(these_ids, these_weights):
            if known.setdefault(cid, weight) != weight:
                return False
    return True


def _run_starts(projects: Sequence[str], systems: Sequence[str], scopes: Sequence[str]) -> list[int]:
    """Row indices where project, system or scope changes value: the starts of rubric runs."""
    changed = [map(ne, column, islice(column, 1, None)) for column in (projects, systems, scopes)]
    return [0, *compress(range(1, len(projects)), map(or_, map(or_, changed[0], changed[1]), changed[2]))]
