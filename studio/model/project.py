"""The project itself: who the agent is, for whom, and what must be handed over (project.yaml)."""

from __future__ import annotations

from pydantic import Field

from studio.model.base import ArtifactRef, Identifier, StrictModel, WorkspacePath


class FinalDeliverable(StrictModel):
    """A file the final package must contain, and the subtask output it grows from."""

    id: Identifier
    path: WorkspacePath = Field(description="Path of the file in the final package.")
    title: str = Field(min_length=1)
    produced_by: ArtifactRef = Field(
        description="The subtask output whose final version this is, as SUBTASK:PATH."
    )
    audience: str | None = Field(default=None, description="Who receives this file.")


class DeliveryContract(StrictModel):
    """Scope and acceptance requirements of the final handoff."""

    scope: str = Field(min_length=1)
    acceptance: list[str] = Field(min_length=1, description="Acceptance requirements, one per item.")
    final_deliverables: list[FinalDeliverable] = Field(min_length=1)


class ProjectInfo(StrictModel):
    """Contents of project.yaml."""

    schema_version: int = Field(default=1, ge=1, le=1)
    id: Identifier
    title: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    role: str = Field(min_length=1, description="The professional role the agent plays.")
    client: str = Field(min_length=1)
    objective: str = Field(min_length=1, description="The shared business objective.")
    brief: WorkspacePath = Field(description="Markdown file with the project brief, relative to the project folder.")
    delivery: DeliveryContract
