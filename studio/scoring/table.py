"""The verdict table: results produced anywhere, as CSV or xlsx, read into scorable rubrics.

Columns (header row, any order): project, system, scope, criterion, weight, target, dimension,
verdict; optional gate, requires. Rows are numbered as a spreadsheet shows them (header = 1).
Every bad row is reported with its row number and column; if any is bad, nothing is scored.
"""

from __future__ import annotations

import csv
import gc
import io
from contextlib import contextmanager
from itertools import compress, islice, repeat
from operator import eq, itemgetter, ne
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from studio.scoring.engine import DIMENSIONS, FINAL_SCOPE, FINAL_TARGETS, RubricColumns, ScoredCriterion

REQUIRED = ("project", "system", "scope", "criterion", "weight", "target", "dimension", "verdict")
OPTIONAL = ("gate", "requires")
TARGETS = ("checkpoint",) + FINAL_TARGETS
TRUE_WORDS = {"1", "pass", "true", "yes"}
FALSE_WORDS = {"0", "fail", "false", "no"}
MAX_ERRORS = 50


def parse_verdict(text: str) -> bool | None:
    """1/0, pass/fail, true/false, yes/no in any case; empty = missing. ValueError otherwise."""
    word = text.strip().lower()
    if word == "":
        return None
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(text)


@dataclass(frozen=True)
class TableProblem:
    row: int
    column: str | None
    message: str
    cell: str | None = None

    def render(self, source: str) -> str:
        where = f"row {self.row}" + (f", column '{self.column}'" if self.column else "")
        if self.cell:
            where += f" (cell {self.cell})"
        return f"{source}: {where}: {self.message}"


class VerdictTableError(Exception):
    """The table has bad rows; nothing was scored."""

    def __init__(self, source: str, problems: list[TableProblem]):
        self.source = source
        self.problems = problems
        super().__init__("\n".join(p.render(source) for p in problems))


def _column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def _rows_csv(path: Path) -> Iterator[list[str]]:
    text = path.read_bytes().decode("utf-8-sig")  # no newline translation: csv handles \r\n
    if '"' not in text:
        # Without quotes a CSV line is exactly its comma-separated fields; str.split does that
        # in C, faster than csv.reader's state machine. Bare carriage returns go the long way.
        if "\r" in text and text.count("\r") == text.count("\r\n"):
            text = text.replace("\r\n", "\n")
        if "\r" not in text:
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            rows = list(map(str.split, lines, repeat(",")))
            if "" in lines:  # csv.reader gives an empty line as no fields at all
                rows = [row if row != [""] else [] for row in rows]
            return iter(rows)
    return csv.reader(io.StringIO(text, newline=""))


def _rows_xlsx(path: Path) -> Iterator[list[str]]:
    import openpyxl

    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        sheet = workbook.worksheets[0]
        for values in sheet.iter_rows(values_only=True):
            yield ["" if v is None else (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)) for v in values]
    finally:
        workbook.close()


def iter_table_rows(path: Path) -> Iterator[list[str]]:
    """Raw rows of a CSV or xlsx (first sheet) as lists of strings."""
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        return _rows_xlsx(path)
    return _rows_csv(path)


# rubrics[project][system][scope] -> the rubric's criteria as columns
Rubrics = dict[str, dict[str, dict[str, RubricColumns]]]


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while building tens of thousands of small tuples.

    They hold no cycles, but each allocation burst triggers a collection that walks all of
    them again: profiled at about half the time of reading a 40,000-row table.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_verdict_table(path: Path | str) -> Rubrics:
    """Read and check a verdict table. Raises VerdictTableError listing every bad row."""
    with gc_paused():
        return _read_verdict_table(Path(path))


