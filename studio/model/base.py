"""Shared building blocks of the project models: identifiers and artifact references."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"

# A stable identifier: letters, digits, dot, dash and underscore, starting alphanumeric.
Identifier = Annotated[str, StringConstraints(pattern=ID_PATTERN, min_length=1, max_length=64)]

# A workspace-relative file path as the agent sees it (no absolute paths, no "..").
WorkspacePath = Annotated[
    str, StringConstraints(pattern=r"^(?!/)(?!.*(^|/)\.\.(/|$))[^\\:*?\"<>|]+$", min_length=1)
]

# "T03:outputs/debt_schedule.xlsx": the output file `path` produced by subtask T03.
ArtifactRef = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*:(?!/)[^\\:*?\"<>|]+$")
]


def split_artifact_ref(ref: str) -> tuple[str, str]:
    """Split "T03:outputs/x.xlsx" into ("T03", "outputs/x.xlsx")."""
    subtask, _, path = ref.partition(":")
    return subtask, path


class StrictModel(BaseModel):
    """Base for every file model: unknown keys are errors, so typos surface at validation."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
