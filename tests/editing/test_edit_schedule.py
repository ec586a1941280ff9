"""Materials, releases, imports, generated releases, handoffs, deliverables, acceptance items and
evaluator references: each edit saves a valid project and undoes to the same bytes; bad edits are
refused by name with nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing import Compound, ProjectDocuments
from studio.editing.delivery import (
    DeliveryError,
    add_acceptance,
    add_deliverable,
    remove_acceptance,
    remove_deliverable,
)
from studio.editing.dependencies import HandoffError, add_handoff, remove_handoff
from studio.editing.fields import UnknownObjectError
from studio.editing.files import PutFile
from studio.editing.ids import IdError
from studio.editing.materials import (
    MaterialError,
    add_generated_release,
    add_material,
    import_material,
    move_material,
    remove_material,
    set_release,
)
from studio.editing.references import add_reference, remove_reference
from studio.editing.session import ProjectSession
from studio.validation.validate import validate_project
from tests.editing.edit_support import copy_sample, round_trip, save_and_compare


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "desktop" / "Bank term sheet.pdf"
    path.parent.mkdir()
    path.write_bytes(b"%PDF-1.4\n% a term sheet\n\x00\x01\x02binary\n")
    return path


NEW_MATERIAL = {"id": "M19", "file": "kickoff-email.md", "title": "Second look at the kickoff email",
                "kind": "source_record", "provenance": "original_record", "release": {"at": "before", "subtask": "T03"}}


@pytest.mark.parametrize("make", [
    lambda d: Compound("new file", [PutFile("materials/second-look.md", b"# Notes\n"),
                                    add_material(d, dict(NEW_MATERIAL, file="second-look.md"))]),
    lambda d: move_material(d, "M05", 0),
    lambda d: set_release(d, "M12", "T05"),
    lambda d: set_release(d, "M10", None),
    lambda d: set_release(d, "M03", "T01"),
    lambda d: add_generated_release(d, "M20", "Lender follow-up questions", "scripts/lender_questions.py",
                                    ["T07:outputs/lender_presentation.md"], "T09"),
    lambda d: add_handoff(d, "T02:outputs/fleet_and_permit_findings.md", "T09", "The Venlo condition."),
    lambda d: add_handoff(d, "T01:outputs/net_debt_baseline.xlsx", "T10", None, 0),
    lambda d: remove_handoff(d, 3),
    lambda d: add_deliverable(d, {"id": "F7", "path": "final/diligence_summary.md", "title": "Diligence summary",
                                  "produced_by": "T03:outputs/diligence_summary.md"}),
    lambda d: add_acceptance(d, "Every date is a business day.", 0),
    lambda d: remove_acceptance(d, 2),
    lambda d: remove_reference(d, "R04"),
    lambda d: add_reference(d, {"id": "R05", "file": "expert-notes.md", "title": "Same notes, for T09",
                                "for": ["T09"]}),
])
def test_schedule_edits_save_a_valid_project_and_undo_exactly(sample: Path, make):
    round_trip(sample, make)


def test_a_material_released_before_a_subtask_goes_after_those_released_no_later(sample: Path):
    documents = ProjectDocuments(sample)
    command = add_material(documents, NEW_MATERIAL)
    assert command.index == 8  # after M08 (before T03), before M09 (before T04)
    at_start = add_material(documents, dict(NEW_MATERIAL, release={"at": "start"}))
    assert at_start.index == 5


def test_importing_a_material_copies_its_bytes_and_releases_it(sample: Path, source: Path):
    session = ProjectSession(sample)
    undo, changes = session.apply(import_material(session.documents, source, "M19", "Bank term sheet", "new_evidence",
                                                  "reconstructed_material", before_subtask="T05"))
    assert changes.files == {"materials/Bank term sheet.pdf", "materials.yaml"}
    material = session.loaded.project.material("M19")
    assert material is not None and material.release.subtask == "T05" and material.file == "Bank term sheet.pdf"
    save_and_compare(session)
    assert (sample / "materials/Bank term sheet.pdf").read_bytes() == source.read_bytes()
    assert validate_project(sample) == []
    text = (sample / "materials.yaml").read_text(encoding="utf-8")
    assert text.startswith("# Files the agent receives")
    assert ("  - id: M19\n    file: Bank term sheet.pdf\n    title: Bank term sheet\n    kind: new_evidence\n"
            "    provenance: reconstructed_material\n    release:\n      at: before\n      subtask: T05\n") in text
    session.apply(undo)
    session.save()
    assert not (sample / "materials/Bank term sheet.pdf").exists()


def test_an_import_under_a_taken_name_picks_a_free_one_or_is_refused(sample: Path, source: Path):
    renamed = source.with_name("kickoff-email.md")
    source.rename(renamed)
    documents = ProjectDocuments(sample)
    command = import_material(documents, renamed, "M19", "Second kickoff email", "client_feedback",
                              "scenario_assumption")
    assert command.commands[0].rel == "materials/kickoff-email-2.md"
    with pytest.raises(MaterialError, match="materials/kickoff-email.md already exists: pick another name"):
        import_material(documents, renamed, "M19", "x", "client_feedback", "scenario_assumption",
                        dest_name="kickoff-email.md")
    assert documents.dirty == set()


@pytest.mark.parametrize("change, error, message", [
    ({"material_id": "M07"}, IdError, "'M07' is already the id of a material in materials.yaml"),
    ({"material_id": "R01"}, IdError, "'R01' is already the id of an evaluator reference"),
    ({"kind": "evidence"}, MaterialError, "'evidence' is not a material kind: use one of source_record"),
    ({"provenance": "made_up"}, MaterialError, "'made_up' is not a material provenance"),
    ({"before_subtask": "T42"}, UnknownObjectError, "'T42' is not a scheduled subtask"),
    ({"dest_name": "../outside.pdf"}, MaterialError, r"'\.\./outside\.pdf' cannot be a file name here"),
    ({"title": ""}, MaterialError, "a material needs a title"),
    ({"source": Path("/nonexistent/file.pdf")}, MaterialError, "cannot read /nonexistent/file.pdf"),
])
def test_a_bad_import_is_refused_by_name(sample: Path, source: Path, change, error, message):
    arguments = {"source": source, "material_id": "M19", "title": "Term sheet", "kind": "new_evidence",
                 "provenance": "reconstructed_material", "before_subtask": None, "dest_name": None} | change
    documents = ProjectDocuments(sample)
    with pytest.raises(error, match=message):
        import_material(documents, **arguments)
    assert documents.dirty == set()


def test_removing_a_material_takes_its_file_and_undo_brings_both_back(sample: Path):
    session = round_trip(sample, lambda d: remove_material(d, "M17", force=True), valid=False)
    assert session.documents.exists("materials/signing-checklist-template.md")
    documents = ProjectDocuments(sample)
    command = remove_material(documents, "M04", force=True)
    assert [type(c).__name__ for c in command.commands] == ["RemoveItem", "PutFile"]
    assert remove_material(documents, "M04", force=True, delete_file=False).commands[1:] == []


def test_removing_a_material_in_use_is_refused(sample: Path):
    documents = ProjectDocuments(sample)
    with pytest.raises(MaterialError, match=r"material M02 is still named in subtasks/T01/subtask.yaml: inputs\.1"):
        remove_material(documents, "M02")


def test_a_material_nobody_names_is_removed_cleanly(sample: Path, source: Path):
    session = ProjectSession(sample)
    session.apply(import_material(session.documents, source, "M19", "Term sheet", "new_evidence",
                                  "reconstructed_material"))
    session.save()
    round_trip(sample, lambda d: remove_material(d, "M19"))


@pytest.mark.parametrize("make, error, message", [
    (lambda d: set_release(d, "M14", None), MaterialError, "M14 is generated from the agent's files"),
    (lambda d: set_release(d, "M03", "T55"), UnknownObjectError, "'T55' is not a scheduled subtask"),
    (lambda d: move_material(d, "M01", 18), MaterialError, "materials.yaml has no place 18 for material M01"),
    (lambda d: add_material(d, dict(NEW_MATERIAL, id="M01")), IdError, "'M01' is already the id of a material"),
    (lambda d: add_generated_release(d, "M20", "Qs", "scripts/x.py", [], "T09"), MaterialError,
     "a generated material reads at least one agent output"),
    (lambda d: add_handoff(d, "outputs/x.md", "T05", None), HandoffError, "'outputs/x.md' is not an output reference"),
    (lambda d: add_handoff(d, "T01:outputs/x.md", "T50", None), UnknownObjectError, "'T50' is not a scheduled"),
    (lambda d: add_handoff(d, "T01:outputs/x.md", "T05", None, 99), HandoffError, "dependencies.yaml has no place 99"),
    (lambda d: remove_handoff(d, 31), UnknownObjectError, r"there is no handoff 31 \(the map has 31\)"),
    (lambda d: add_deliverable(d, {"id": "F2"}), IdError, "'F2' is already the id of a final deliverable"),
    (lambda d: remove_deliverable(d, "F3"), DeliveryError, r"final deliverable F3 is still covered by "
                                                           r"final/rubric.yaml: criteria\.\d+\.covers\.0"),
    (lambda d: remove_deliverable(d, "F9"), UnknownObjectError, "there is no final deliverable with the id 'F9'"),
    (lambda d: add_acceptance(d, "  "), DeliveryError, "an acceptance requirement needs its text"),
    (lambda d: remove_acceptance(d, 6), DeliveryError, r"no acceptance requirement 6 \(it has 6\)"),
    (lambda d: add_reference(d, {"id": "M03", "file": "x.md", "title": "x"}), IdError,
     "'M03' is already the id of a material"),
    (lambda d: remove_reference(d, "R09"), UnknownObjectError, "no evaluator reference with the id 'R09'"),
])
def test_bad_schedule_edits_are_refused_by_name(sample: Path, make, error, message):
    documents = ProjectDocuments(sample)
    with pytest.raises(error, match=message):
        make(documents)
    assert documents.dirty == set()


def test_a_reference_file_is_imported_under_evaluator(sample: Path, source: Path):
    session = ProjectSession(sample)
    undo, changes = session.apply(add_reference(session.documents, {"id": "R05", "file": "term-sheet.pdf",
                                                                     "title": "Signed term sheet", "for": ["final"]},
                                                source=source))
    assert changes.files == {"evaluator/term-sheet.pdf", "evaluator/references.yaml"}
    save_and_compare(session)
    assert (sample / "evaluator/term-sheet.pdf").read_bytes() == source.read_bytes()
    assert validate_project(sample) == []


def test_handoffs_and_references_start_their_file_when_it_is_missing(sample: Path):
    session = ProjectSession(sample)
    session.apply(PutFile("dependencies.yaml", None))
    session.apply(PutFile("evaluator/references.yaml", None))
    session.save()
    round_trip(sample, lambda d: add_handoff(d, "T01:outputs/net_debt_baseline.xlsx", "T02", "Lease balance."))
    round_trip(sample, lambda d: add_reference(d, {"id": "R01", "file": "expert-notes.md", "title": "Notes",
                                                   "for": ["T01"]}))
    session = ProjectSession(sample)
    session.apply(add_handoff(session.documents, "T01:outputs/net_debt_baseline.xlsx", "T02", None))
    session.save()
    assert (sample / "dependencies.yaml").read_text(encoding="utf-8") == (
        "# The dependency map: which subtask outputs later subtasks work on.\nhandoffs:\n"
        "  - from: T01:outputs/net_debt_baseline.xlsx\n    to: T02\n")