def _read_verdict_table(path: Path) -> Rubrics:
    source = str(path)
    if not path.is_file():
        raise VerdictTableError(source, [TableProblem(0, None, "no such file")])
    is_xlsx = path.suffix.lower() in (".xlsx", ".xlsm")
    try:
        all_rows = list(iter_table_rows(path))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise VerdictTableError(source, [TableProblem(1, None, f"cannot read the table: {exc}")]) from None
    except Exception as exc:  # openpyxl raises several kinds for a file that is not a workbook
        raise VerdictTableError(source, [TableProblem(1, None, f"not a readable xlsx workbook: {exc}")]) from None
    if not all_rows:
        raise VerdictTableError(source, [TableProblem(1, None, "the table is empty: it needs a header row")])
    header, rows = all_rows[0], all_rows[1:]
    names = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise VerdictTableError(source, [TableProblem(
            1, None, f"header lacks column(s) {', '.join(missing)}; required: {', '.join(REQUIRED)}")])
    col = {name: names.index(name) for name in REQUIRED + OPTIONAL if name in names}
    fast = _read_clean(rows, col)
    if fast is not None:
        return fast
    rubrics, problems = _read_checked(rows, col, is_xlsx)
    if problems:
        raise VerdictTableError(source, problems)
    return rubrics


def _read_checked(rows: list[list[str]], col: dict[str, int], is_xlsx: bool) -> tuple[Rubrics, list[TableProblem]]:
    """The authoritative row-by-row reading: every problem, named by row and column."""
    problems: list[TableProblem] = []

    def bad(row: int, column: str, message: str) -> None:
        if len(problems) < MAX_ERRORS:
            cell = f"{_column_letter(col[column])}{row}" if is_xlsx else None
            problems.append(TableProblem(row, column, message, cell))

    i_proj, i_sys, i_scope, i_crit = col["project"], col["system"], col["scope"], col["criterion"]
    i_weight, i_target, i_dim, i_verdict = col["weight"], col["target"], col["dimension"], col["verdict"]
    i_gate, i_req = col.get("gate"), col.get("requires")
    width = max(col.values()) + 1
    lists: dict[str, dict[str, dict[str, list[ScoredCriterion]]]] = {}
    seen: dict[tuple[str, str, str, str], tuple[int, tuple]] = {}
    weights: dict[tuple[str, str, str], tuple[int, int]] = {}
    requires_rows: list[tuple[int, tuple[str, str, str], str, tuple[str, ...]]] = []
    # The weight/target/dimension/verdict/gate cells take few distinct values, so each
    # combination is checked once and the verdict reused: this keeps a 40,000-row table fast.
    specs: dict[tuple, tuple | list[tuple[str, str]]] = {}

    try:
        for number, raw in enumerate(rows, start=2):  # the authoritative, row-by-row checks
            if len(raw) < width:
                if not any(v.strip() for v in raw):
                    continue  # blank line
                raw = raw + [""] * (width - len(raw))
            project, system, scope, criterion = raw[i_proj].strip(), raw[i_sys].strip(), raw[i_scope].strip(), raw[i_crit].strip()
            if not (project and system and scope and criterion):
                if not (project or system or scope or criterion or raw[i_weight].strip()):
                    continue  # an empty row between blocks
                for name, value in (("project", project), ("system", system), ("scope", scope), ("criterion", criterion)):
                    if not value:
                        bad(number, name, f"'{name}' is empty")
                continue
            key_cells = (raw[i_weight], raw[i_target], raw[i_dim], raw[i_verdict],
                         raw[i_gate] if i_gate is not None else "", scope == FINAL_SCOPE)
            spec = specs.get(key_cells)
            if spec is None:
                spec = specs[key_cells] = _check_cells(*key_cells)
            if isinstance(spec, list):
                for column, message in spec:
                    bad(number, column, message.replace("{scope}", scope))
                continue
            weight, target, dimension, verdict, gate = spec
            requires: tuple[str, ...] = ()
            if i_req is not None and raw[i_req]:
                requires = tuple(r.strip() for r in raw[i_req].split(";") if r.strip())
            key = (project, system, scope, criterion)
            record = (weight, target, dimension, gate, requires, verdict)
            if key in seen:
                first_row, first = seen[key]
                if first != record:
                    bad(number, "criterion", f"criterion {criterion} appears again (first at row {first_row}) with different values; "
                        "a criterion covering several files has one verdict")
                continue  # the same criterion listed once per covered file counts once
            seen[key] = (number, record)
            shared = (project, scope, criterion)
            known = weights.get(shared)
            if known is None:
                weights[shared] = (number, weight)
            elif known[1] != weight:
                bad(number, "weight", f"weight {weight} differs from {known[1]} at row {known[0]}: "
                    "criterion weights are shared across systems")
                continue
            lists.setdefault(project, {}).setdefault(system, {}).setdefault(scope, []).append(
                ScoredCriterion(criterion, weight, target, dimension, verdict, gate, requires))
            if requires:
                requires_rows.append((number, (project, system, scope), criterion, requires))
    except (csv.Error, UnicodeDecodeError) as exc:
        problems.append(TableProblem(0, None, f"cannot read the table: {exc}"))

    rubrics: Rubrics = {p: {s: {scope: RubricColumns.of(c) for scope, c in scopes.items()}
                            for s, scopes in systems.items()} for p, systems in lists.items()}
    _check_requires(rubrics, requires_rows, bad)
    return rubrics, problems


