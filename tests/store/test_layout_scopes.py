"""Which rubric a project file holds: the test every view uses to tell a rubric edit from another."""

from __future__ import annotations

from studio.store.layout import scope_of_file, touched_scopes


def test_a_rubric_file_names_its_scope_and_other_files_none() -> None:
    assert scope_of_file("final/rubric.yaml") == "final"
    assert scope_of_file("subtasks/T03/rubric.yaml") == "T03"
    assert scope_of_file("subtasks/T03/subtask.yaml") is None
    assert scope_of_file("subtasks/T03/extra/rubric.yaml") is None
    assert scope_of_file("rubric.yaml") is None


def test_the_scopes_an_edit_touched() -> None:
    assert touched_scopes(["stages.yaml", "subtasks/T01/rubric.yaml", "final/rubric.yaml",
                           "subtasks/T01/rubric.yaml"]) == {"T01", "final"}
    assert touched_scopes(["materials.yaml"]) == set()
