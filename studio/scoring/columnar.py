"""Scoring a plain CSV verdict table column by column in C-level passes, without numpy.

A table the size of the paper's benchmark (40,000 rows) is scored faster than numpy can be
imported, so this is the fast path for such tables (see `studio.scoring.score_table`). The
file is split into cells by str.split, each column is a slice of the cells, and every check
is a map, zip or set over a column; the checked rubrics are then scored by the same engine as
the row-by-row reader's.

It reads only what it can read exactly: quote-free text with \\n or \\r\\n line ends, no blank
line, every row as wide as the header, each column named once, no empty id cell, no
criterion twice in a rubric, weights shared across systems, and every cell valid. Anything
else (and any ScoringError: unknown `requires`, a cycle, W+ = 0) returns None, and the
row-by-row reader decides and names the bad rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress, islice, repeat
from operator import eq, ne, or_

from studio.model.vocabulary import Target
from studio.scoring.cells import check_cells
from studio.scoring.engine import FINAL_SCOPE, BenchmarkScores, RubricColumns, ScoringError, score_benchmark

ID_COLUMNS = ("project", "system", "scope", "criterion")
REQUIRED = ID_COLUMNS + ("weight", "target", "dimension", "verdict")
OPTIONAL = ("gate", "requires")
SPEC_CELLS = ("weight", "target", "dimension", "verdict", "gate", "requires")
CHECKPOINT = Target.CHECKPOINT.value
# Characters str.strip() removes that a machine-written ASCII table might hold; with none of
# them (and ASCII text) no cell needs stripping.
_ASCII_BLANKS = (" ", "\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")


class _Specs(dict):
    """(weight, target, dimension, verdict, gate, requires) cells -> the checked (weight,
    target, dimension, verdict, gate, requires ids), or the cells' problems: each distinct
    combination checked once. Whether the target fits the row's scope is checked for the
    whole column afterwards (see _targets_fit), so the scope is not part of the key."""

    def __missing__(self, key: tuple) -> tuple | list:
        weight, target, dimension, verdict, gate, requires = key
        final = target.strip().lower() != CHECKPOINT
        checked = check_cells(weight, target, dimension, verdict, gate, final)
        if type(checked) is tuple:
            checked += (tuple(part.strip() for part in requires.split(";") if part.strip()),)
        self[key] = checked
        return checked


class _TailSpecs(_Specs):
    """The same, keyed by the row's text after its four id cells: one string per row stands
    for all its other cells, so they are never split into strings one by one. A tail of the
    wrong width is a problem (it is how this path checks the rows' widths)."""

    def __init__(self, tail_names: list[str]):
        super().__init__()
        self.width = len(tail_names)
        self.picks = [tail_names.index(name) if name in tail_names else None for name in SPEC_CELLS]

    def __missing__(self, tail: str) -> tuple | list:  # type: ignore[override]
        cells = tail.split(",")
        if len(cells) != self.width:
            value: tuple | list = [("", "a row of another width")]
        else:
            value = _Specs.__missing__({}, tuple("" if k is None else cells[k] for k in self.picks))  # type: ignore[arg-type]
        self[tail] = value
        return value


def _targets_fit(scopes: Sequence[str], targets: Sequence[str]) -> bool:
    """Every row of a final rubric has a final target, every other row the checkpoint target."""
    return all(map(eq, map(FINAL_SCOPE.__eq__, scopes), map(CHECKPOINT.__ne__, targets)))


def score_plain_text(text: str) -> BenchmarkScores | None:
    """Scores of the table whose text (BOM removed) is `text`, or None where the row-by-row
    reader must decide."""
    if '"' in text or "\x00" in text:
        return None
    newline = "\n"
    if "\r" in text:
        crlf = text.count("\r\n")
        if text.count("\r") != crlf or text.count("\n") != crlf:
            return None  # bare carriage returns, or mixed line ends: csv.reader's rules apply
        newline = "\r\n"
    if text.endswith(newline):
        text = text[:-len(newline)]
    header_end = text.find(newline)
    if header_end < 0 or newline * 2 in text or text.startswith(newline):
        return None
    names = [name.strip().lower() for name in text[:header_end].split(",")]
    width = len(names)
    if any(name not in names for name in REQUIRED) or any(names.count(n) > 1 for n in REQUIRED + OPTIONAL):
        return None
    lines = text[header_end + len(newline):].split(newline)
    needs_strip = not text.isascii() or any(map(text.__contains__, _ASCII_BLANKS))
    del text
    ids: list[Sequence[str]]
    if sorted(names.index(name) for name in ID_COLUMNS) == [0, 1, 2, 3]:
        # The usual layout, ids first: split each line once after them; the rest of the row is
        # one key, checked (width included) once per distinct value.
        columns = list(zip(*map(str.split, lines, repeat(","), repeat(4))))  # noqa: B905
        del lines
        if len(columns) != 5:
            return None  # a row of fewer than five cells
        ids = [columns[names.index(name)] for name in ID_COLUMNS]
        specs: _Specs = _TailSpecs(names[4:])
        keys: Iterable = columns[4]
    else:
        if set(map(str.count, lines, repeat(","))) != {width - 1}:
            return None  # a ragged row
        cells = ",".join(lines).split(",")
        del lines
        column = {name: cells[names.index(name)::width] for name in REQUIRED + OPTIONAL if name in names}
        del cells
        ids = [column[name] for name in ID_COLUMNS]
        specs = _Specs()
        blank = repeat("")
        keys = zip(*(column[name] if name in column else blank for name in SPEC_CELLS))  # noqa: B905
    ids = [list(map(str.strip, c)) if needs_strip else c for c in ids]
    if not all(map(all, ids)):
        return None  # an empty id cell
    checked = list(map(specs.__getitem__, keys))
    if any(type(value) is list for value in specs.values()):
        return None
    return _score(ids, checked)


def _score(ids: list[Sequence[str]], checked: list[tuple]) -> BenchmarkScores | None:
    projects, systems, scopes, criteria = ids
    rows = len(checked)
    weights, targets, dimensions, verdicts, gate_flags, requires = zip(*checked, strict=True)
    del checked
    if not _targets_fit(scopes, targets):
        return None  # a target that does not fit its scope: the row reader names the row
    fields: tuple[tuple, ...] = (tuple(criteria), weights, targets, dimensions, verdicts, gate_flags, requires)
    starts = _run_starts(projects, systems, scopes)
    order = _rubric_order(projects, systems, scopes, starts)
    if order is not None:  # rows of a rubric are scattered: gather them (stable, so their order stays)
        fields = tuple(tuple(map(f.__getitem__, order)) for f in fields)
        projects, systems, scopes = ([c[i] for i in order] for c in (projects, systems, scopes))
        starts = _run_starts(projects, systems, scopes)
    rubrics: dict[str, dict[str, dict[str, RubricColumns]]] = {}
    shared = _SharedWeights()
    for start, end in zip(starts, starts[1:] + [rows], strict=False):
        rubric = RubricColumns(*(f[start:end] for f in fields))
        if not shared.fits(projects[start], scopes[start], rubric):
            return None
        rubrics.setdefault(projects[start], {}).setdefault(systems[start], {})[scopes[start]] = rubric
    try:
        return score_benchmark(rubrics)
    except ScoringError:
        return None  # the row reader names the rows (or raises the same error)


class _SharedWeights:
    """Checks that no criterion is listed twice in a rubric and that every system's rubric of
    a (project, scope) weighs each criterion alike.

    Systems usually list a rubric identically, so a rubric is first compared whole (tuple
    equality, in C) with the first one seen for its project and scope; only one that differs
    is checked criterion by criterion."""

    def __init__(self) -> None:
        self.first: dict[tuple[str, str], RubricColumns] = {}
        self.merged: dict[tuple[str, str], dict[str, int]] = {}

    def fits(self, project: str, scope: str, rubric: RubricColumns) -> bool:
        key = (project, scope)
        first = self.first.get(key)
        if first is not None and first.ids == rubric.ids:
            return first.weights == rubric.weights
        if len(set(rubric.ids)) != len(rubric.ids):
            return False  # a criterion twice: the row reader merges identical rows or reports them
        if first is None:
            self.first[key] = rubric
            return True
        known = self.merged.get(key)
        if known is None:
            known = self.merged[key] = dict(zip(first.ids, first.weights, strict=False))
        pairs = zip(rubric.ids, rubric.weights, strict=True)
        return all(known.setdefault(cid, weight) == weight for cid, weight in pairs)


def _run_starts(projects: Sequence[str], systems: Sequence[str], scopes: Sequence[str]) -> list[int]:
    """Row indices where project, system or scope changes value: the starts of rubric runs."""
    changed = [map(ne, c, islice(c, 1, None)) for c in (projects, systems, scopes)]
    return [0, *compress(range(1, len(projects)), map(or_, map(or_, changed[0], changed[1]), changed[2]))]


def _rubric_order(projects: Sequence[str], systems: Sequence[str], scopes: Sequence[str],
                  starts: list[int]) -> list[int] | None:
    """None when each rubric's rows are contiguous (runs start at `starts`), else the row order
    that makes them so."""
    keys = list(zip(map(projects.__getitem__, starts), map(systems.__getitem__, starts),
                    map(scopes.__getitem__, starts), strict=True))
    if len(set(keys)) == len(keys):
        return None
    first: dict[tuple[str, str, str], int] = {}
    rank = [first.setdefault(key, len(first)) for key in zip(projects, systems, scopes, strict=False)]
    return sorted(range(len(rank)), key=rank.__getitem__)
