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
