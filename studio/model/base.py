"""Shared building blocks of the project models: identifiers and artifact references."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, StringConstraints

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


def _plain_integer(value: Any) -> Any:
    # YAML reads `true` as a bool (an int to Python) and `5.0` as a float; the project loaders read
    # `+5`, `1_0` and `٥` as text. None of them is a weight the author can be assumed to mean.
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    written = str(value).lower() if isinstance(value, bool) else repr(value)
    raise ValueError(f"{written} is not a plain whole number: write it with the digits 0-9 and at most "
                     "a leading minus, without quotes, e.g. `weight: 5` or `weight: -3`")


# A whole number written as one: `5` or `-3`, never "5", 5.0, +5, 1_0 or true. Bounds go in a
# Field before it (Annotated[int, Field(ge=..), PLAIN_INTEGER]) so the JSON Schema keeps them.
PLAIN_INTEGER = BeforeValidator(_plain_integer)


def split_artifact_ref(ref: str) -> tuple[str, str]:
    """Split "T03:outputs/x.xlsx" into ("T03", "outputs/x.xlsx")."""
    subtask, _, path = ref.partition(":")
    return subtask, path


class StrictModel(BaseModel):
    """Base for every file model: unknown keys are errors, so typos surface at validation."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
