"""A verdict table checked against the projects it scores (`dbstudio score TABLE --project P`).

The project decides what each rubric holds. Every row must name a criterion of the project's
rubric for its scope, with the project's weight, target, dimension, gate and `requires`; any
other row is an error naming its row and column. A criterion the project has and the table
lacks for a system is a *missing* verdict for that system: its rubric is never smaller than
the project's, so dropping a row cannot raise or lower a score, only widen its range.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from studio.scoring.engine import RubricColumns, ScoredCriterion
from studio.scoring.project_rubrics import ExpectedCriterion, ProjectRubrics
from studio.scoring.table import MAX_ERRORS, Rubrics, TableProblem, VerdictTable, VerdictTableError

TEMPLATE_HINT = "dbstudio verdicts template"
# Scopes named in a message before "..." stands for the rest.
LISTED_SCOPES = 12


class CheckedTable(NamedTuple):
    rubrics: Rubrics  # every project rubric for every system, absent criteria as missing verdicts
    # project -> system -> [(scope, criterion)] the table has no row for
    absent: dict[str, dict[str, list[tuple[str, str]]]]


def check_against_projects(table: VerdictTable, projects: Mapping[str, ProjectRubrics]) -> CheckedTable:
    """The table's rubrics completed from `projects` (project id -> its rubrics); raises
    VerdictTableError naming every row that does not fit its project."""
    problems = _problems(table, projects)
    if problems:
        raise VerdictTableError(table.source, problems[:MAX_ERRORS])
    systems = sorted({system for by_system in table.rubrics.values() for system in by_system})
    rubrics: Rubrics = {}
    absent: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for project, expected in projects.items():
        for system in systems:
            given = table.rubrics.get(project, {}).get(system, {})
            lacking: list[tuple[str, str]] = []
            for scope, entries in expected.items():
                rubric = given.get(scope, RubricColumns.of([]))
                have = set(rubric.ids)
                added = [ScoredCriterion(e.id, e.weight, e.target, e.dimension, None, e.gate, e.requires)
                         for e in entries.values() if e.id not in have]
                lacking += [(scope, criterion.id) for criterion in added]
                if len(rubric) or added:
                    rubrics.setdefault(project, {}).setdefault(system, {})[scope] = RubricColumns.of(
                        rubric.criteria() + added)
            absent.setdefault(project, {})[system] = lacking
    return CheckedTable(rubrics, absent)


def _problems(table: VerdictTable, projects: Mapping[str, ProjectRubrics]) -> list[TableProblem]:
    problems: list[TableProblem] = []
    other_projects: dict[str, list[int]] = {}
    other_scopes: dict[tuple[str, str], list[int]] = {}
    positions: dict[tuple[str, str, str], dict[str, int]] = {}  # each rubric's criteria by id
    for (project, system, scope, criterion), row in sorted(table.rows.items(), key=lambda item: item[1]):
        expected = projects.get(project)
        if expected is None:
            other_projects.setdefault(project, []).append(row)
            continue
        entries = expected.get(scope)
        if entries is None:
            other_scopes.setdefault((project, scope), []).append(row)
            continue
        entry = entries.get(criterion)
        if entry is None:
            problems.append(table.problem(row, "criterion", _unknown_criterion(project, scope, criterion, expected)))
            continue
        rubric = table.rubrics[project][system][scope]
        where = positions.get((project, system, scope))
        if where is None:
            where = positions[(project, system, scope)] = {cid: i for i, cid in reversed(list(enumerate(rubric.ids)))}
        at = where[criterion]
        problems += _differences(table, row, entry, project, rubric.weights[at], rubric.targets[at],
                                 rubric.dimensions[at], rubric.gates[at], rubric.requires[at])
        if len(problems) >= MAX_ERRORS:
            break
    given = ", ".join(sorted(projects))
    for project, rows in other_projects.items():
        problems.append(table.problem(rows[0], "project", (
            f"project '{project}' ({_count(rows)}) is not a project given with --project ({given}): "
            "add --project with its folder, or fix the project id")))
    for (project, scope), rows in other_scopes.items():
        problems.append(table.problem(rows[0], "scope", (
            f"project {project} has no rubric '{scope}' ({_count(rows)}); its rubrics are "
            f"{_scopes(projects[project])}: fix the scope")))
    present = set(table.rubrics)
    for project in projects:
        if project not in present:
            problems.append(TableProblem(0, None, (
                f"no row is for project '{project}' (given with --project); the table's projects are "
                f"{', '.join(sorted(present)) or 'none'}: the project column holds the id of project.yaml")))
    return problems


def _count(rows: list[int]) -> str:
    return "1 row" if len(rows) == 1 else f"{len(rows)} rows, from row {rows[0]}"


def _scopes(expected: ProjectRubrics) -> str:
    scopes = list(expected)
    shown = ", ".join(scopes[:LISTED_SCOPES])
    return shown + (", ..." if len(scopes) > LISTED_SCOPES else "")


def _unknown_criterion(project: str, scope: str, criterion: str, expected: ProjectRubrics) -> str:
    elsewhere = [other for other, entries in expected.items() if criterion in entries and other != scope]
    where = f"the {scope} rubric of {project}" if scope != "final" else f"the final rubric of {project}"
    if elsewhere:
        return f"criterion {criterion} is not in {where}; it is in the {elsewhere[0]} rubric: fix the scope"
    return (f"criterion {criterion} is not in {where}: fix the id, or remove the row "
            f"(`{TEMPLATE_HINT}` lists every criterion)")


def _differences(table: VerdictTable, row: int, entry: ExpectedCriterion, project: str, weight: int, target: str,
                 dimension: str, gate: bool, requires: tuple[str, ...]) -> list[TableProblem]:
    """One problem per cell that differs from the project's criterion."""
    where = f"{entry.id} in the {entry.scope} rubric of {project}"
    if entry.reused_from:
        where += f" (reused from {entry.reused_from})"
    found: list[TableProblem] = []

    def differs(column: str, value: str, wanted: str, fix: str) -> None:
        message = f"{column} {value} differs from the project's {wanted} for {where}: {fix}"
        if column not in table.columns:
            message = (f"the table has no '{column}' column, but the project's {column} for {where} is {wanted}: "
                       f"add the column ({fix})")
        found.append(table.problem(row, column, message))

    if weight != entry.weight:
        differs("weight", str(weight), str(entry.weight), f"write {entry.weight}")
    if target != entry.target:
        reason = ", as the final rubric judges a reused criterion" if entry.reused_from else ""
        differs("target", f"'{target}'", f"'{entry.target}'", f"write {entry.target}{reason}")
    if dimension != entry.dimension:
        differs("dimension", f"'{dimension}'", f"'{entry.dimension}'", f"write {entry.dimension}")
    if gate != entry.gate:
        differs("gate", _yes(gate), _yes(entry.gate),
                "write true: it is a fatal gate" if entry.gate else "leave it empty: it is not a fatal gate")
    if sorted(requires) != sorted(entry.requires):
        wanted = ";".join(entry.requires)
        differs("requires", f"'{';'.join(requires)}'", f"'{wanted}'",
                f"write {wanted}" if wanted else "leave it empty")
    return found


def _yes(value: bool) -> str:
    return "true" if value else "false"
