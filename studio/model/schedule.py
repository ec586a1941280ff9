"""Materials, their release schedule, and evaluator-only references (materials.yaml, evaluator/references.yaml)."""

from __future__ import annotations

from enum import Enum
from typing import Self

from pydantic import Field, model_validator

from studio.model.base import ArtifactRef, Identifier, StrictModel, WorkspacePath


class MaterialKind(str, Enum):
    SOURCE_RECORD = "source_record"
    NEW_EVIDENCE = "new_evidence"
    CLIENT_FEEDBACK = "client_feedback"
    SCRIPTED_FEEDBACK = "scripted_feedback"
    TEMPLATE = "template"


class Provenance(str, Enum):
    ORIGINAL_RECORD = "original_record"
    RECONSTRUCTED_MATERIAL = "reconstructed_material"
    SCENARIO_ASSUMPTION = "scenario_assumption"


class GeneratedRelease(StrictModel):
    """A material produced at release time by a script from the agent's own earlier files."""

    script: WorkspacePath = Field(description="Script under scripts/, relative to the project folder.")
    from_artifacts: list[ArtifactRef] = Field(min_length=1, alias="from", description="Agent outputs the script reads.")

    model_config = StrictModel.model_config | {"populate_by_name": True}


class Release(StrictModel):
    """When a material becomes visible: at start, or just before a subtask."""

    at: str = Field(default="start", description="'start' or 'before'.", pattern=r"^(start|before)$")
    subtask: Identifier | None = Field(default=None, description="With at: before, the subtask it is released before.")

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.at == "before" and self.subtask is None:
            raise ValueError("a release 'before' needs 'subtask'")
        if self.at == "start" and self.subtask is not None:
            raise ValueError("a release at 'start' takes no 'subtask' (use at: before)")
        return self


class Material(StrictModel):
    """A file the agent receives, under the project's materials/ folder."""

    id: Identifier
    file: WorkspacePath | None = Field(default=None, description="Path under materials/; absent for a generated material.")
    title: str = Field(min_length=1)
    kind: MaterialKind
    provenance: Provenance
    release: Release = Field(default_factory=Release)
    generated: GeneratedRelease | None = None
    corrects: list[Identifier] = Field(default_factory=list, description="Earlier materials whose content this one changes.")
    note: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.generated is None and self.file is None:
            raise ValueError("a material needs 'file' (or 'generated' for scripted feedback)")
        if self.generated is not None and self.release.at == "start":
            raise ValueError("a generated material is released before a subtask, not at start")
        return self


class MaterialsFile(StrictModel):
    """Contents of materials.yaml: the release schedule."""

    materials: list[Material] = Field(default_factory=list)


class EvaluatorReference(StrictModel):
    """A file only judges see: a reference answer or a private note, under evaluator/."""

    id: Identifier
    file: WorkspacePath
    title: str = Field(min_length=1)
    for_scopes: list[str] = Field(default_factory=list, alias="for", description="Subtask ids and/or 'final'.")
    note: str | None = None

    model_config = StrictModel.model_config | {"populate_by_name": True}


class ReferencesFile(StrictModel):
    """Contents of evaluator/references.yaml."""

    references: list[EvaluatorReference] = Field(default_factory=list)
