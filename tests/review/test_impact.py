"""Impact analysis: the transitive downstream of a changed item, and the criteria on it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.review import impact_of
from studio.review.graph import MATERIAL, OUTPUT, DependencyGraph
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


# -- a correction and the stale artifacts it leaves behind ------------------------------------
STALE = {  # outputs of subtasks that read M02 or M09 before M12 (released before T06) arrived
    "T01:outputs/earnings_quality_note.md": "M02", "T01:outputs/net_debt_baseline.xlsx": "M02",
    "T03:outputs/diligence_summary.md": "M02", "T03:outputs/open_issues_register.md": "M02",
    "T04:outputs/financing_structure_proposal.md": "M09",
    "T05:outputs/financing_model.xlsx": "M09", "T05:outputs/assumptions_memo.md": "M09",
}


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    root = tmp_path / "sample"
    shutil.copytree(sample_project(), root)
    return root


def _handoffs(root: Path) -> dict[tuple[str, str], str | None]:
    project = load_project(root).project
    return {(h.artifact, h.to): h.carries for h in project.dependencies.handoffs}


def test_a_correction_lists_the_stale_artifacts_and_their_downstream(sample_copy: Path) -> None:
    loaded = load_project(sample_copy)
    report = impact_of(loaded, "M12")
    assert report.corrects == ["M02", "M09"] and report.released_before == "T06"
    assert {s.artifact: s.built_on for s in report.stale} == STALE
    assert {s.corrected_by for s in report.stale} == {"M12"}
    # Downstream of M12 alone: T06, T07, T08 and what follows; T02 only works on T01's stale baseline.
    alone = DependencyGraph.build(loaded.project).reached_from((MATERIAL, "M12"))
    assert (OUTPUT, "T02:outputs/fleet_and_permit_findings.md") not in alone
    assert "T02:outputs/fleet_and_permit_findings.md" in report.outputs
    assert set(STALE) <= set(report.outputs)
    assert report.subtasks == [f"T{i:02d}" for i in range(1, 11)]
    assert report.via["T01"] == "read M02 before M12 corrected it"
    assert report.via["T04"] == "read M09 before M12 corrected it"
    assert report.via["T02"] == "works on T01:outputs/net_debt_baseline.xlsx"
    assert report.via["T06"] == "reads M12 directly"
    assert report.deliverables == ["F1", "F2", "F3", "F4", "F5", "F6"]
    # Every criterion on a stale artifact is listed (T01's all cover T01's two outputs).
    t01 = {c.key for c in loaded.project.rubric("T01").criteria}
    assert {c.id for c in report.criteria if c.scope == "T01"} == t01


def test_each_criterion_has_its_text_weight_rubric_and_the_carries_of_its_handoff(sample_copy: Path) -> None:
    loaded = load_project(sample_copy)
    project = loaded.project
    report = impact_of(loaded, "M12")
    carries = _handoffs(sample_copy)
    by_key = {(c.scope, c.id): c for c in report.criteria}
    for c in report.criteria:
        written = next(x for x in project.rubric(c.scope).criteria if x.key == c.id)
        scored = project.checkpoint_criterion(written.reuse_of)[1] if written.reuse_of else written
        assert (c.text, c.weight, c.gate) == (scored.text, scored.weight, scored.gate) and c.text
        assert c.rubric == ("final rubric" if c.scope == "final" else f"{c.scope} checkpoint rubric")
        assert c.affected and c.via
        for h in c.handoffs:
            assert carries[(h.artifact, h.to)] == h.carries
    t02 = by_key[("T02", "T02-C01")]  # T02 gets the change with T01's stale baseline
    assert t02.affected == ("T02:outputs/fleet_and_permit_findings.md",)
    assert t02.via == "made by T02, which works on T01:outputs/net_debt_baseline.xlsx"
    assert t02.carries == carries[("T01:outputs/net_debt_baseline.xlsx", "T02")]
    t01 = by_key[("T01", "T01-C03")]
    assert t01.via == "made by T01, which read M02 before M12 corrected it" and t01.carries is None
    f5 = by_key[("final", "T09-C02")]  # reused: F5 is made from T09's output
    assert f5.affected == ("F5",) and f5.carries == carries[(f5.via.rsplit(" ", 1)[-1], "T09")]
    assert f5.weight == project.checkpoint_criterion("T09-C02")[1].weight
    package = next(c for c in report.criteria if c.affected == ("package",))
    assert package.via.startswith("the package, through F1") and package.handoffs == ()


def test_the_release_point_decides_what_is_stale(sample_copy: Path) -> None:
    text = (sample_copy / "materials.yaml").read_text()
    block = "      subtask: T06\n    corrects:"
    assert block in text
    (sample_copy / "materials.yaml").write_text(text.replace(block, "      subtask: T08\n    corrects:"))
    report = impact_of(load_project(sample_copy), "M12")
    # Now T06 (reads M09) also ran before the correction; T07 reads neither corrected material.
    assert {s.artifact for s in report.stale} == set(STALE) | {
        "T06:outputs/financing_model.xlsx", "T06:outputs/assumptions_memo.md", "T06:outputs/change_log.md"}
    (sample_copy / "materials.yaml").write_text(text.replace(block, "      subtask: T01\n    corrects:"))
    report = impact_of(load_project(sample_copy), "M12")
    assert report.stale == [] and report.subtasks[0] == "T06"  # nothing ran before it


def test_a_material_that_corrects_nothing_has_no_stale_artifacts(sample_copy: Path) -> None:
    report = impact_of(load_project(sample_copy), "M13")
    assert report.corrects == [] and report.stale == [] and report.subtasks[0] == "T06"
    assert "corrects" not in report.render()


def test_json_and_text_of_a_correction(sample_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["impact", str(sample_copy), "--changed", "M12", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["item", "kind", "corrects", "released_before", "stale_artifacts", "subtasks", "outputs",
                          "generated_materials", "final_deliverables", "criteria"]
    assert data["stale_artifacts"][0] == {"artifact": "T01:outputs/earnings_quality_note.md", "subtask": "T01",
                                          "built_on": "M02", "corrected_by": "M12"}
    criterion = next(c for c in data["criteria"] if c["id"] == "T02-C01")
    assert set(criterion) == {"scope", "id", "file", "line", "rubric", "text", "weight", "gate", "affected", "via",
                              "carries", "handoffs"}
    written = next(c for c in load_project(sample_copy).project.rubric("T02").criteria if c.key == "T02-C01")
    assert criterion["rubric"] == "T02 checkpoint rubric" and criterion["weight"] == written.weight
    assert criterion["text"] == written.text and criterion["file"] == "subtasks/T02/rubric.yaml"
    assert criterion["handoffs"] == [{"from": "T01:outputs/net_debt_baseline.xlsx", "to": "T02",
                                      "carries": criterion["carries"]}]
    assert main(["impact", str(sample_copy), "--changed", "M12"]) == 0
    text = capsys.readouterr().out
    assert "M12 corrects M02, M09 (released before T06)." in text
    assert "  T05:outputs/financing_model.xlsx  (T05 read M09)" in text
    assert (f"subtasks/T02/rubric.yaml:{criterion['line']}: T02-C01 (T02 checkpoint rubric, "
            f"weight {written.weight:+d}) {written.text}") in text
    assert f"      carries: {criterion['carries']}" in text
    assert "T05-C01 (T05 checkpoint rubric, gate)" in text
