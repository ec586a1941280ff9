"""A handoff edited in place and a material's file replaced: each one undo step, nothing else touched,
the project still valid; the same from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.dependencies import HandoffError, set_handoff
from studio.editing.materials import MaterialError, replace_material_file
from studio.editing.session import ProjectSession
from studio.store.loader import load_project
from studio.validation.validate import validate_project
from tests.editing.edit_support import copy_sample, save_and_compare, snapshot
from tests.helpers import run_cli


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


def test_a_handoff_is_edited_in_place_and_undone_in_one_step(sample: Path) -> None:
    before = snapshot(sample)
    session = ProjectSession(sample)
    handoffs = session.loaded.project.dependencies.handoffs
    assert (handoffs[0].artifact, handoffs[0].to) == ("T01:outputs/net_debt_baseline.xlsx", "T02")
    undo, changes = session.apply(set_handoff(session.documents, 0, "T01:outputs/net_debt_baseline.xlsx", "T06",
                                              "The lease balance of EUR 46.5m."))
    edited = session.loaded.project.dependencies.handoffs
    assert (edited[0].to, edited[0].carries) == ("T06", "The lease balance of EUR 46.5m.")
    assert len(edited) == len(handoffs) and edited[1:] == handoffs[1:]  # in place: nothing else moves
    assert {"T01", "T02", "T06"} <= changes.ids
    save_and_compare(session)
    assert validate_project(sample) == []
    text = (sample / "dependencies.yaml").read_text(encoding="utf-8")
    assert text.startswith("# The dependency map")  # its comment kept
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before


def test_a_handoff_can_lose_what_it_carries(sample: Path) -> None:
    session = ProjectSession(sample)
    session.apply(set_handoff(session.documents, 0, "T01:outputs/net_debt_baseline.xlsx", "T02", None))
    assert session.loaded.project.dependencies.handoffs[0].carries is None


@pytest.mark.parametrize(("source", "to", "message"), [
    ("T01:outputs/net_debt_baseline.xlsx", "T01", "cannot be handed to T01 itself"),
    ("net_debt_baseline.xlsx", "T02", "is not an output reference"),
    ("T01:outputs/net_debt_baseline.xlsx", "T99", "T99"),
    ("T01:outputs/net_debt_baseline.xlsx", "T03", r"already handed to T03 \(handoff 2\)"),
])
def test_a_bad_handoff_edit_is_refused(sample: Path, source: str, to: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        set_handoff(ProjectSession(sample).documents, 0, source, to, None)


def test_an_unchanged_handoff_is_no_edit(sample: Path) -> None:
    session = ProjectSession(sample)
    first = session.loaded.project.dependencies.handoffs[0]
    with pytest.raises(HandoffError, match="nothing to change"):
        set_handoff(session.documents, 0, first.artifact, first.to, first.carries)


def test_a_file_of_the_same_kind_replaces_the_content_under_the_same_name(sample: Path, tmp_path: Path) -> None:
    before = snapshot(sample)
    new = tmp_path / "restated.md"
    new.write_text("# CFO email, restated again\n", encoding="utf-8")
    session = ProjectSession(sample)
    undo, _ = session.apply(replace_material_file(session.documents, "M12", new))
    save_and_compare(session)
    assert (sample / "materials/cfo-email-ebitda-restatement.md").read_bytes() == new.read_bytes()
    material = load_project(sample).project.material("M12")
    assert material.file == "cfo-email-ebitda-restatement.md" and material.release.subtask == "T06"
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before


def test_a_file_of_another_kind_takes_its_name_and_the_old_one_goes(sample: Path, tmp_path: Path) -> None:
    before = snapshot(sample)
    new = tmp_path / "permit-letter.docx"
    new.write_bytes(b"PK\x03\x04 not really a docx, bytes are bytes")
    session = ProjectSession(sample)
    undo, _ = session.apply(replace_material_file(session.documents, "M06", new))
    save_and_compare(session)
    project = load_project(sample).project
    assert project.material("M06").file == "permit-letter.docx"
    assert not (sample / "materials/fleet-valuation-extract.pdf").exists()
    assert (sample / "materials/permit-letter.docx").read_bytes() == new.read_bytes()
    assert validate_project(sample) == []
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before


def test_a_generated_material_or_an_unreadable_file_is_refused(sample: Path, tmp_path: Path) -> None:
    documents = ProjectSession(sample).documents
    with pytest.raises(MaterialError, match="generated at release time by a script"):
        replace_material_file(documents, "M14", tmp_path / "any.md")
    with pytest.raises(MaterialError, match="cannot read"):
        replace_material_file(documents, "M12", tmp_path / "missing.md")


def test_the_command_line_edits_handoffs_and_replaces_files(sample: Path, tmp_path: Path, capsys) -> None:
    code, out, _ = run_cli(capsys, "handoff", "list", str(sample))
    assert code == 0 and out.splitlines()[0].startswith("  0  T01:outputs/net_debt_baseline.xlsx -> T02: ")
    code, out, _ = run_cli(capsys, "handoff", "edit", str(sample), "--index", "0", "--carries", "Leases only.")
    assert code == 0 and "dependencies.yaml" in out
    assert load_project(sample).project.dependencies.handoffs[0].carries == "Leases only."
    code, _, err = run_cli(capsys, "handoff", "edit", str(sample))
    assert code == 2 and "give the handoff's --index" in err
    code, out, _ = run_cli(capsys, "handoff", "add", str(sample), "--from", "T02:outputs/fleet_and_permit_findings.md",
                           "--to", "T09", "--carries", "The Venlo condition")
    assert code == 0
    count = len(load_project(sample).project.dependencies.handoffs)
    code, _, _ = run_cli(capsys, "handoff", "remove", str(sample), "--index", str(count - 1))
    assert code == 0 and len(load_project(sample).project.dependencies.handoffs) == count - 1
    new = tmp_path / "curve.csv"
    new.write_text("date,rate\n2026-06-30,2.1\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "material", "replace", str(sample), str(new), "--id", "M13")
    assert code == 0 and (sample / "materials/euribor-3m-forward-curve.csv").read_bytes() == new.read_bytes()
    code, _, err = run_cli(capsys, "material", "import", str(sample), str(new), "--id", "M30")
    assert code == 2 and "give --title and --kind" in err
