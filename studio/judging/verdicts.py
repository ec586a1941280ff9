"""A verdict: one rater's decision on one criterion of one submission, and the criterion version
it was given on (so a verdict on since-rewritten text can be told from a current one)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from studio.model import Criterion

VerdictValue = Literal["pass", "fail", "na", "missing"]
# Who gave a person's verdict, in which part: the criterion's author judging their own work, an expert
# rater, or the adjudicator settling a difference. A judge model's verdicts carry none.
VerdictRole = Literal["author", "rater", "adjudicator"]
VERDICT_ROLES: tuple[str, ...] = ("author", "rater", "adjudicator")
VERDICT_VALUES: tuple[str, ...] = ("pass", "fail", "na", "missing")
JUDGE_PREFIX = "judge:"
ADJUDICATED = "adjudicated"
VERSION_LENGTH = 16


class Verdict(BaseModel):
    """`na`: the criterion does not apply (an expert's call); `missing`: the judge left it unresolved."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    criterion: str = Field(min_length=1)
    scope: str = Field(min_length=1, description="A subtask id or 'final'.")
    verdict: VerdictValue
    rater: str = Field(min_length=1, description="'judge:MODEL', an expert's name, or 'adjudicated'.")
    time: datetime
    criterion_version: str = Field(min_length=1)
    note: str | None = None
    evidence: list[str] = Field(default_factory=list)
    key: str | None = None
    by: str | None = Field(default=None, min_length=1,
                           description="Who settled an adjudicated verdict (the adjudicator's name); "
                                       "files written before it was recorded have none.")
    role: VerdictRole | None = Field(default=None,
                                     description="The role of the person who gave it: author, rater or "
                                                 "adjudicator; a judge's verdicts and files written before "
                                                 "roles were recorded have none.")

    @field_validator("time")
    @classmethod
    def _utc_seconds(cls, value: datetime) -> datetime:
        """Stored to the second in UTC (a naive time is taken as UTC), so a stored verdict reads back equal."""
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).replace(microsecond=0)

    @field_validator("criterion", "scope", "rater", "by")
    @classmethod
    def _trimmed(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if value != value.strip():
            raise ValueError("must not start or end with a space")
        if any(ord(char) < 32 or ord(char) == 127 for char in value):
            raise ValueError("must be one line without control characters")
        return value


def is_judge(rater: str) -> bool:
    return rater.startswith(JUDGE_PREFIX)


def is_expert(rater: str) -> bool:
    """A person's verdicts: neither a judge model's nor the adjudicated ones."""
    return not is_judge(rater) and rater != ADJUDICATED


def criterion_version(criterion: Criterion) -> str:
    """What a verdict was given on: a hash of the criterion's text, weight and gate (first 16 hex).
    For a reused final criterion pass the original it is scored as."""
    parts = [criterion.text or "", criterion.weight, bool(criterion.gate)]
    digest = hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()
    return digest[:VERSION_LENGTH]
