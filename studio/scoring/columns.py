"""A whole verdict table as columns, rows grouped by rubric: the form the fast scorer reads."""

from __future__ import annotations

from dataclasses import dataclass

from studio.scoring.engine import RubricColumns

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
