"""The project itself: who the agent is, for whom, and what must be handed over (project.yaml)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from studio.model.base import ArtifactRef, Identifier, StrictModel, WorkspacePath

# How an acceptance item written before items had ids is told to migrate (validation prints it at the item).
PLAIN_ACCEPTANCE_FIX = ("an acceptance item is now an 'id' and a 'text' (e.g. `- id: AC1` with `text: ...` under "
                        "it), not plain text: run `dbstudio migrate PROJECT` to number every item, or write the "
                        "id by hand")


class Circulation(str, Enum):
    """Who may read a final deliverable: the engagement side only, or third parties too."""

    INTERNAL = "internal"
    EXTERNAL = "external"


class FinalDeliverable(StrictModel):
    """A file the final package must contain, and the subtask output it grows from."""

    id: Identifier
    path: WorkspacePath = Field(description="Path of the file in the final package.")
    title: str = Field(min_length=1)
    produced_by: ArtifactRef = Field(
        description="The subtask output whose final version this is, as SUBTASK:PATH."
    )
    audience: str | None = Field(default=None, description="Who receives this file.")
    circulation: Circulation = Field(
        default=Circulation.INTERNAL,
        description="'external' when the file goes to third parties outside the firm and its client (lenders, "
                    "counterparties, regulators); review then expects a criterion keeping internal information "
                    "out of it. Default 'internal'.",
    )


class AcceptanceItem(StrictModel):
    """One acceptance requirement of the delivery contract, with the stable id final criteria test it by."""

    id: Identifier = Field(description="Stable id, e.g. AC1; final criteria name it in `tests`.")
    text: str = Field(min_length=1, description="The requirement.")
    confidentiality: bool = Field(
        default=False,
        description="True for an item that keeps internal information (working notes, the firm's fees, "
                    "negotiating positions) out of external deliverables.",
    )


def _not_plain_text(value: Any) -> Any:
    if isinstance(value, str):
        raise ValueError(PLAIN_ACCEPTANCE_FIX)
    return value


class DeliveryContract(StrictModel):
    """Scope and acceptance requirements of the final handoff."""

    scope: str = Field(min_length=1)
    acceptance: list[Annotated[AcceptanceItem, BeforeValidator(_not_plain_text)]] = Field(
        min_length=1, description="Acceptance requirements, each with a stable id."
    )
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
