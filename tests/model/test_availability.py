"""What the timeline makes available to a subtask, and what a criterion's pickers offer."""

from __future__ import annotations

import shutil
from pathlib import Path

from studio.model.availability import outputs_before, released_by
from studio.model.criterion_choices import cover_choices, propagates_choices, requires_choices
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE
from studio.store.loader import load_project
from studio.store.workspace import sample_project


def test_released_materials_and_earlier_outputs(tmp_path: Path):
    project = load_project(Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))).project
    at_t01 = {m.id for m in released_by(project, "T01")}
    assert {"M01", "M02"} <= at_t01 and "M12" not in at_t01
    assert "M12" in {m.id for m in released_by(project, "T06")}
    assert outputs_before(project, 1) == [] and all(ref.startswith("T01:") for ref in outputs_before(project, 2))
    assert "M12" not in propagates_choices(project, "T05") and "M12" in propagates_choices(project, "T06")
    assert PACKAGE in cover_choices(project, FINAL_SCOPE)
    assert all(ref.startswith("T01:") for ref in cover_choices(project, "T01"))
    assert "T01-C01" not in requires_choices(project, "T01", "T01-C01")


def test_the_values_a_criterion_accepts_follow_its_rubric() -> None:
    from studio.model.criterion_choices import value_choices

    assert value_choices("target", "T03") == ["checkpoint"]
    assert value_choices("target", "final") == ["artifact", "cross-file", "package"]
    assert "correctness" in value_choices("dimension", "T03") and len(value_choices("dimension", "final")) == 5
    assert value_choices("status", "T03") == ["draft", "reviewed", "approved"]


def test_rubrics_come_along_the_timeline_then_the_final_one() -> None:
    from studio.model.criterion_choices import rubric_scopes

    project = load_project(sample_project()).project
    scopes = rubric_scopes(project)
    assert scopes[0] == "T01" and scopes[-1] == "final"
    assert scopes[:-1] == [sid for sid in project.timeline() if sid in project.checkpoint_rubrics]


def test_a_gate_weighs_nothing_and_an_ungated_criterion_weighs_at_least_one() -> None:
    from studio.editing.rubric import criterion_field, gate_fields

    assert gate_fields(True, 7) == {"gate": True, "weight": 0}
    assert gate_fields(False, 0) == {"gate": False, "weight": 1}
    assert gate_fields(False, -4) == {"gate": False, "weight": -4}
    assert criterion_field("status") == "review.status" and criterion_field("weight") == "weight"
