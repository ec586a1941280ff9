"""Locating any object of a project and setting its fields, dotted or not, with exact undo."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing import ProjectDocuments
from studio.editing.documents import EditPathError
from studio.editing.fields import UnknownObjectError, object_location, set_field
from studio.store.workspace import sample_project
from tests.editing.edit_support import copy_sample, round_trip


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


@pytest.mark.parametrize("kind, object_id, where", [
    ("project", "kestrel-refinancing", ("project.yaml", ())),
    ("stage", "S3", ("stages.yaml", ("stages", 2))),
    ("subtask", "T04", ("subtasks/T04/subtask.yaml", ())),
    ("material", "M12", ("materials.yaml", ("materials", 11))),
    ("reference", "R02", ("evaluator/references.yaml", ("references", 1))),
    ("deliverable", "F3", ("project.yaml", ("delivery", "final_deliverables", 2))),
    ("criterion", "T05-C03", ("subtasks/T05/rubric.yaml", ("criteria", 2))),
    ("criterion", "PKG-01", ("final/rubric.yaml", ("criteria", 0))),
    ("handoff", "4", ("dependencies.yaml", ("handoffs", 4))),
])
def test_every_kind_of_object_is_found(kind, object_id, where):
    documents = ProjectDocuments(sample_project())
    if object_id == "PKG-01":  # the sample's first final criterion that is not a reuse
        rows = documents.node("final/rubric.yaml", ("criteria",))
        first = next(i for i, row in enumerate(rows) if "id" in row)
        object_id, where = str(rows[first]["id"]), ("final/rubric.yaml", ("criteria", first))
    assert object_location(documents, kind, object_id) == where


def test_a_reused_criterion_is_found_at_its_original():
    documents = ProjectDocuments(sample_project())
    assert object_location(documents, "criterion", "T06-C02") == ("subtasks/T06/rubric.yaml", ("criteria", 1))


@pytest.mark.parametrize("kind, object_id, message", [
    ("stage", "S9", "stages.yaml: there is no stage with the id 'S9'"),
    ("subtask", "T77", r"there is no subtask 'T77' \(subtasks/T77/subtask.yaml does not exist\)"),
    ("material", "M99", "materials.yaml: there is no material with the id 'M99'"),
    ("criterion", "X-1", "no rubric has a criterion with the id 'X-1'"),
    ("handoff", "99", r"dependencies.yaml: there is no handoff 99 \(the map has 31\)"),
    ("handoff", "first", "there is no handoff first"),
    ("widget", "W1", "'widget' is not a kind of object"),
])
def test_an_unknown_object_is_named(kind, object_id, message):
    with pytest.raises(UnknownObjectError, match=message):
        object_location(ProjectDocuments(sample_project()), kind, object_id)


@pytest.mark.parametrize("kind, object_id, field, value", [
    ("project", "kestrel-refinancing", "delivery.scope", "The signing package."),
    ("project", "kestrel-refinancing", "client", "Kestrel Freight Group"),
    ("stage", "S2", "title", "Structure & model"),
    ("subtask", "T03", "time_limit_minutes", 200),
    ("material", "M12", "release.subtask", "T05"),
    ("material", "M02", "note", None),
    ("reference", "R03", "title", "Approvals and conditions"),
    ("deliverable", "F6", "audience", None),
    ("deliverable", "F1", "title", "Financing model"),
    ("criterion", "T05-C02", "review.note", "Checked against M09."),
    ("handoff", "0", "carries", "The lease balance."),
])
def test_setting_a_field_saves_a_valid_project_and_undoes_exactly(sample: Path, kind, object_id, field, value):
    round_trip(sample, lambda d: set_field(d, kind, object_id, field, value))


def test_a_missing_mapping_on_the_way_is_made(sample: Path):
    documents = ProjectDocuments(sample)
    before = documents.text("materials.yaml")
    undo, _ = set_field(documents, "material", "M14", "extra.deep.key", 3).apply(documents)
    assert "    extra:\n      deep:\n        key: 3\n" in documents.text("materials.yaml")
    undo.apply(documents)
    assert documents.text("materials.yaml") == before


def test_removing_an_absent_field_does_nothing(sample: Path):
    documents = ProjectDocuments(sample)
    before = documents.text("materials.yaml")
    _, changes = set_field(documents, "material", "M01", "note", None).apply(documents)
    assert not changes and documents.text("materials.yaml") == before


def test_a_field_below_a_value_is_refused(sample: Path):
    documents = ProjectDocuments(sample)
    with pytest.raises(EditPathError, match="title of stage S1 is not a mapping"):
        set_field(documents, "stage", "S1", "title.first", "x")


def test_an_id_is_not_set_as_a_field_but_renamed(sample: Path):
    with pytest.raises(EditPathError, match="the id of material M03 is changed by a rename"):
        set_field(ProjectDocuments(sample), "material", "M03", "id", "M33")
