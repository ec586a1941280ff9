"""Validation and review of an open session see its unsaved files (a new subtask's instruction, a
removed subtask's folder, an instruction typed in, an imported material), not only the disk."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from studio.editing.fields import set_instruction
from studio.editing.materials import import_material
from studio.editing.session import ProjectSession
from studio.editing.timeline import add_subtask, remove_subtask
from studio.review.runner import review_loaded
from studio.store.fileview import DiskFiles, OverlayFiles
from studio.store.loader import LoadedProject, load_project
from studio.validation.findings import Finding
from studio.validation.validate import validate_loaded
from tests.editing.edit_support import copy_sample

# A sentence of the sample's evaluator-only expert notes (evaluator/expert-notes.md, reference R02).
LEAKED = ("Only the 692 owned units can be charged. The valuation was done at management's request for insurance "
          "and includes leased units; the lessors hold title.")


def on_disk_only(loaded: LoadedProject) -> LoadedProject:
    """The same model, its files read from disk only (as before the overlay)."""
    return dataclasses.replace(loaded)


def messages(findings: list[Finding]) -> list[str]:
    return [f"{f.file}: {f.message}" for f in findings]


def test_a_new_subtask_is_validated_as_it_will_be_saved(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    session.apply(add_subtask(session.documents, "S4", "T11", "Closing memo"))
    assert not (root / "subtasks" / "T11" / "instruction.md").exists()  # pending, not on disk
    assert isinstance(session.loaded.files, OverlayFiles)

    unsaved = validate_loaded(session.loaded)
    assert not [m for m in messages(unsaved) if "instruction file" in m]
    # Read from disk only, the same model would be reported as missing its instruction.
    assert [m for m in messages(validate_loaded(on_disk_only(session.loaded)))
            if m.startswith("subtasks/T11/subtask.yaml: instruction file")]

    session.save()
    assert isinstance(session.loaded.files, DiskFiles) and not session.loaded.files.overrides
    assert unsaved == validate_loaded(load_project(root))


def test_a_removed_subtask_is_in_no_stage_only_once_saved_not_before(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    session.apply(remove_subtask(session.documents, "T10", force=True))
    assert (root / "subtasks" / "T10" / "subtask.yaml").is_file()  # still on disk until saved

    unsaved = validate_loaded(session.loaded)
    assert not [m for m in messages(unsaved) if "in no stage" in m]
    assert [m for m in messages(validate_loaded(on_disk_only(session.loaded))) if "'T10' is in no stage" in m]

    session.save()
    assert unsaved == validate_loaded(load_project(root))


def test_a_leak_typed_into_an_unsaved_instruction_is_reviewed(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    before = [f for f in review_loaded(session.loaded).findings if f.file == "subtasks/T05/instruction.md"]
    text = (root / "subtasks" / "T05" / "instruction.md").read_text(encoding="utf-8")
    session.apply(set_instruction(session.documents, "T05", text + "\n" + LEAKED + "\n"))

    found = [f for f in review_loaded(session.loaded).findings
             if f.file == "subtasks/T05/instruction.md" and f.code == "leak.reference-quoted"]
    assert [f.object_id for f in found] == ["R02"]
    assert found[0].line == len(text.splitlines()) + 2  # located in the unsaved text
    assert not [f for f in before if f.code == "leak.reference-quoted"]
    assert (root / "subtasks" / "T05" / "instruction.md").read_text(encoding="utf-8") == text  # nothing written

    # Undone, the leak is gone again.
    session.apply(set_instruction(session.documents, "T05", text))
    assert not [f for f in review_loaded(session.loaded).findings if f.code == "leak.reference-quoted"
                and f.file == "subtasks/T05/instruction.md"]


def test_an_imported_material_counts_as_present_before_save(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "p")
    source = tmp_path / "term-sheet-v3.md"
    source.write_text("# Term sheet, third draft\n\nMargin 3.25% over SOFR.\n", encoding="utf-8")
    session = ProjectSession(root)
    session.apply(import_material(session.documents, source, "M90", "Term sheet v3", "source_record",
                                  "scenario_assumption", before_subtask="T09"))
    assert not (root / "materials" / "term-sheet-v3.md").exists()
    assert session.loaded.files.is_file("materials/term-sheet-v3.md")
    assert session.loaded.files.read_text("materials/./term-sheet-v3.md") == source.read_text(encoding="utf-8")

    unsaved = validate_loaded(session.loaded)
    assert not [m for m in messages(unsaved) if "term-sheet-v3.md" in m]
    assert [m for m in messages(validate_loaded(on_disk_only(session.loaded)))
            if "material file 'materials/term-sheet-v3.md' does not exist" in m]
    session.save()
    assert unsaved == validate_loaded(load_project(root))


def test_an_imported_copy_of_a_reference_is_a_leak_before_save(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    session.apply(import_material(session.documents, root / "evaluator" / "expert-notes.md", "M91", "Notes",
                                  "source_record", "scenario_assumption", dest_name="notes-copy.md"))
    copies = [f for f in review_loaded(session.loaded).findings if f.code == "leak.reference-in-materials"]
    assert [(f.file, f.object_id) for f in copies] == [("materials/notes-copy.md", "R02")]


def test_the_disk_view_lists_files_and_subtasks_as_the_loader_reads_them(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "p")
    disk = DiskFiles(root)
    assert disk.subtask_ids() == sorted(load_project(root).project.subtasks)
    overlay = OverlayFiles(root, {"subtasks/T01/subtask.yaml": None, "subtasks/T01/instruction.md": None,
                                  "subtasks/T99/subtask.yaml": b"id: T99\n"})
    assert "T01" not in overlay.subtask_ids() and "T99" in overlay.subtask_ids()
    assert "subtasks/T01/instruction.md" not in overlay.files_under("subtasks/T01")
    assert overlay.files_under("subtasks/T99") == ["subtasks/T99/subtask.yaml"]
    assert overlay.read_bytes("subtasks/T01/subtask.yaml") is None
    assert overlay.read_bytes("brief.md") == (root / "brief.md").read_bytes()
