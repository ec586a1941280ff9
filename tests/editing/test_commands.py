"""Edit commands over the round-trip documents: each returns an inverse that gives back the same
bytes, comments survive, what changed is reported, and saving goes through the external-edit guard."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.editing import (
    Changes,
    Compound,
    EditPathError,
    InsertItem,
    MoveItem,
    ProjectDocuments,
    RemoveItem,
    RemoveKey,
    SetValue,
)
from studio.editing.rubric import add_criterion, move_criterion, remove_criterion, set_criterion_field
from studio.store.editing import ExternalEditError
from studio.store.workspace import sample_project
from studio.validation.validate import validate_project

T01 = "subtasks/T01/rubric.yaml"
FINAL = "final/rubric.yaml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


def test_a_session_of_edits_saves_a_valid_project_keeps_comments_and_undoes_to_the_same_bytes(sample: Path):
    before = {rel: (sample / rel).read_bytes() for rel in (T01, FINAL)}
    documents = ProjectDocuments(sample)
    new = {"id": "T01-C99", "text": "The memo states the covenant headroom in EUR m.", "covers":
           ["T01:outputs/net_debt_baseline.xlsx"], "target": "checkpoint", "dimension": "correctness", "weight": -4}
    edit = Compound("Rework T01's rubric", [
        set_criterion_field(documents, "T01", "T01-C02", "weight", -7),
        add_criterion(documents, "T01", new),
        remove_criterion(documents, "T01", "T01-C06"),
        move_criterion(documents, "T01", "T01-C01", 3),
        SetValue(T01, ("criteria", 0, "review", "note"), "checked against M02"),
    ])
    undo, changes = edit.apply(documents)
    assert changes.files == {T01}
    assert {"T01-C02", "T01-C99", "T01-C06", "T01-C01"} <= changes.ids
    assert documents.dirty == {T01}

    assert documents.save() == [T01]
    text = (sample / T01).read_text(encoding="utf-8")
    assert text.startswith("# Checkpoint rubric of T01.\n")  # the hand-written comment survives
    assert "T01-C99" in text and "T01-C06" not in text and "weight: -7" in text
    assert validate_project(sample) == []

    redo, undone = undo.apply(documents)
    assert undone.files == {T01}
    assert documents.text(T01).encode("utf-8") == before[T01]
    documents.save()
    assert (sample / T01).read_bytes() == before[T01]
    # and the redo (the inverse of the undo) makes the same file again
    redo.apply(documents)
    assert documents.text(T01) == text


def test_removing_a_key_and_undoing_puts_it_back_in_place_with_its_comment(tmp_path: Path):
    (tmp_path / "project.yaml").write_text("a: 1  # one\nb: 2  # two\nc: 3\n", encoding="utf-8")
    documents = ProjectDocuments(tmp_path)
    undo, _ = RemoveKey("project.yaml", ("b",)).apply(documents)
    assert documents.text("project.yaml") == "a: 1  # one\nc: 3\n"
    undo.apply(documents)
    assert documents.text("project.yaml") == "a: 1  # one\nb: 2  # two\nc: 3\n"


def test_a_failing_part_of_a_compound_leaves_the_documents_as_they_were(sample: Path):
    documents = ProjectDocuments(sample)
    original = documents.text(T01)
    edit = Compound("Half-valid", [
        SetValue(T01, ("criteria", 0, "weight"), 9),
        RemoveItem(T01, ("criteria",), 500),
    ])
    with pytest.raises(EditPathError, match=r"subtasks/T01/rubric.yaml: criteria has no item 500"):
        edit.apply(documents)
    assert documents.text(T01) == original


@pytest.mark.parametrize("command, message", [
    (SetValue(T01, ("criteria", 0, "nope", "deeper"), 1), r"nothing at criteria\.0\.nope"),
    (RemoveKey(T01, ("criteria", 0, "absent")), r"no key criteria\.0\.absent to remove"),
    (InsertItem(T01, ("criteria",), 999, {}), r"criteria has no place 999"),
    (MoveItem(T01, ("criteria",), 0, 99), r"cannot move item 0 of criteria to 99"),
    (InsertItem(T01, ("criteria", 0), 0, 1), r"criteria\.0 is not a list"),
])
def test_an_edit_at_a_place_the_file_lacks_is_refused_with_its_place(sample: Path, command, message):
    documents = ProjectDocuments(sample)
    original = documents.text(T01)
    with pytest.raises(EditPathError, match=message):
        command.apply(documents)
    assert documents.text(T01) == original and documents.dirty == set()


def test_saving_over_a_file_edited_elsewhere_is_refused_and_the_other_edit_survives(sample: Path):
    documents = ProjectDocuments(sample)
    set_criterion_field(documents, "T01", "T01-C01", "weight", 2).apply(documents)
    theirs = (sample / T01).read_text(encoding="utf-8").replace("weight: 8", "weight: 9", 1)
    (sample / T01).write_text(theirs, encoding="utf-8")
    with pytest.raises(ExternalEditError, match="subtasks/T01/rubric.yaml was changed outside"):
        documents.save()
    assert (sample / T01).read_text(encoding="utf-8") == theirs


def test_an_unknown_criterion_is_named():
    documents = ProjectDocuments(sample_project())
    with pytest.raises(EditPathError, match="subtasks/T02/rubric.yaml: no criterion T02-C99"):
        set_criterion_field(documents, "T02", "T02-C99", "weight", 1)


def test_changes_merge():
    merged = Changes.of("a.yaml", "X") | Changes.of("b.yaml", None, "Y")
    assert merged == Changes(frozenset({"a.yaml", "b.yaml"}), frozenset({"X", "Y"}))
    assert not Changes()


def _edits(size: int) -> st.SearchStrategy[list[tuple[str, int, int, int]]]:
    kinds = st.sampled_from(["set", "remove", "insert", "move", "drop-key"])
    return st.lists(st.tuples(kinds, st.integers(0, 50), st.integers(0, 50), st.integers(-10, 10)), min_size=1,
                    max_size=size)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_edits(12))
def test_any_sequence_of_edits_undone_in_reverse_gives_back_the_same_bytes(sample: Path, plan):
    documents = ProjectDocuments(sample)
    original = documents.text(FINAL)
    undos = []
    for kind, a, b, weight in plan:
        size = len(documents.node(FINAL, ("criteria",)))
        if kind == "set" and size:
            command = SetValue(FINAL, ("criteria", a % size, "weight"), weight or 1)
        elif kind == "remove" and size > 1:
            command = RemoveItem(FINAL, ("criteria",), a % size)
        elif kind == "insert":
            command = InsertItem(FINAL, ("criteria",), a % (size + 1), {"id": f"N{a}-{b}", "weight": weight or 1})
        elif kind == "move" and size:
            command = MoveItem(FINAL, ("criteria",), a % size, b % size)
        elif kind == "drop-key" and size and "review" in documents.node(FINAL, ("criteria", a % size)):
            command = RemoveKey(FINAL, ("criteria", a % size, "review"))
        else:
            continue
        undo, changes = command.apply(documents)
        assert changes.files == {FINAL}
        undos.append(undo)
    for undo in reversed(undos):
        undo.apply(documents)
    assert documents.text(FINAL) == original


def test_a_new_criterion_can_be_edited_inside_and_undone(sample: Path):
    documents = ProjectDocuments(sample)
    original = documents.text(FINAL)
    add_undo, _ = InsertItem(FINAL, ("criteria",), 0, {"id": "F-NEW", "review": {"status": "draft"}}).apply(documents)
    set_undo, _ = SetValue(FINAL, ("criteria", 0, "review", "status"), "reviewed").apply(documents)
    assert "  - id: F-NEW\n    review:\n      status: reviewed\n" in documents.text(FINAL)
    set_undo.apply(documents)
    add_undo.apply(documents)
    assert documents.text(FINAL) == original


def test_renaming_a_criterion_carries_its_requires_and_reuses_and_undoes_exactly(sample: Path):
    from studio.editing.rubric import RenameError, rename_criterion, rubric_files

    documents = ProjectDocuments(sample)
    before = {rel: documents.text(rel) for rel in rubric_files(documents)}
    assert "reuse_of: T06-C02" in before[FINAL] and "      - T06-C02\n" in before["subtasks/T06/rubric.yaml"]
    undo, changes = rename_criterion(documents, "T06-C02", "T06-LEVERAGE").apply(documents)
    assert changes.files == {"subtasks/T06/rubric.yaml", FINAL}
    assert changes.ids == {"T06-C02", "T06-LEVERAGE"}
    documents.save()
    for rel in changes.files:
        text = (sample / rel).read_text(encoding="utf-8")
        assert "T06-C02" not in text and "T06-LEVERAGE" in text
    assert validate_project(sample) == []
    undo.apply(documents)
    assert {rel: documents.text(rel) for rel in before} == before

    with pytest.raises(RenameError, match="'T06-C03' is already the id of a criterion"):
        rename_criterion(documents, "T06-C02", "T06-C03")
    with pytest.raises(RenameError, match="no criterion has the id 'T06-C99'"):
        rename_criterion(documents, "T06-C99", "T06-NEW")
    with pytest.raises(RenameError, match="'bad id' is not a valid id"):
        rename_criterion(documents, "T06-C02", "bad id")
