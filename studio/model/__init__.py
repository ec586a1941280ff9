"""Pydantic models of a DeliverBench project. Imports nothing else of ours, and no Qt."""

from studio.model.base import ArtifactRef, ID_PATTERN
from studio.model.project import DeliveryContract, FinalDeliverable, ProjectInfo
from studio.model.rubric import Criterion, Dimension, ReviewRecord, ReviewStatus, Rubric, Target
from studio.model.schedule import (
    EvaluatorReference,
    GeneratedRelease,
    Material,
    MaterialKind,
    MaterialsFile,
    Provenance,
    ReferencesFile,
    Release,
)
from studio.model.workflow import (
    DependenciesFile,
    Handoff,
    Output,
    Stage,
    StagesFile,
    Subtask,
)
from studio.model.bundle import Project

__all__ = [
    "ArtifactRef", "ID_PATTERN", "DeliveryContract", "FinalDeliverable", "ProjectInfo",
    "Criterion", "Dimension", "ReviewRecord", "ReviewStatus", "Rubric", "Target",
    "EvaluatorReference", "GeneratedRelease", "Material", "MaterialKind", "MaterialsFile",
    "Provenance", "ReferencesFile", "Release", "DependenciesFile", "Handoff", "Output",
    "Stage", "StagesFile", "Subtask", "Project",
]