class _RequiresCells(dict):
    """A `requires` cell -> the tuple of ids it names, split once per distinct cell."""

    def __missing__(self, cell: str) -> tuple[str, ...]:
        value = self[cell] = tuple(r.strip() for r in cell.split(";") if r.strip())
        return value


class _Specs(dict):
    """Cell combination -> checked values (or problems), computed on first sight."""

    def __missing__(self, key: tuple) -> tuple | list:
        value = self[key] = _check_cells(*key)
        return value


def _read_clean(rows: list[list[str]], col: dict[str, int]) -> Rubrics | None:
    """The same result as the row-by-row checks for a table without problems, in column-wise
    C-level passes; None as soon as anything needs a closer look (then the row loop reports)."""
    width = max(col.values()) + 1
    if not rows or min(map(len, rows)) < width:
        return None
    columns = list(zip(*rows))
    stripped = [list(map(str.strip, columns[col[name]])) for name in ("project", "system", "scope", "criterion")]
    projects, systems, scopes, criteria = stripped
    if not all(map(all, stripped)):
        return None  # an empty id cell
    final_flags = map(FINAL_SCOPE.__eq__, scopes)
    gate_cells = columns[col["gate"]] if "gate" in col else repeat("")
    specs = _Specs()
    checked = list(map(specs.__getitem__, zip(columns[col["weight"]], columns[col["target"]], columns[col["dimension"]],
                                              columns[col["verdict"]], gate_cells, final_flags)))
    if any(type(v) is list for v in specs.values()):
        return None
    weights, targets, dimensions, verdicts, gates = zip(*checked)
    if "requires" in col:
        requires = tuple(map(_RequiresCells().__getitem__, columns[col["requires"]]))
    else:
        requires = ((),) * len(rows)
    groups = list(zip(projects, systems, scopes))
    fields = [tuple(criteria), weights, targets, dimensions, verdicts, gates, requires]
    runs = _runs(groups)
    if len(runs) != len({groups[start] for start, _ in runs}):
        # Rows of one rubric are scattered: put them together (a stable sort keeps their order).
        gather = itemgetter(*sorted(range(len(rows)), key=groups.__getitem__))
        fields = [gather(f) for f in fields]
        groups = gather(groups)
        runs = _runs(groups)
    rubrics: Rubrics = {}
    shared_weights: dict[tuple[str, str], dict[str, int]] = {}
    for start, end in runs:
        project, system, scope = groups[start]
        picked = [f[start:end] for f in fields]
        rubric = RubricColumns(*picked)
        if len(set(rubric.ids)) != len(rubric):
            return None  # repeated criteria: the row loop counts identical ones once and reports conflicts
        known = shared_weights.setdefault((project, scope), {})
        known.update(zip(rubric.ids, rubric.weights))
        rubrics.setdefault(project, {}).setdefault(system, {})[scope] = rubric
    # Weights are shared across systems: each rubric must agree with the merged map.
    for project, systems_ in rubrics.items():
        for rubric_by_scope in systems_.values():
            for scope, rubric in rubric_by_scope.items():
                known = shared_weights[(project, scope)]
                if not all(map(eq, map(known.__getitem__, rubric.ids), rubric.weights)):
                    return None
                if any(rubric.requires) and _requires_problem(rubric):
                    return None
    return rubrics


