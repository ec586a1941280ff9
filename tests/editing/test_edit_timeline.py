"""Stages and subtasks: add, remove and move, in house style, each undone to the same bytes; bad
edits are refused by name with nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing import Chain, ProjectDocuments
from studio.editing.fields import UnknownObjectError
from studio.editing.ids import IdError, next_id
from studio.editing.rubric import add_criterion
from studio.editing.session import ProjectSession
from studio.editing.timeline import (
    TimelineError,
    add_stage,
    add_subtask,
    move_stage,
    move_subtask,
    remove_stage,
    remove_subtask,
)
from studio.store.loader import load_project
from studio.validation.validate import validate_project
from tests.editing.edit_support import copy_sample, round_trip, save_and_compare, snapshot


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


def _new_stage_with_subtask(d: ProjectDocuments) -> Chain:
    return Chain("Closing", [lambda d: add_stage(d, "S5", "Closing"),
                             lambda d: add_subtask(d, "S5", "T11", "Closing memo")])


def test_a_new_stage_with_a_new_subtask_is_a_valid_project_in_house_style(sample: Path):
    session = ProjectSession(sample)
    _, changes = session.apply(_new_stage_with_subtask(session.documents))
    assert changes.files == {"stages.yaml", "subtasks/T11/subtask.yaml", "subtasks/T11/instruction.md",
                             "subtasks/T11/rubric.yaml"}
    assert changes.ids == {"S5", "T11"}
    assert session.loaded.project.timeline()[-1] == "T11"
    save_and_compare(session)
    assert validate_project(sample) == []
    assert (sample / "subtasks/T11/subtask.yaml").read_text(encoding="utf-8") == (
        "id: T11\ntitle: Closing memo\ninstruction: instruction.md\ninputs: []\noutputs:\n"
        "  - path: outputs/T11.md\ntime_limit_minutes: 240\n")
    assert (sample / "subtasks/T11/rubric.yaml").read_text(encoding="utf-8") == \
        "# Checkpoint rubric of T11.\ncriteria: []\n"
    assert (sample / "stages.yaml").read_text(encoding="utf-8").endswith(
        "  - id: S5\n    title: Closing\n    subtasks:\n      - T11\n")
    assert (sample / "stages.yaml").read_text(encoding="utf-8").startswith("# The project timeline")


def test_adding_a_stage_and_subtask_then_undoing_gives_back_every_byte(sample: Path):
    round_trip(sample, _new_stage_with_subtask)


def test_a_new_subtask_takes_criteria_and_stays_valid(sample: Path):
    session = ProjectSession(sample)
    session.apply(add_subtask(session.documents, "S2", "T05b", "Interim check", 1, outputs=["outputs/check.md"]))
    session.apply(add_criterion(session.documents, "T05b", {
        "id": "T05b-C01", "text": "The check names the restated EBITDA.", "covers": ["T05b:outputs/check.md"],
        "target": "checkpoint", "dimension": "correctness", "weight": 4}))
    assert session.loaded.project.timeline()[3:6] == ["T04", "T05b", "T05"]
    save_and_compare(session)
    assert validate_project(sample) == []


@pytest.mark.parametrize("make", [
    lambda d: add_subtask(d, "S3", "T07b", "Lender call notes", 0),
    lambda d: move_stage(d, "S1", 2),
    lambda d: move_subtask(d, "T08", "S3", 0),
    lambda d: move_subtask(d, "T09", "S4", 1),
])
def test_timeline_edits_undo_exactly(sample: Path, make):
    round_trip(sample, make, valid=False)


def test_moving_a_subtask_to_another_stage_and_back(sample: Path):
    session = ProjectSession(sample)
    undo, _ = session.apply(move_subtask(session.documents, "T03", "S2", 0))
    assert session.loaded.project.stages.stages[0].subtasks == ["T01", "T02"]
    assert session.loaded.project.stages.stages[1].subtasks == ["T03", "T04", "T05", "T06"]
    save_and_compare(session)
    assert validate_project(sample) == []  # same order on the timeline: still valid
    session.apply(undo)
    assert session.loaded.project.stages.stages[0].subtasks == ["T01", "T02", "T03"]


def test_removing_an_unreferenced_subtask_deletes_its_folder_and_undo_restores_it(sample: Path):
    session = ProjectSession(sample)
    session.apply(add_subtask(session.documents, "S4", "T11", "Spare"))
    session.save()
    before = snapshot(sample)
    undo, changes = session.apply(remove_subtask(session.documents, "T11"))
    assert "subtasks/T11/instruction.md" in changes.files
    assert "T11" not in session.loaded.project.subtasks
    save_and_compare(session)
    assert not (sample / "subtasks/T11").exists()
    assert validate_project(sample) == []
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before


def test_removing_a_subtask_others_name_is_refused_and_forced_leaves_findings(sample: Path):
    documents = ProjectDocuments(sample)
    with pytest.raises(TimelineError, match=r"subtask T08 is still named in materials.yaml: materials\.13\."
                                            r"release\.subtask;"):
        remove_subtask(documents, "T08")
    assert documents.dirty == set()
    session = ProjectSession(sample)
    session.apply(remove_subtask(session.documents, "T08", force=True))
    save_and_compare(session)
    assert not (sample / "subtasks/T08").exists()
    assert {p.code for p in load_project(sample).problems} == set()
    assert any("T08" in problem.message for problem in validate_project(sample))


def test_a_stage_with_subtasks_cannot_be_removed_an_empty_one_can(sample: Path):
    documents = ProjectDocuments(sample)
    with pytest.raises(TimelineError, match="stage S3 still holds T07, T08: move or remove its subtasks first"):
        remove_stage(documents, "S3")
    round_trip(sample, lambda d: Chain("empty S4", [lambda d: move_subtask(d, "T09", "S3", 2),
                                                    lambda d: move_subtask(d, "T10", "S3", 3),
                                                    lambda d: remove_stage(d, "S4")]))


@pytest.mark.parametrize("make, error, message", [
    (lambda d: add_stage(d, "S2", "Again"), IdError, r"'S2' is already the id of a stage in stages.yaml"),
    (lambda d: add_stage(d, "bad id", "x"), IdError, "'bad id' is not a valid stage id"),
    (lambda d: add_stage(d, "S9", " "), TimelineError, "a stage needs a title"),
    (lambda d: add_stage(d, "S9", "x", 9), TimelineError, "stages.yaml has no place 9"),
    (lambda d: add_subtask(d, "S1", "T03", "x"), IdError, "'T03' is already the id of the subtask in "
                                                          "subtasks/T03/subtask.yaml"),
    (lambda d: add_subtask(d, "S9", "T11", "x"), UnknownObjectError, "there is no stage with the id 'S9'"),
    (lambda d: add_subtask(d, "S1", "T11", "x", 7), TimelineError, "stage S1 has no place 7"),
    (lambda d: move_stage(d, "S1", 4), TimelineError, "stages.yaml has no place 4 for stage S1"),
    (lambda d: move_subtask(d, "T99", "S1", 0), UnknownObjectError, "subtask 'T99' is in no stage"),
    (lambda d: move_subtask(d, "T01", "S1", 3), TimelineError, "stage S1 has no place 3"),
    (lambda d: remove_subtask(d, "T99"), UnknownObjectError, "there is no subtask 'T99'"),
])
def test_bad_timeline_edits_are_refused_by_name(sample: Path, make, error, message):
    documents = ProjectDocuments(sample)
    with pytest.raises(error, match=message):
        make(documents)
    assert documents.dirty == set()


def test_a_folder_left_over_on_disk_blocks_its_id(sample: Path):
    (sample / "subtasks/T11").mkdir()
    (sample / "subtasks/T11/notes.md").write_text("old notes\n", encoding="utf-8")
    with pytest.raises(TimelineError, match="the folder subtasks/T11 already holds subtasks/T11/notes.md"):
        add_subtask(ProjectDocuments(sample), "S4", "T11", "x")


@pytest.mark.parametrize("existing, prefix, expected", [
    (["T01", "T02", "T10"], "T", "T11"),
    (["S1", "S2", "S4"], "S", "S5"),
    (["M18", "M07", "R01"], "M", "M19"),
    ([], "T", "T01"),
    (["T9", "T10", "X"], "T", "T11"),
    (["T-1"], "T", "T01"),
])
def test_next_id_suggests_the_next_number(existing, prefix, expected):
    assert next_id(existing, prefix) == expected


def test_a_listed_subtask_without_a_folder_is_taken_off_its_stage(sample: Path):
    stages = (sample / "stages.yaml").read_text(encoding="utf-8").replace("      - T10\n", "      - T10\n      - T12\n")
    (sample / "stages.yaml").write_text(stages, encoding="utf-8")
    documents = ProjectDocuments(sample)
    command = remove_subtask(documents, "T12")
    assert [type(c).__name__ for c in command.commands] == ["RemoveItem"]
    command.apply(documents)
    documents.save()
    assert validate_project(sample) == []
