"""The project's review work: who is assigned which decisions (review/assignments.yaml), and the
double-coding plan, the decisions two or more experts both judge (review/double-coding.yaml)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from studio.model.base import Identifier, StrictModel

# An expert's name as the verdict store takes it (studio.judging.queue.check_expert says the rest)
RaterName = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[^\s:].*[^\s]$|^[^\s:]$")]


class DecisionRef(StrictModel):
    """One decision: a submission (run id), a scope (subtask id or final) and a criterion."""

    run: Identifier
    scope: Identifier
    criterion: Identifier


class Assignment(StrictModel):
    """Review work given to one expert: a whole subtask's decisions, one criterion's (in every scope it
    is judged in), or a single decision. Exactly one of subtask, criterion and decision."""

    rater: RaterName
    subtask: Identifier | None = None
    criterion: Identifier | None = None
    decision: DecisionRef | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Assignment:
        given = [name for name in ("subtask", "criterion", "decision") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of subtask, criterion or decision (run, scope, criterion)"
                + (f", not {' and '.join(given)}" if given else "")
            )
        return self


class AssignmentsFile(StrictModel):
    """review/assignments.yaml: the review work of each expert, by rater name."""

    assignments: list[Assignment] = Field(default_factory=list)


class DoubleCodingPlan(StrictModel):
    """review/double-coding.yaml: decisions every named expert judges, drawn (stratified by scope, with a
    recorded seed) so that the Wilson interval of their percent agreement reaches `width`."""

    raters: list[RaterName] = Field(min_length=2)
    width: float = Field(gt=0, lt=1, description="Target width of the 95% Wilson interval of percent agreement.")
    expected: float = Field(gt=0, lt=1, description="Agreement expected before any decision is double-coded.")
    seed: int = Field(ge=0, description="The seed the decisions were drawn with: the same seed draws the same plan.")
    needed: int = Field(ge=0, description="Decisions needed for the target width when the plan was last drawn.")
    decisions: list[DecisionRef] = Field(default_factory=list)
