"""A whole verdict table as columns, rows grouped by rubric: the form the fast scorer reads."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from operator import truth

from studio.scoring.engine import RubricColumns, resolve_requires

# rubrics[project][system][scope] -> the rubric's criteria as columns
Rubrics = dict[str, dict[str, dict[str, RubricColumns]]]

FIELDS = ("ids", "weights", "targets", "dimensions", "verdicts", "gates", "requires")


@dataclass(frozen=True)
class VerdictColumns:
    """Row-aligned columns; rows of one (project, system, scope) rubric are contiguous."""

    keys: list[tuple[str, str, str]]  # (project, system, scope) of each run
    runs: list[tuple[int, int]]  # [start, end) of each run
    ids: tuple[str, ...]
    weights: tuple[int, ...]
    targets: tuple[str, ...]
    dimensions: tuple[str, ...]
    verdicts: tuple[bool | None, ...]
    gates: tuple[bool, ...]
    requires: tuple[tuple[str, ...], ...]
    effective: tuple[bool | None, ...] | None = None  # verdicts after `requires`, once resolved

    def resolve_requires(self) -> "VerdictColumns":
        """The table with `effective` filled in; ScoringError for an unknown id or a cycle."""
        if self.effective is not None:
            return self
        h = list(self.verdicts)
        with_requires = [0, *accumulate(map(truth, self.requires))]
        for start, end in self.runs:
            if with_requires[end] > with_requires[start]:
                resolve_requires(self.ids, self.verdicts, self.requires, start, end, h)
        return VerdictColumns(self.keys, self.runs, *(getattr(self, name) for name in FIELDS), effective=tuple(h))

    def rubric(self, k: int) -> RubricColumns:
        start, end = self.runs[k]
        return RubricColumns(*(getattr(self, name)[start:end] for name in FIELDS))

    def rubrics(self) -> Rubrics:
        out: Rubrics = {}
        for k, (project, system, scope) in enumerate(self.keys):
            out.setdefault(project, {}).setdefault(system, {})[scope] = self.rubric(k)
        return out

    @classmethod
    def from_rubrics(cls, rubrics: Rubrics) -> "VerdictColumns":
        keys, runs = [], []
        fields: dict[str, list] = {name: [] for name in FIELDS}
        start = 0
        for project, systems in rubrics.items():
            for system, scopes in systems.items():
                for scope, rubric in scopes.items():
                    keys.append((project, system, scope))
                    runs.append((start, start + len(rubric)))
                    start += len(rubric)
                    for name in FIELDS:
                        fields[name].extend(getattr(rubric, name))
        return cls(keys, runs, *(tuple(fields[name]) for name in FIELDS))
