"""Whole-file edits: Markdown texts, new and deleted files, pending content read back, saved through
the external-edit guard, and undone to the exact bytes (or absence)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing import Compound, ProjectDocuments, SetValue
from studio.editing.documents import EditPathError
from studio.editing.fields import instruction_file, set_brief, set_instruction
from studio.editing.files import MoveFile, PutFile, set_text
from studio.editing.session import ProjectSession
from studio.store.editing import ExternalEditError
from tests.editing.edit_support import copy_sample, round_trip, save_and_compare, snapshot


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


def test_an_instruction_edit_is_saved_and_undone_to_the_same_bytes(sample: Path):
    documents = ProjectDocuments(sample)
    rel = instruction_file(documents, "T05")
    assert rel == "subtasks/T05/instruction.md"
    original = (sample / rel).read_bytes()
    undo, changes = set_instruction(documents, "T05", "# T05\n\nBuild the model.\n").apply(documents)
    assert changes.files == {rel} and changes.ids == {"T05"}
    assert documents.read_bytes(rel) == b"# T05\n\nBuild the model.\n"
    assert (sample / rel).read_bytes() == original  # nothing is written before a save
    assert documents.save() == [rel]
    assert (sample / rel).read_text(encoding="utf-8") == "# T05\n\nBuild the model.\n"
    undo.apply(documents)
    documents.save()
    assert (sample / rel).read_bytes() == original


def test_the_brief_follows_project_yaml(sample: Path):
    documents = ProjectDocuments(sample)
    command = set_brief(documents, "# Brief\n")
    assert command.rel == "brief.md"
    round_trip(sample, lambda d: set_brief(d, "# A new brief\n\nShort.\n"))


def test_a_new_yaml_file_is_readable_and_editable_before_it_is_saved(sample: Path):
    documents = ProjectDocuments(sample)
    rel = "subtasks/T99/notes.yaml"
    assert documents.read_bytes(rel) is None and not documents.exists(rel)
    put_undo, _ = PutFile(rel, b"# Hand comment\nitems:\n  - a\n").apply(documents)
    assert documents.exists(rel)
    assert documents.node(rel, ("items", 0)) == "a"
    set_undo, _ = SetValue(rel, ("items", 0), "b").apply(documents)
    assert documents.read_bytes(rel) == b"# Hand comment\nitems:\n  - b\n"
    assert documents.save() == [rel]
    assert (sample / rel).read_text(encoding="utf-8") == "# Hand comment\nitems:\n  - b\n"
    set_undo.apply(documents)
    put_undo.apply(documents)
    assert not documents.exists(rel)
    with pytest.raises(EditPathError, match="subtasks/T99/notes.yaml: the file is deleted by an unsaved edit"):
        documents.document(rel)
    documents.save()
    assert not (sample / rel).exists() and not (sample / "subtasks/T99").exists()  # the empty folder goes too


def test_deleting_a_file_and_undoing_gives_back_its_bytes(sample: Path):
    rel = "materials/kickoff-email.md"
    before = snapshot(sample)
    documents = ProjectDocuments(sample)
    undo, _ = PutFile(rel, None).apply(documents)
    assert documents.read_bytes(rel) is None
    documents.save()
    assert not (sample / rel).exists()
    undo.apply(documents)
    documents.save()
    assert snapshot(sample) == before


def test_an_unknown_file_is_named(sample: Path):
    documents = ProjectDocuments(sample)
    with pytest.raises(EditPathError, match="nothing.yaml: there is no such file in the project"):
        documents.node("nothing.yaml", ())


def test_a_save_refused_for_one_file_writes_none(sample: Path):
    documents = ProjectDocuments(sample)
    Compound("two", [set_text(documents, "brief.md", "# New brief\n"),
                     set_instruction(documents, "T02", "# T02 again\n")]).apply(documents)
    theirs = "# Edited in Word meanwhile\n"
    (sample / "subtasks/T02/instruction.md").write_text(theirs, encoding="utf-8")
    brief = (sample / "brief.md").read_bytes()
    with pytest.raises(ExternalEditError, match="subtasks/T02/instruction.md was changed outside"):
        documents.save()
    assert (sample / "brief.md").read_bytes() == brief
    assert (sample / "subtasks/T02/instruction.md").read_text(encoding="utf-8") == theirs
    assert documents.dirty == {"brief.md", "subtasks/T02/instruction.md"}


def test_a_file_created_elsewhere_meanwhile_is_not_overwritten(sample: Path):
    documents = ProjectDocuments(sample)
    PutFile("materials/new.md", b"ours\n").apply(documents)
    (sample / "materials/new.md").write_text("theirs\n", encoding="utf-8")
    with pytest.raises(ExternalEditError, match="materials/new.md was changed outside"):
        documents.save()
    assert (sample / "materials/new.md").read_text(encoding="utf-8") == "theirs\n"


def test_a_deleted_file_changed_elsewhere_is_not_deleted(sample: Path):
    documents = ProjectDocuments(sample)
    PutFile("materials/kickoff-email.md", None).apply(documents)
    (sample / "materials/kickoff-email.md").write_text("theirs\n", encoding="utf-8")
    with pytest.raises(ExternalEditError, match="materials/kickoff-email.md was changed outside"):
        documents.save()
    assert (sample / "materials/kickoff-email.md").read_text(encoding="utf-8") == "theirs\n"


def test_moving_a_file_carries_earlier_edits_in_the_same_compound(sample: Path):
    documents = ProjectDocuments(sample)
    before = snapshot(sample)
    undo, changes = Compound("edit then move", [
        SetValue("subtasks/T01/subtask.yaml", ("title",), "Moved"),
        MoveFile("subtasks/T01/subtask.yaml", "elsewhere/subtask.yaml"),
    ]).apply(documents)
    assert changes.files == {"subtasks/T01/subtask.yaml", "elsewhere/subtask.yaml"}
    assert b"title: Moved\n" in (documents.read_bytes("elsewhere/subtask.yaml") or b"")
    documents.save()
    assert not (sample / "subtasks/T01/subtask.yaml").exists()
    undo.apply(documents)
    documents.save()
    assert snapshot(sample) == before
    with pytest.raises(EditPathError, match="subtasks/T02/subtask.yaml already exists"):
        MoveFile("subtasks/T01/subtask.yaml", "subtasks/T02/subtask.yaml").apply(documents)


def test_deleting_a_subtask_yaml_rebuilds_the_model_as_a_fresh_load(sample: Path):
    session = ProjectSession(sample)
    session.apply(Compound("drop T10's files", [PutFile("subtasks/T10/subtask.yaml", None),
                                                 PutFile("subtasks/T10/rubric.yaml", None)]))
    assert "T10" not in session.loaded.project.subtasks
    assert "T10" not in session.loaded.project.checkpoint_rubrics
    save_and_compare(session)


def test_deleting_only_a_subtask_yaml_drops_its_rubric_too(sample: Path):
    session = ProjectSession(sample)
    session.apply(PutFile("subtasks/T10/subtask.yaml", None))
    assert "T10" not in session.loaded.project.checkpoint_rubrics
    assert "subtasks/T10/rubric.yaml" not in session.loaded.documents
    save_and_compare(session)


def test_deleting_a_required_file_reports_it_missing_as_a_load_would(sample: Path):
    session = ProjectSession(sample)
    session.apply(PutFile("materials.yaml", None))
    assert session.loaded.project.materials is None
    assert any(p.code == "missing-file" and p.file == "materials.yaml" for p in session.loaded.problems)
    save_and_compare(session)


def test_a_new_subtask_folder_appears_in_the_model(sample: Path):
    session = ProjectSession(sample)
    text = (sample / "subtasks/T10/subtask.yaml").read_text(encoding="utf-8").replace("id: T10", "id: T11")
    session.apply(PutFile("subtasks/T11/subtask.yaml", text.encode("utf-8")))
    assert session.loaded.project.subtasks["T11"].id == "T11"
    save_and_compare(session)


def test_a_text_changed_on_disk_after_the_app_read_it_is_not_overwritten(sample: Path):
    documents = ProjectDocuments(sample)
    rel = instruction_file(documents, "T03")
    shown = documents.read_bytes(rel)  # what the instruction editor shows
    theirs = b"# T03 rewritten in another editor\n"
    (sample / rel).write_bytes(theirs)
    undo, _ = set_instruction(documents, "T03", "# T03 as the expert typed it\n").apply(documents)
    assert undo.data == shown  # the undo restores what the app showed, not the other editor's text
    with pytest.raises(ExternalEditError, match="subtasks/T03/instruction.md was changed outside"):
        documents.save()
    assert (sample / rel).read_bytes() == theirs
    assert documents.editor.changed_on_disk() == [rel]
    documents.forget(rel)  # reload: the other editor's text wins, the unsaved edit is dropped
    assert documents.read_bytes(rel) == theirs and rel not in documents.dirty
    set_instruction(documents, "T03", "# T03 on top of theirs\n").apply(documents)
    assert documents.save() == [rel]
    assert (sample / rel).read_text(encoding="utf-8") == "# T03 on top of theirs\n"


def test_a_yaml_file_held_as_bytes_opens_as_the_same_document(sample: Path):
    documents = ProjectDocuments(sample)
    held = documents.read_bytes("stages.yaml")
    assert documents.node("stages.yaml", ("stages", 0, "id")) == "S1"
    assert documents.read_bytes("stages.yaml") == held == (sample / "stages.yaml").read_bytes()
