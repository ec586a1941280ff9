"""The whole project in memory: every file's model, with lookups along the timeline."""

from __future__ import annotations

from dataclasses import dataclass, field

from studio.model.project import ProjectInfo
from studio.model.rubric import Criterion, Rubric
from studio.model.schedule import Material, MaterialsFile, ReferencesFile
from studio.model.workflow import DependenciesFile, StagesFile, Subtask


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

    def timeline(self) -> list[str]:
        """Subtask ids in execution order (stage order, then order within the stage)."""
        if self.stages is None:
            return []
        return [sid for stage in self.stages.stages for sid in stage.subtasks]

    def position(self, subtask_id: str) -> int | None:
        """1-based position of a subtask on the timeline; None if it is not scheduled."""
        try:
            return self.timeline().index(subtask_id) + 1
        except ValueError:
            return None

    def stage_of(self, subtask_id: str) -> str | None:
        for stage in self.stages.stages if self.stages else []:
            if subtask_id in stage.subtasks:
                return stage.id
        return None

    def material(self, material_id: str) -> Material | None:
        for material in self.materials.materials if self.materials else []:
            if material.id == material_id:
                return material
        return None

    def release_position(self, material: Material) -> int | None:
        """0 for materials available at start, else the position of the subtask it precedes."""
        if material.release.at == "start":
            return 0
        return self.position(material.release.subtask or "")

    def all_criteria(self) -> list[tuple[str, Criterion]]:
        """(scope, criterion) pairs: scope is a subtask id or 'final'."""
        pairs = [(sid, c) for sid, rubric in self.checkpoint_rubrics.items() for c in rubric.criteria]
        if self.final_rubric is not None:
            pairs += [("final", c) for c in self.final_rubric.criteria]
        return pairs

    def checkpoint_criterion(self, criterion_id: str) -> tuple[str, Criterion] | None:
        for sid, rubric in self.checkpoint_rubrics.items():
            for criterion in rubric.criteria:
                if criterion.key == criterion_id:
                    return sid, criterion
        return None

    def outputs(self) -> dict[str, str]:
        """Every produced artifact ref "SUBTASK:PATH" mapped to its producing subtask."""
        return {
            f"{sid}:{out.path}": sid for sid, sub in self.subtasks.items() for out in sub.outputs
        }
