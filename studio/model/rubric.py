"""Rubric criteria: checkpoint rubrics (one per subtask) and the final rubric."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Self

from pydantic import Field, model_validator

from studio.model.base import PLAIN_INTEGER, Identifier, StrictModel
from studio.model.checks import CriterionCheck
from studio.model.vocabulary import Dimension, Target
from studio.model.weights import MAX_WEIGHT, weight_out_of_range, weight_problem

__all__ = ["MAX_WEIGHT", "Criterion", "CriterionCheck", "Dimension", "ReviewRecord", "ReviewStatus", "Rubric", "Target",
           "weight_out_of_range", "weight_problem"]


Weight = Annotated[int, Field(ge=-MAX_WEIGHT, le=MAX_WEIGHT), PLAIN_INTEGER]


class ReviewStatus(str, Enum):
    DRAFT = "draft"
    REVIEWED = "reviewed"
    APPROVED = "approved"


class ReviewRecord(StrictModel):
    """An expert's review of one criterion."""

    status: ReviewStatus = ReviewStatus.DRAFT
    reviewer: str | None = None
    note: str | None = None


class Criterion(StrictModel):
    """One rubric line. A final criterion with `reuse_of` re-judges a checkpoint criterion
    on the final version of a file: it keeps that criterion's id, text, weight and dimension."""

    id: Identifier | None = Field(default=None, description="Stable id; defaults to reuse_of for a reused criterion.")
    reuse_of: Identifier | None = Field(default=None, description="Id of a checkpoint criterion judged again on the final file.")
    text: str | None = Field(default=None, min_length=1, description="The requirement, or for a negative weight the failure condition.")
    covers: list[str] = Field(default_factory=list, description="Artifacts covered: SUBTASK:PATH outputs, final deliverable ids, or 'package'.")
    target: Target | None = None
    dimension: Dimension | None = None
    weight: Weight | None = None
    gate: bool = Field(default=False, description="A fatal gate: weight 0, a triggered gate scores the rubric 0.")
    requires: list[Identifier] = Field(default_factory=list, description="Criteria that must hold for this one to be credited.")
    propagates: list[Identifier] = Field(
        default_factory=list,
        description="Materials whose change (a correction, new evidence) this criterion checks has reached the covered artifacts.",
    )
    tests: list[Identifier] = Field(
        default_factory=list,
        description="Final criteria: ids of the delivery contract's acceptance items this criterion tests.",
    )
    check: CriterionCheck | None = Field(
        default=None,
        description="A programmatic check on the submission's files: the verdict itself, or (as: evidence) evidence for the judge.",
    )
    review: ReviewRecord = Field(default_factory=ReviewRecord)

    @model_validator(mode="after")
    def _check_shape(self) -> Self:
        if self.id is None and self.reuse_of is None:
            raise ValueError("a criterion needs an 'id' (or 'reuse_of' for a reused checkpoint criterion)")
        if self.reuse_of is not None:
            if self.id is not None and self.id != self.reuse_of:
                raise ValueError(f"a reused criterion keeps its id: set id to '{self.reuse_of}' or leave it out")
            return self
        missing = [name for name in ("text", "target", "dimension", "weight") if getattr(self, name) is None]
        if missing:
            raise ValueError("missing " + ", ".join(f"'{m}'" for m in missing))
        assert self.weight is not None  # listed as missing above otherwise
        if (problem := weight_problem(self.weight, self.gate)) is not None:
            raise ValueError(problem)
        return self

    @property
    def key(self) -> str:
        """The criterion's effective id."""
        return self.id or self.reuse_of or ""


class Rubric(StrictModel):
    """Contents of a rubric file: a subtask's checkpoint rubric or the final rubric."""

    criteria: list[Criterion] = Field(default_factory=list)
