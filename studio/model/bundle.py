"""The whole project in memory: every file's model, with lookups along the timeline.

Lookups by id (a checkpoint criterion, a criterion's place in its rubric, a material, a
subtask's position) go through `ProjectIndex`, a set of dicts built in one pass over the
project the first time one is asked for. It is dropped, and rebuilt lazily by the next lookup,
whenever a part of the project is replaced (`project.final_rubric = ...`); code that edits a
part in place (appends a criterion, renames a material) calls `invalidate_index()` after the
edit. Rebuilding is linear in the size of the project: a few milliseconds at 10,000 criteria.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.model.comments import CommentThread
from studio.model.project import ProjectInfo
from studio.model.rubric import Criterion, Rubric
from studio.model.schedule import Material, MaterialsFile, ReferencesFile
from studio.model.vocabulary import FINAL_SCOPE
from studio.model.workflow import DependenciesFile, StagesFile, Subtask


@dataclass
class ProjectIndex:
    """Dicts over one state of a project. First occurrence wins, as a scan from the top would."""

    timeline: list[str]
    positions: dict[str, int]  # subtask id -> 1-based position on the timeline
    stage_of: dict[str, str]
    materials: dict[str, Material]
    checkpoint_criteria: dict[str, tuple[str, Criterion]]  # criterion id -> (subtask id, criterion)
    # scope -> criterion id -> indexes in that rubric of the criteria with that id
    criterion_rows: dict[str, dict[str, list[int]]]

    @classmethod
    def build(cls, project: Project) -> ProjectIndex:
        timeline = [sid for stage in project.stages.stages for sid in stage.subtasks] if project.stages else []
        positions: dict[str, int] = {}
        for number, sid in enumerate(timeline, start=1):
            positions.setdefault(sid, number)
        stage_of: dict[str, str] = {}
        for stage in project.stages.stages if project.stages else []:
            for sid in stage.subtasks:
                stage_of.setdefault(sid, stage.id)
        materials: dict[str, Material] = {}
        for material in project.materials.materials if project.materials else []:
            materials.setdefault(material.id, material)
        checkpoint: dict[str, tuple[str, Criterion]] = {}
        rows: dict[str, dict[str, list[int]]] = {}
        for sid, rubric in project.checkpoint_rubrics.items():
            rows[sid] = _rows(rubric)
            for criterion in rubric.criteria:
                checkpoint.setdefault(criterion.key, (sid, criterion))
        if project.final_rubric is not None:
            rows[FINAL_SCOPE] = _rows(project.final_rubric)
        return cls(timeline, positions, stage_of, materials, checkpoint, rows)


def _rows(rubric: Rubric) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    for row, criterion in enumerate(rubric.criteria):
        rows.setdefault(criterion.key, []).append(row)
    return rows


@dataclass
class Project:
    """A project as loaded from its folder. Parts that failed to load are None or absent."""

    info: ProjectInfo | None = None
    stages: StagesFile | None = None
    subtasks: dict[str, Subtask] = field(default_factory=dict)
    checkpoint_rubrics: dict[str, Rubric] = field(default_factory=dict)
    final_rubric: Rubric | None = None
    materials: MaterialsFile | None = None
    references: ReferencesFile | None = None
    dependencies: DependenciesFile | None = None
    comments: dict[str, CommentThread] = field(default_factory=dict)  # by thread id (comments/<id>.yaml)
    _index: ProjectIndex | None = field(default=None, init=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        # Replacing a part makes the lookups stale; they are rebuilt on the next one.
        if name != "_index":
            object.__setattr__(self, "_index", None)
        object.__setattr__(self, name, value)

    @property
    def index(self) -> ProjectIndex:
        """The lookups over the project as it is now (built on first use)."""
        if self._index is None:
            self._index = ProjectIndex.build(self)
        return self._index

    def invalidate_index(self) -> None:
        """Call after editing a part of the project in place."""
        self._index = None

    def timeline(self) -> list[str]:
        """Subtask ids in execution order (stage order, then order within the stage)."""
        return list(self.index.timeline)

    def position(self, subtask_id: str) -> int | None:
        """1-based position of a subtask on the timeline; None if it is not scheduled."""
        return self.index.positions.get(subtask_id)

    def stage_of(self, subtask_id: str) -> str | None:
        return self.index.stage_of.get(subtask_id)

    def material(self, material_id: str) -> Material | None:
        return self.index.materials.get(material_id)

    def release_position(self, material: Material) -> int | None:
        """0 for materials available at start, else the position of the subtask it precedes."""
        if material.release.at == "start":
            return 0
        return self.position(material.release.subtask or "")

    def all_criteria(self) -> list[tuple[str, Criterion]]:
        """(scope, criterion) pairs: scope is a subtask id or 'final'."""
        pairs = [(sid, c) for sid, rubric in self.checkpoint_rubrics.items() for c in rubric.criteria]
        if self.final_rubric is not None:
            pairs += [(FINAL_SCOPE, c) for c in self.final_rubric.criteria]
        return pairs

    def rubric(self, scope: str) -> Rubric | None:
        """The checkpoint rubric of a subtask, or the final rubric for scope 'final'."""
        return self.final_rubric if scope == FINAL_SCOPE else self.checkpoint_rubrics.get(scope)

    def checkpoint_criterion(self, criterion_id: str) -> tuple[str, Criterion] | None:
        """(subtask id, criterion) of the first checkpoint criterion with this id."""
        return self.index.checkpoint_criteria.get(criterion_id)

    def resolve_reuse(self, scope: str, criterion: Criterion) -> tuple[str, Criterion] | None:
        """(the rubric its fields come from, the criterion they are read from) for `criterion` as
        it is scored in `scope`: itself, or for a reused final criterion (`reuse_of`) its
        checkpoint original and that original's subtask.

        The one rule for a reuse that resolves to nothing: a dangling reuse (`reuse_of` naming no
        checkpoint criterion) or a misplaced one (`reuse_of` in a checkpoint rubric) is None.
        Validation reports both as located errors (`dangling_reuse` gives the words); every
        other reader skips the entry, its error already reported. Scoring and judging, which would
        publish a score or ask the judge without it, stop with those same words instead."""
        if criterion.reuse_of is None:
            return scope, criterion
        if scope != FINAL_SCOPE:
            return None
        return self.checkpoint_criterion(criterion.reuse_of)

    def scored_as(self, scope: str, criterion: Criterion) -> Criterion | None:
        """The criterion whose text, weight, dimension and requires `criterion` is scored by in
        `scope` (see `resolve_reuse`; None for a reuse of nothing)."""
        found = self.resolve_reuse(scope, criterion)
        return found[1] if found is not None else None

    def criterion_row(self, scope: str, criterion_id: str) -> int | None:
        """0-based place in its rubric of the first criterion of `scope` with this id."""
        rows = self.index.criterion_rows.get(scope, {}).get(criterion_id)
        return rows[0] if rows else None

    def row_of(self, scope: str, criterion: Criterion) -> int:
        """0-based place in its rubric of the first criterion equal to `criterion` (as
        `list.index` would answer); ValueError when the rubric does not hold it."""
        rubric = self.rubric(scope)
        criteria = rubric.criteria if rubric is not None else []
        for row in self.index.criterion_rows.get(scope, {}).get(criterion.key, []):
            if row < len(criteria) and (criteria[row] is criterion or criteria[row] == criterion):
                return row
        raise ValueError(f"criterion {criterion.key} is not in the {scope} rubric")

    def outputs(self) -> dict[str, str]:
        """Every produced artifact ref "SUBTASK:PATH" mapped to its producing subtask."""
        return {
            f"{sid}:{out.path}": sid for sid, sub in self.subtasks.items() for out in sub.outputs
        }


def dangling_reuse(criterion: Criterion) -> str:
    """What is wrong with a final criterion whose `reuse_of` names no checkpoint criterion, and the fix:
    the same words in validation (at the entry's reuse_of), scoring and judging."""
    return (f"the final rubric reuses {criterion.reuse_of}, which is no checkpoint criterion: write the id of a "
            "checkpoint criterion in reuse_of, or remove the entry")
