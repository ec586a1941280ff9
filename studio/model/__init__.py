"""Pydantic models of a DeliverBench project. Imports nothing else of ours, and no Qt.

Names are loaded on first use, so `studio.model.vocabulary` can be read without pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "studio.model.base": ["ArtifactRef", "ID_PATTERN"],
    "studio.model.vocabulary": ["FINAL_SCOPE", "PACKAGE", "Dimension", "Target"],
    "studio.model.project": ["AcceptanceItem", "Circulation", "DeliveryContract", "FinalDeliverable", "ProjectInfo"],
    "studio.model.rubric": ["Criterion", "ReviewRecord", "ReviewStatus", "Rubric"],
    "studio.model.schedule": [
        "EvaluatorReference", "GeneratedRelease", "Material", "MaterialKind", "MaterialsFile",
        "Provenance", "ReferencesFile", "Release",
    ],
    "studio.model.workflow": ["DependenciesFile", "Handoff", "Output", "Stage", "StagesFile", "Subtask"],
    "studio.model.bundle": ["Project"],
    "studio.model.comments": ["CommentMessage", "CommentThread"],
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = [
    "FINAL_SCOPE", "ID_PATTERN", "PACKAGE", "AcceptanceItem", "ArtifactRef", "Circulation", "CommentMessage", "CommentThread", "Criterion", "DeliveryContract", "DependenciesFile",
    "Dimension", "EvaluatorReference", "FinalDeliverable", "GeneratedRelease", "Handoff", "Material",
    "MaterialKind", "MaterialsFile", "Output", "Project", "ProjectInfo", "Provenance", "ReferencesFile",
    "Release", "ReviewRecord", "ReviewStatus", "Rubric", "Stage", "StagesFile", "Subtask", "Target",
]

if TYPE_CHECKING:
    from studio.model.base import ID_PATTERN, ArtifactRef
    from studio.model.bundle import Project
    from studio.model.comments import CommentMessage, CommentThread
    from studio.model.project import AcceptanceItem, Circulation, DeliveryContract, FinalDeliverable, ProjectInfo
    from studio.model.rubric import Criterion, ReviewRecord, ReviewStatus, Rubric
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
    from studio.model.vocabulary import FINAL_SCOPE, PACKAGE, Dimension, Target
    from studio.model.workflow import DependenciesFile, Handoff, Output, Stage, StagesFile, Subtask


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'studio.model' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
