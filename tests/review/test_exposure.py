"""Exposure: the points of each rubric, and of the final score, that hang on one item, checked
by hand on a small project written here, then on the sample against `impact`."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.model.vocabulary import FINAL_SCOPE
from studio.review import impact_of
from studio.review.exposure import ExposureIndex, ItemExposure, exposure_of
from studio.review.graph import MATERIAL, OUTPUT
from studio.store.loader import load_project
from studio.store.workspace import sample_project


def _criterion(cid: str, covers: list[str], weight: int, target: str = "checkpoint", extra: str = "") -> str:
    gate = "\n    gate: true" if weight == 0 else ""
    lines = "".join(f"\n      - {c}" for c in covers)
    return (f"  - id: {cid}\n    text: Requirement {cid}.\n    covers:{lines}\n    target: {target}\n"
            f"    dimension: correctness\n    weight: {weight}{gate}{extra}\n")


# M1 -> T1 -> a.md (handed to T2), b.md (-> F1); M2, M3 -> T2 -> c.md (-> F2), d.md (nowhere).
SMALL: dict[str, str] = {
    "project.yaml": """\
        schema_version: 1
        id: small
        title: Small project
        domain: Finance
        role: Associate
        client: Client
        objective: Deliver.
        brief: brief.md
        delivery:
          scope: Two files.
          acceptance:
            - id: AC1
              text: Everything agrees.
          final_deliverables:
            - id: F1
              path: final/b.md
              title: B
              produced_by: T1:out/b.md
            - id: F2
              path: final/c.md
              title: C
              produced_by: T2:out/c.md
        """,
    "brief.md": "# Brief\n",
    "stages.yaml": "stages:\n  - id: S1\n    title: One\n    subtasks:\n      - T1\n      - T2\n",
    "materials.yaml": """\
        materials:
          - id: M1
            file: m1.md
            title: One
            kind: source_record
            provenance: reconstructed_material
          - id: M2
            file: m2.md
            title: Two
            kind: source_record
            provenance: reconstructed_material
          - id: M3
            file: m3.md
            title: Three
            kind: new_evidence
            provenance: reconstructed_material
            release:
              at: before
              subtask: T2
            corrects:
              - M1
        """,
    "materials/m1.md": "one\n", "materials/m2.md": "two\n", "materials/m3.md": "three\n",
    "dependencies.yaml": "handoffs:\n  - from: T1:out/a.md\n    to: T2\n    carries: The figures.\n",
    "subtasks/T1/subtask.yaml": "id: T1\ntitle: One\ninputs:\n  - M1\noutputs:\n  - path: out/a.md\n  - path: out/b.md\n",
    "subtasks/T1/instruction.md": "# T1\n",
    # T1: W+ = 5 + 3 = 8
    "subtasks/T1/rubric.yaml": "criteria:\n" + _criterion("C1", ["T1:out/a.md"], 5)
    + _criterion("C2", ["T1:out/b.md"], 3) + _criterion("C3", ["T1:out/a.md"], -2),
    "subtasks/T2/subtask.yaml": "id: T2\ntitle: Two\ninputs:\n  - M2\n  - M3\noutputs:\n  - path: out/c.md\n"
    "  - path: out/d.md\n",
    "subtasks/T2/instruction.md": "# T2\n",
    # T2: W+ = 6 + 2 = 8; D3 is on d.md but credited only if D1 (on c.md) holds.
    "subtasks/T2/rubric.yaml": "criteria:\n" + _criterion("D1", ["T2:out/c.md"], 6)
    + _criterion("D3", ["T2:out/d.md"], 2, extra="\n    requires:\n      - D1")
    + _criterion("G1", ["T2:out/c.md"], 0) + _criterion("N1", ["T2:out/d.md"], -1),
    # final: W+ = 3 (reused C2) + 4 + 5 + 2 = 14
    "final/rubric.yaml": "criteria:\n  - reuse_of: C2\n    covers:\n      - F1\n"
    + _criterion("X1", ["F1", "F2"], 4, "cross-file") + _criterion("A2", ["F2"], 5, "artifact")
    + _criterion("P1", ["package"], 2, "package"),
    "evaluator/references.yaml": "references: []\n",
}


@pytest.fixture
def small(tmp_path: Path) -> Path:
    root = tmp_path / "small"
    for rel, text in SMALL.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _by_item(root: Path, flag_share: float = 0.25) -> dict[str, ItemExposure]:
    loaded = load_project(root)
    assert loaded.project.info is not None and loaded.project.final_rubric is not None
    return {i.item: i for i in exposure_of(loaded.project, flag_share).items}


def test_a_material_hand_checked(small: Path) -> None:
    m2 = _by_item(small)["M2"]
    # M2 -> T2 -> c.md and d.md: all of T2; F2 (from c.md) -> X1 4 + A2 5, and the package P1 2.
    assert (m2.final.weight, m2.final.w_plus, m2.final.deductions, m2.final.gates) == (11, 14, 0, ())
    assert m2.final.share == pytest.approx(11 / 14) and m2.final.worst_share == pytest.approx(11 / 14)
    [t2] = m2.checkpoints
    assert (t2.scope, t2.weight, t2.w_plus, t2.deductions, t2.gates, t2.criteria) == ("T2", 8, 8, 1, ("G1",), 4)
    assert t2.share == 1.0 and t2.worst_share == 1.0  # the gate puts the whole rubric at risk
    assert m2.process_share == pytest.approx((0 + 1.0) / 2)  # T1 untouched, T2 whole


def test_an_output_hand_checked(small: Path) -> None:
    items = _by_item(small)
    b = items["T1:out/b.md"]
    # b.md: C2 3 of T1's 8; F1 -> reused C2 3 + X1 4, and the package P1 2.
    assert [(c.scope, c.weight, c.deductions) for c in b.checkpoints] == [("T1", 3, 0)]
    assert (b.final.weight, b.final.share) == (9, pytest.approx(9 / 14))
    assert b.process_share == pytest.approx(3 / 8 / 2)
    c = items["T2:out/c.md"]
    # D3 covers d.md but requires D1 on c.md: it hangs on c.md too.
    assert [(r.scope, r.weight, r.deductions, r.gates) for r in c.checkpoints] == [("T2", 8, 0, ("G1",))]
    d = items["T2:out/d.md"]
    assert [(r.scope, r.weight, r.deductions) for r in d.checkpoints] == [("T2", 2, 1)]
    assert (d.final.weight, d.final.criteria, d.final.share) == (0, 0, 0.0)  # d.md reaches no deliverable
    m1 = items["M1"]
    assert m1.final.weight == 14 and [(r.scope, r.weight) for r in m1.checkpoints] == [("T1", 8), ("T2", 8)]


def test_sorted_by_final_share_then_worst_then_process_share(small: Path) -> None:
    order = [i.item for i in exposure_of(load_project(small).project).items]
    # 14/14; then four at 11/14: a.md first (process (5/8 + 1)/2), then by place on the timeline.
    assert order == ["M1", "T1:out/a.md", "M2", "M3", "T2:out/c.md", "T1:out/b.md", "T2:out/d.md"]


def test_flag_threshold_is_more_than_the_share(small: Path) -> None:
    flagged = {k for k, v in _by_item(small, 0.7).items() if v.flagged}
    assert flagged == {"M1", "T1:out/a.md", "M2", "M3", "T2:out/c.md"}
    assert {k for k, v in _by_item(small, 9 / 14).items() if v.flagged} == flagged  # b.md at exactly 9/14
    assert {k for k, v in _by_item(small, 0.6).items() if v.flagged} == flagged | {"T1:out/b.md"}
    assert {k for k, v in _by_item(small, 1.0).items() if v.flagged} == set()


def test_json_and_text(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exposure", str(small), "--format", "json", "--flag-share", "0.7"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["project"], data["flag_share"], data["final_w_plus"], data["checkpoint_rubrics"]) == (
        "small", 0.7, 14, 2)
    assert data["flagged"] == ["M1", "T1:out/a.md", "M2", "M3", "T2:out/c.md"]
    m2 = next(i for i in data["items"] if i["item"] == "M2")
    assert m2["kind"] == "material" and m2["flagged"] is True and m2["process_share"] == 0.5
    assert m2["final"] == {"rubric": "final", "weight": 11, "w_plus": 14, "share": round(11 / 14, 6),
                           "deductions": 0, "gates": [], "worst_share": round(11 / 14, 6), "criteria": 3}
    assert m2["checkpoints"] == [{"rubric": "T2", "weight": 8, "w_plus": 8, "share": 1.0, "deductions": 1,
                                  "gates": ["G1"], "worst_share": 1.0, "criteria": 4}]
    assert main(["exposure", str(small), "--flag-share", "0.7"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert "more than 70% of the final score" in lines[1]
    row = next(line for line in lines if " T1:out/b.md " in line)
    assert not row.startswith("!") and "9/14" in row and "64.3%" in row and "T1 3/8" in row
    assert next(line for line in lines if " M2 " in line).startswith("! M2")
    assert "5 of 7 items flagged" in captured.err


@pytest.mark.parametrize("value", ["2", "-0.1", "ten"])
def test_a_flag_share_outside_0_to_1_is_refused(small: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["exposure", str(small), "--flag-share", value])
    assert stopped.value.code == 2 and "--flag-share" in capsys.readouterr().err


def test_not_a_project_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exposure", str(tmp_path)]) == 2
    assert "not a project folder" in capsys.readouterr().err


def test_on_the_sample_exposure_counts_exactly_the_criteria_impact_lists(tmp_path: Path) -> None:
    """Without corrections and `requires`, an item's dependent criteria are impact's criteria."""
    root = tmp_path / "sample"
    shutil.copytree(sample_project(), root)
    loaded = load_project(root)
    project = loaded.project
    index = ExposureIndex(project)
    requiring = {c.key for _, c in project.all_criteria() if c.requires}
    checked = 0
    for material in project.materials.materials:
        if material.corrects:
            continue  # impact also lists the stale artifacts a correction leaves behind
        expected = {(c.scope, c.id) for c in impact_of(loaded, material.id).criteria}
        found = set(index.dependent_criteria((MATERIAL, material.id)))
        assert {k for k in found if k[1] not in requiring} == expected - {k for k in expected if k[1] in requiring}
        checked += 1
    for ref in project.outputs():
        expected = {(c.scope, c.id) for c in impact_of(loaded, ref).criteria}
        assert {k for k in index.dependent_criteria((OUTPUT, ref)) if k[1] not in requiring} == {
            k for k in expected if k[1] not in requiring}
        checked += 1
    assert checked == len(project.materials.materials) - 1 + len(project.outputs())
    # The change log reaches no deliverable: nothing of the final score hangs on it.
    report = {i.item: i for i in exposure_of(project).items}
    assert report["T06:outputs/change_log.md"].final.weight == 0
    assert report["T06:outputs/change_log.md"].checkpoints[0].scope == "T06"
    assert all(i.final.scope == FINAL_SCOPE and i.final.w_plus == report["M01"].final.w_plus for i in report.values())


def test_a_file_that_does_not_load_is_named_and_left_out(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rubric = small / "subtasks" / "T2" / "rubric.yaml"
    rubric.write_text(rubric.read_text().replace("weight: 6", "weight: 60"))
    assert main(["exposure", str(small), "--format", "json"]) == 1
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["left_out"] == ["subtasks/T2/rubric.yaml"] and data["checkpoint_rubrics"] == 1
    assert "subtasks/T2/rubric.yaml does not load and is left out" in captured.err


def test_a_handoff_cycle_makes_its_members_share_one_downstream(small: Path) -> None:
    (small / "dependencies.yaml").write_text(
        "handoffs:\n  - from: T1:out/a.md\n    to: T2\n  - from: T2:out/c.md\n    to: T1\n")
    items = _by_item(small)
    # M2 now reaches T1 through c.md, so all of both rubrics and of the final rubric.
    assert [(r.scope, r.weight) for r in items["M2"].checkpoints] == [("T1", 8), ("T2", 8)]
    assert items["M2"].final.weight == 14
    assert items["T1:out/a.md"].checkpoints == items["T2:out/c.md"].checkpoints