def _runs(groups: Sequence[tuple]) -> list[tuple[int, int]]:
    """(start, end) of each run of equal consecutive keys, found with C-level comparisons."""
    n = len(groups)
    if n == 0:
        return []
    starts = [0, *compress(range(1, n), map(ne, groups, islice(groups, 1, None)))]
    return list(zip(starts, starts[1:] + [n]))


def _requires_problem(rubric: RubricColumns) -> bool:
    """True if a `requires` names a criterion outside the rubric or closes a cycle."""
    ids, requires = rubric.ids, rubric.requires
    graph = {ids[i]: requires[i] for i in compress(range(len(ids)), requires)}
    known = set(ids)
    done: set[str] = set()
    for start in graph:
        if start in done:
            continue
        path = {start}
        stack = [(start, iter(graph[start]))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.discard(node)
                done.add(node)
            elif child not in known or child in path:
                return True
            elif child not in done and child in graph:
                path.add(child)
                stack.append((child, iter(graph[child])))
    return False


def _check_cells(weight_cell: str, target_cell: str, dimension_cell: str, verdict_cell: str,
                 gate_cell: str, final: bool) -> tuple | list[tuple[str, str]]:
    """(weight, target, dimension, verdict, gate), or the (column, message) problems of these cells."""
    problems: list[tuple[str, str]] = []
    gate = False
    if gate_cell.strip():
        try:
            gate = bool(parse_verdict(gate_cell))
        except ValueError:
            problems.append(("gate", f"gate '{gate_cell}' is not true/false"))
    try:
        weight = int(weight_cell.strip())
    except ValueError:
        problems.append(("weight", f"weight '{weight_cell}' is not an integer"))
        weight = None
    if weight is not None:
        if gate and weight != 0:
            problems.append(("weight", f"a fatal gate has weight 0, not {weight}"))
        elif not gate and not 1 <= abs(weight) <= 10:
            problems.append(("weight", f"weight {weight} is outside -10..-1 and 1..10 (0 only for a gate: set gate to true)"))
    target = target_cell.strip().lower()
    if target not in TARGETS:
        problems.append(("target", f"unknown target '{target_cell}'; use one of {', '.join(TARGETS)}"))
    elif final == (target == "checkpoint"):
        expected = "artifact, cross-file or package" if final else "checkpoint"
        problems.append(("target", f"target '{target}' does not fit scope '{{scope}}': use {expected}"))
    dimension = dimension_cell.strip().lower()
    if dimension not in DIMENSIONS:
        problems.append(("dimension", f"unknown dimension '{dimension_cell}'; use one of {', '.join(DIMENSIONS)}"))
    try:
        verdict = parse_verdict(verdict_cell)
    except ValueError:
        problems.append(("verdict", f"verdict '{verdict_cell}' is not one of 1/0, pass/fail, true/false, yes/no (empty = missing)"))
        verdict = None
    return problems or (weight, target, dimension, verdict, gate)


def _check_requires(rubrics: Rubrics, requires_rows, bad) -> None:
    index: dict[tuple[str, str, str], dict[str, tuple[str, ...]]] = {}
    for number, (project, system, scope), criterion, requires in requires_rows:
        known = index.get((project, system, scope))
        if known is None:
            rubric = rubrics[project][system][scope]
            known = index[(project, system, scope)] = dict(zip(rubric.ids, rubric.requires))
        for needed in requires:
            if needed not in known:
                bad(number, "requires", f"criterion {criterion} requires '{needed}', which is not in {project}/{system}/{scope}")
        # Follow requires from this criterion; coming back to it is a cycle.
        stack, seen = list(requires), set()
        while stack:
            current = stack.pop()
            if current == criterion:
                bad(number, "requires", f"criterion {criterion} is part of a 'requires' cycle")
                break
            if current in seen or current not in known:
                continue
            seen.add(current)
            stack.extend(known[current])
