"""Stages, subtasks and the dependency map (stages.yaml, subtasks/*/subtask.yaml, dependencies.yaml)."""

from __future__ import annotations

from pydantic import Field

from studio.model.base import ArtifactRef, Identifier, StrictModel, WorkspacePath


class Stage(StrictModel):
    """A delivery milestone; its subtasks run in the order listed."""

    id: Identifier
    title: str = Field(min_length=1)
    subtasks: list[Identifier] = Field(min_length=1)


class StagesFile(StrictModel):
    """Contents of stages.yaml: the project timeline, in order."""

    stages: list[Stage] = Field(min_length=1)


class Output(StrictModel):
    """A file a subtask must leave in the workspace."""

    path: WorkspacePath
    title: str | None = None


class Subtask(StrictModel):
    """Contents of subtasks/<ID>/subtask.yaml."""

    id: Identifier
    title: str = Field(min_length=1)
    instruction: WorkspacePath = Field(default="instruction.md", description="Markdown file beside subtask.yaml.")
    inputs: list[Identifier] = Field(default_factory=list, description="Materials the subtask may use (ids).")
    outputs: list[Output] = Field(min_length=1)
    time_limit_minutes: int = Field(default=240, ge=1, le=24 * 60)


class Handoff(StrictModel):
    """Output of one subtask that a later subtask works on."""

    artifact: ArtifactRef = Field(alias="from")
    to: Identifier
    carries: str | None = Field(default=None, description="What must survive the handoff.")

    model_config = StrictModel.model_config | {"populate_by_name": True}


class DependenciesFile(StrictModel):
    """Contents of dependencies.yaml: the dependency map."""

    handoffs: list[Handoff] = Field(default_factory=list)
