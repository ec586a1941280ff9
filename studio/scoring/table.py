"""The verdict table: results produced anywhere, as CSV or xlsx, read into scorable rubrics.

Columns (header row, any order): project, system, scope, criterion, weight, target, dimension,
verdict; optional gate, requires. Rows are numbered as a spreadsheet shows them (header = 1).
Every bad row is reported with its row number and column; if any is bad, nothing is scored.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from studio.scoring.engine import DIMENSIONS, FINAL_SCOPE, FINAL_TARGETS, ScoredCriterion

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
    with path.open(newline="", encoding="utf-8-sig") as handle:
        yield from csv.reader(handle)


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


# rubrics[project][system][scope] -> list of criteria
Rubrics = dict[str, dict[str, dict[str, list[ScoredCriterion]]]]


def read_verdict_table(path: Path | str) -> Rubrics:
    """Read and check a verdict table. Raises VerdictTableError listing every bad row."""
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise VerdictTableError(source, [TableProblem(0, None, "no such file")])
    is_xlsx = path.suffix.lower() in (".xlsx", ".xlsm")
    try:
        rows = iter_table_rows(path)
        header = next(rows, None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise VerdictTableError(source, [TableProblem(1, None, f"cannot read the table: {exc}")]) from None
    except Exception as exc:  # openpyxl raises several kinds for a file that is not a workbook
        raise VerdictTableError(source, [TableProblem(1, None, f"not a readable xlsx workbook: {exc}")]) from None
    if header is None:
        raise VerdictTableError(source, [TableProblem(1, None, "the table is empty: it needs a header row")])
    names = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise VerdictTableError(source, [TableProblem(
            1, None, f"header lacks column(s) {', '.join(missing)}; required: {', '.join(REQUIRED)}")])
    col = {name: names.index(name) for name in REQUIRED + OPTIONAL if name in names}
    problems: list[TableProblem] = []

    def bad(row: int, column: str, message: str) -> None:
        if len(problems) < MAX_ERRORS:
            cell = f"{_column_letter(col[column])}{row}" if is_xlsx else None
            problems.append(TableProblem(row, column, message, cell))

    i_proj, i_sys, i_scope, i_crit = col["project"], col["system"], col["scope"], col["criterion"]
    i_weight, i_target, i_dim, i_verdict = col["weight"], col["target"], col["dimension"], col["verdict"]
    i_gate, i_req = col.get("gate"), col.get("requires")
    width = max(col.values()) + 1
    rubrics: Rubrics = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    seen: dict[tuple[str, str, str, str], tuple[int, tuple]] = {}
    weights: dict[tuple[str, str, str], tuple[int, int]] = {}
    requires_rows: list[tuple[int, tuple[str, str, str], str, tuple[str, ...]]] = []

    try:
        for number, raw in enumerate(rows, start=2):
            if len(raw) < width:
                if not any(v.strip() for v in raw):
                    continue  # blank line
                raw = raw + [""] * (width - len(raw))
            project, system, scope, criterion = raw[i_proj].strip(), raw[i_sys].strip(), raw[i_scope].strip(), raw[i_crit].strip()
            if not (project or system or scope or criterion or raw[i_weight].strip()):
                continue
            ok = True
            for name, value in (("project", project), ("system", system), ("scope", scope), ("criterion", criterion)):
                if not value:
                    bad(number, name, f"'{name}' is empty")
                    ok = False
            try:
                weight = int(raw[i_weight].strip())
            except ValueError:
                bad(number, "weight", f"weight '{raw[i_weight]}' is not an integer")
                ok = False
                weight = 0
            gate = False
            if i_gate is not None:
                try:
                    gate = bool(parse_verdict(raw[i_gate])) if raw[i_gate].strip() else False
                except ValueError:
                    bad(number, "gate", f"gate '{raw[i_gate]}' is not true/false")
                    ok = False
            if gate and weight != 0:
                bad(number, "weight", f"a fatal gate has weight 0, not {weight}")
                ok = False
            elif not gate and not (1 <= abs(weight) <= 10) and ok:
                bad(number, "weight", f"weight {weight} is outside -10..-1 and 1..10 (0 only for a gate: set gate to true)")
                ok = False
            target = raw[i_target].strip().lower()
            if target not in TARGETS:
                bad(number, "target", f"unknown target '{raw[i_target]}'; use one of {', '.join(TARGETS)}")
                ok = False
            elif (scope == FINAL_SCOPE) != (target != "checkpoint") and scope:
                expected = "artifact, cross-file or package" if scope == FINAL_SCOPE else "checkpoint"
                bad(number, "target", f"target '{target}' does not fit scope '{scope}': use {expected}")
                ok = False
            dimension = raw[i_dim].strip().lower()
            if dimension not in DIMENSIONS:
                bad(number, "dimension", f"unknown dimension '{raw[i_dim]}'; use one of {', '.join(DIMENSIONS)}")
                ok = False
            try:
                verdict = parse_verdict(raw[i_verdict])
            except ValueError:
                bad(number, "verdict", f"verdict '{raw[i_verdict]}' is not one of 1/0, pass/fail, true/false, yes/no (empty = missing)")
                ok = False
                verdict = None
            requires: tuple[str, ...] = ()
            if i_req is not None and raw[i_req].strip():
                requires = tuple(r.strip() for r in raw[i_req].split(";") if r.strip())
            if not ok:
                continue
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
            if shared in weights and weights[shared][1] != weight:
                bad(number, "weight", f"weight {weight} differs from {weights[shared][1]} at row {weights[shared][0]}: "
                    "criterion weights are shared across systems")
                continue
            weights.setdefault(shared, (number, weight))
            rubrics[project][system][scope].append(
                ScoredCriterion(criterion, weight, target, dimension, verdict, gate, requires))
            if requires:
                requires_rows.append((number, (project, system, scope), criterion, requires))
    except (csv.Error, UnicodeDecodeError) as exc:
        problems.append(TableProblem(0, None, f"cannot read the table: {exc}"))

    _check_requires(rubrics, requires_rows, bad)
    if problems:
        raise VerdictTableError(source, problems)
    return {p: {s: dict(scopes) for s, scopes in systems.items()} for p, systems in rubrics.items()}


def _check_requires(rubrics: Rubrics, requires_rows, bad) -> None:
    for number, (project, system, scope), criterion, requires in requires_rows:
        known = {c.id: c for c in rubrics[project][system][scope]}
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
            stack.extend(known[current].requires)
