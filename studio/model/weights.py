"""The weight rule: a criterion's weight is a signed whole number of magnitude 1 to 10, and 0 only
(and always) for a fatal gate. Plain Python, so that scoring reads it without pydantic."""

from __future__ import annotations

# The weight rule, its one home: a signed whole number of magnitude 1 to 10; 0 only (and always)
# for a fatal gate. The Excel import, the rubric grid, the verdict-table template and the model
# (studio.model.rubric) all ask these functions, so they agree on the range and on the words.
MAX_WEIGHT = 10


def weight_out_of_range(weight: int) -> str | None:
    """Why `weight` can be no criterion's weight (its magnitude is over 10), or None."""
    if -MAX_WEIGHT <= weight <= MAX_WEIGHT:
        return None
    return (f"weight {weight} is out of range: use 1 to {MAX_WEIGHT}, -1 to -{MAX_WEIGHT} for a deduction, or 0 for "
            "a fatal gate")


def weight_problem(weight: int, gate: bool) -> str | None:
    """Why `weight` does not fit a criterion that is (`gate`) or is not a fatal gate, or None."""
    if (out := weight_out_of_range(weight)) is not None:
        return out
    if gate and weight != 0:
        return f"a fatal gate has weight 0, this one has {weight}: set the weight to 0, or make it no gate"
    if not gate and weight == 0:
        return (f"weight 0 is only for a fatal gate: make it a gate, or give a weight from 1 to {MAX_WEIGHT} "
                f"(-1 to -{MAX_WEIGHT} for a deduction)")
    return None
