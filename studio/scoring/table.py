"""The verdict table: results produced anywhere, as CSV or xlsx, read into scorable rubrics.

Columns (header row, any order): project, system, scope, criterion, weight, target, dimension,
verdict; optional gate, requires. Rows are numbered as a spreadsheet shows them (header = 1).
Every bad row is reported with its row number and column; if any is bad, nothing is scored.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import NamedTuple

from studio.collector import collector_paused
from studio.errors import StudioError
from studio.graphs import cyclic_components
from studio.scoring.cells import check_cells
from studio.scoring.engine import FINAL_SCOPE, RubricColumns, ScoredCriterion
from studio.tabular import TableReadError, cell_name, is_xlsx, read_rows

# rubrics[project][system][scope] -> the rubric's criteria as columns
Rubrics = dict[str, dict[str, dict[str, RubricColumns]]]

REQUIRED = ("project", "system", "scope", "criterion", "weight", "target", "dimension", "verdict")
OPTIONAL = ("gate", "requires")
MAX_ERRORS = 50


class TableProblem(NamedTuple):
    row: int
    column: str | None
    message: str
    cell: str | None = None

    def render(self, source: str) -> str:
        if not self.row:  # the whole file
            return f"{source}: {self.message}"
        where = f"row {self.row}" + (f", column '{self.column}'" if self.column else "")
        if self.cell:
            where += f" (cell {self.cell})"
        return f"{source}: {where}: {self.message}"


class VerdictTableError(StudioError):
    """The table has bad rows; nothing was scored."""

    def __init__(self, source: str, problems: list[TableProblem]):
        self.source = source
        self.problems = problems
        super().__init__("\n".join(p.render(source) for p in problems))


class VerdictTable(NamedTuple):
    """A checked table, with where each criterion's row is (for checks against a project)."""

    source: str
    rubrics: Rubrics
    rows: dict[tuple[str, str, str, str], int]  # (project, system, scope, criterion) -> its first row
    columns: dict[str, int]  # column name -> 0-based position
    xlsx: bool

    def problem(self, row: int, column: str, message: str) -> TableProblem:
        """A problem at one cell of this table (named like the reader's own)."""
        known = self.xlsx and column in self.columns
        return TableProblem(row, column, message, cell_name(self.columns[column], row) if known else None)


def read_verdict_table(path: Path | str) -> Rubrics:
    """Read and check a verdict table: rubrics[project][system][scope] -> criteria as columns.
    Raises VerdictTableError listing every bad row."""
    return read_verdict_rows(path).rubrics


def read_verdict_rows(path: Path | str, against_project: bool = False) -> VerdictTable:
    """read_verdict_table, keeping each criterion's row. `against_project`: the table is then
    checked against its project (studio.scoring.against), which decides what a criterion's
    weight and `requires` must be; the checks that only compare rows with one another (a weight
    shared by every system, a `requires` naming a row of the table) are left to it."""
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise VerdictTableError(source, [TableProblem(0, None, "no such file")])
    with collector_paused():
        try:
            rows = read_rows(path)
        except TableReadError as exc:
            raise VerdictTableError(source, [TableProblem(exc.row, None, exc.message, exc.cell)]) from None
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise VerdictTableError(source, [TableProblem(1, None, f"cannot read the table: {exc}")]) from None
        except Exception as exc:  # openpyxl raises several kinds for a file that is not a workbook
            raise VerdictTableError(source, [TableProblem(1, None, f"not a readable xlsx workbook: {exc}")]) from None
        if not rows or not rows[0]:
            raise VerdictTableError(source, [TableProblem(1, None, "the table is empty: it needs a header row")])
        names = [h.strip().lower() for h in rows[0]]
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            raise VerdictTableError(source, [TableProblem(
                1, None, f"header lacks column(s) {', '.join(missing)}; required: {', '.join(REQUIRED)}")])
        twice = [name for name in REQUIRED + OPTIONAL if names.count(name) > 1]
        if twice:
            where = "; ".join(f"'{name}' in " + ", ".join(cell_name(k, 1) if is_xlsx(path) else f"column {k + 1}"
                                                        for k, n in enumerate(names) if n == name) for name in twice)
            raise VerdictTableError(source, [TableProblem(
                1, None, f"the header names a column more than once ({where}); keep one column of each name")])
        col = {name: names.index(name) for name in REQUIRED + OPTIONAL if name in names}
        rubrics, first_rows, problems = _read_checked(rows[1:], col, is_xlsx(path), against_project)
    if problems:
        raise VerdictTableError(source, problems)
    return VerdictTable(source, rubrics, first_rows, col, is_xlsx(path))


def _read_checked(rows: list[list[str]], col: dict[str, int], xlsx: bool, against_project: bool = False,
                  ) -> tuple[Rubrics, dict[tuple[str, str, str, str], int], list[TableProblem]]:
    """The authoritative row-by-row reading: every problem, named by row and column."""
    problems: list[TableProblem] = []

    def bad(row: int, column: str, message: str) -> None:
        if len(problems) < MAX_ERRORS:
            cell = cell_name(col[column], row) if xlsx else None
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
            project, system = raw[i_proj].strip(), raw[i_sys].strip()
            scope, criterion = raw[i_scope].strip(), raw[i_crit].strip()
            if not (project and system and scope and criterion):
                if not (project or system or scope or criterion or raw[i_weight].strip()):
                    continue  # an empty row between blocks
                for name, value in (("project", project), ("system", system), ("scope", scope),
                                    ("criterion", criterion)):
                    if not value:
                        bad(number, name, f"'{name}' is empty")
                continue
            key_cells = (raw[i_weight], raw[i_target], raw[i_dim], raw[i_verdict],
                         raw[i_gate] if i_gate is not None else "", scope == FINAL_SCOPE)
            spec = specs.get(key_cells)
            if spec is None:
                spec = specs[key_cells] = check_cells(*key_cells)
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
                    bad(number, "criterion", f"criterion {criterion} appears again (first at row {first_row}) "
                        "with different values; "
                        "a criterion covering several files has one verdict")
                continue  # the same criterion listed once per covered file counts once
            seen[key] = (number, record)
            shared = (project, scope, criterion)
            known = weights.get(shared)
            if known is None:
                weights[shared] = (number, weight)
            elif known[1] != weight and not against_project:
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
    if not against_project:
        _check_requires(rubrics, requires_rows, bad)
    return rubrics, {key: number for key, (number, _) in seen.items()}, problems


def _check_requires(rubrics: Rubrics, requires_rows, bad) -> None:
    """Every required id exists in its rubric, and no criterion is on a `requires` cycle."""
    by_rubric: dict[tuple[str, str, str], list[tuple[int, str, tuple[str, ...]]]] = {}
    for number, key, criterion, requires in requires_rows:
        by_rubric.setdefault(key, []).append((number, criterion, requires))
    for (project, system, scope), rows in by_rubric.items():
        rubric = rubrics[project][system][scope]
        known = dict(zip(rubric.ids, rubric.requires, strict=False))
        on_cycle = {node for component in cyclic_components(known) for node in component}
        for number, criterion, requires in rows:
            for needed in requires:
                if needed not in known:
                    bad(number, "requires",
                        f"criterion {criterion} requires '{needed}', which is not in {project}/{system}/{scope}")
            if criterion in on_cycle:
                bad(number, "requires", f"criterion {criterion} is part of a 'requires' cycle")
