"""The weight rule, one home for every shell: magnitude 1 to 10, 0 only and always for a fatal gate."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from studio.model.rubric import Criterion
from studio.model.weights import weight_out_of_range, weight_problem
from studio.scoring.cells import check_cells
from studio.sheets.cells import CellProblem, read_weight


@pytest.mark.parametrize("weight", [-10, -1, 1, 10])
def test_weights_of_magnitude_1_to_10_fit_a_criterion(weight: int):
    assert weight_problem(weight, gate=False) is None


@pytest.mark.parametrize("weight", [11, 15, -11, 100])
def test_a_weight_past_10_is_out_of_range_for_gates_too(weight: int):
    message = weight_out_of_range(weight)
    assert message is not None and message.startswith(f"weight {weight} is out of range: use 1 to 10")
    assert weight_problem(weight, gate=False) == weight_problem(weight, gate=True) == message


def test_0_is_only_and_always_for_a_gate():
    assert weight_problem(0, gate=True) is None
    assert "only for a fatal gate" in (weight_problem(0, gate=False) or "")
    assert "a fatal gate has weight 0, this one has 3" in (weight_problem(3, gate=True) or "")


def test_the_import_the_verdict_table_and_the_model_say_the_same_words():
    expected = weight_out_of_range(15)
    with pytest.raises(CellProblem) as imported:
        read_weight(15)
    assert str(imported.value) == expected
    checked = check_cells("15", "checkpoint", "correctness", "1", "", final=False)
    assert ("weight", expected) in checked
    with pytest.raises(ValidationError, match="only for a fatal gate"):
        Criterion(id="T01-C01", text="A requirement", target="checkpoint", dimension="correctness", weight=0)
