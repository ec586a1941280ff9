"""Impact analysis: the transitive downstream of a changed item, and the criteria on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.review import impact_of
from studio.review.impact import UnknownItemError
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from tests.helpers import make_rich_project


@pytest.fixture
def rich(tmp_path: Path):
    return load_project(make_rich_project(tmp_path / "proj"))


def test_material_change_reaches_consumers_outputs_deliverables_and_criteria(rich):
    report = impact_of(rich, "M01")
    # Every subtask reads M01 directly; T02's model also feeds the generated material M03.
    assert report.subtasks == ["T01", "T02", "T03"]
    assert set(report.via.values()) == {"reads M01 directly"}
    via_output = impact_of(rich, "T01")
    assert via_output.via == {"T02": "works on T01:outputs/report.md", "T03": "works on T02:outputs/model.xlsx"}
    assert report.outputs == ["T01:outputs/report.md", "T02:outputs/model.xlsx", "T03:outputs/memo.md"]
    assert report.materials == ["M03"]
    assert report.deliverables == ["F1", "F2"]
    ids = [c.id for c in report.criteria]
    assert ids[:6] == ["T01-C01", "T02-C01", "T02-C02", "T02-G01", "T02-N01", "T03-C01"]
    assert set(ids[6:]) == {"T01-C01", "T02-C01", "X-01", "A-01", "PKG-01"}  # final rubric
    assert all(c.line >= 1 for c in report.criteria)


def test_output_change_includes_its_own_criteria_but_not_upstream(rich):
    report = impact_of(rich, "T02:outputs/model.xlsx")
    assert report.subtasks == ["T03"]
    assert "T01" not in report.subtasks and "F1" not in report.deliverables
    assert report.deliverables == ["F2"]
    assert {c.id for c in report.criteria if c.scope == "T02"} == {"T02-C01", "T02-C02", "T02-G01", "T02-N01"}


def test_last_subtask_has_nothing_downstream_but_its_outputs(rich):
    report = impact_of(rich, "T03")
    assert report.subtasks == [] and report.outputs == ["T03:outputs/memo.md"]
    assert [c.id for c in report.criteria] == ["T03-C01"]


def test_unknown_item(rich):
    with pytest.raises(UnknownItemError, match="not a material id"):
        impact_of(rich, "M99")


def test_sample_corrected_figure_chain(capsys):
    """M02 (management accounts) carries the FY2025 EBITDA that M12 later corrects."""
    assert main(["impact", str(sample_project()), "--changed", "M02", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    subtasks = [s["id"] for s in data["subtasks"]]
    assert subtasks[0] == "T01" and "T06" in subtasks and subtasks[-1] == "T10"
    assert {"F1", "F2", "F3", "F4"} <= set(data["final_deliverables"])
    assert "T06:outputs/financing_model.xlsx" in data["outputs"]
    ids = {c["id"] for c in data["criteria"]}
    assert {"T06-C02", "X-01", "A-01"} <= ids
    assert main(["impact", str(sample_project()), "--changed", "M02"]) == 0
    text = capsys.readouterr().out
    assert "T01      reads M02 directly" in text and "Final deliverables built from them:" in text
    assert main(["impact", str(sample_project()), "--changed", "nope"]) == 2
