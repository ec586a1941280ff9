"""A whole verdict table as columns, rows grouped by rubric: the form the fast scorer reads."""

from __future__ import annotations

from dataclasses import dataclass, fields
from itertools import accumulate
from operator import truth

from studio.scoring.engine import RubricColumns, resolve_requires

# rubrics[project][system][scope] -> the rubric's criteria as columns
Rubrics = dict[str, dict[str, dict[str, RubricColumns]]]


@dataclass(frozen=True)
class VerdictColumns:
    """A whole table: `rows` holds every criterion as one RubricColumns, and the rows of each
    (project, system, scope) rubric are contiguous runs of it."""

    keys: list[tuple[str, str, str]]  # (project, system, scope) of each run
    runs: list[tuple[int, int]]  # [start, end) of each run
    rows: RubricColumns
    effective: tuple[bool | None, ...] | None = None  # verdicts after `requires`, once resolved

    def resolve_requires(self) -> "VerdictColumns":
        """The table with `effective` filled in; ScoringError for an unknown id or a cycle."""
        if self.effective is not None:
            return self
        rows = self.rows
        h = list(rows.verdicts)
        with_requires = [0, *accumulate(map(truth, rows.requires))]
        for start, end in self.runs:
            if with_requires[end] > with_requires[start]:
                resolve_requires(rows.ids, rows.verdicts, rows.requires, start, end, h)
        return VerdictColumns(self.keys, self.runs, rows, tuple(h))

    def rubric(self, k: int) -> RubricColumns:
        start, end = self.runs[k]
        return RubricColumns(*(column[start:end] for column in astuple_shallow(self.rows)))

    def rubrics(self) -> Rubrics:
        out: Rubrics = {}
        for k, (project, system, scope) in enumerate(self.keys):
            out.setdefault(project, {}).setdefault(system, {})[scope] = self.rubric(k)
        return out

    @classmethod
    def from_rubrics(cls, rubrics: Rubrics) -> "VerdictColumns":
        keys, runs, parts = [], [], []
        start = 0
        for project, systems in rubrics.items():
            for system, scopes in systems.items():
                for scope, rubric in scopes.items():
                    keys.append((project, system, scope))
                    runs.append((start, start + len(rubric)))
                    start += len(rubric)
                    parts.append(astuple_shallow(rubric))
        columns = [tuple(value for part in parts for value in part[f]) for f in range(len(fields(RubricColumns)))]
        return cls(keys, runs, RubricColumns(*columns))


def astuple_shallow(rubric: RubricColumns) -> tuple[tuple, ...]:
    """The rubric's columns, in field order (dataclasses.astuple would copy deeply)."""
    return tuple(getattr(rubric, f.name) for f in fields(RubricColumns))
