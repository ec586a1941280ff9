"""Merging the window's version of a file with the one someone else saved on disk: the changes
come from the object diff `dbstudio diff` uses, one choice per field, and the result saves."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.editing.fields import set_field
from studio.editing.merge import WHOLE_FILE, accept_disk_as_base, file_conflict, merge_command
from studio.editing.session import ProjectSession
from studio.store.editing import ExternalEditError
from studio.store.object_diff import ABSENT
from studio.store.workspace import sample_project

STAGES = "stages.yaml"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "kestrel"
    shutil.copytree(sample_project(), folder)
    return folder


def _theirs(root: Path) -> str:
    """Someone else's save: S1 retitled, S4 removed (the last stage, with its subtask list)."""
    path = root / STAGES
    text = path.read_text().replace("title: Diligence and baseline", "title: Due diligence")
    text = text[:text.index("  - id: S4")]
    path.write_text(text)
    return text


def test_the_fields_that_differ_and_a_merge_that_takes_some_of_the_disks(root: Path) -> None:
    session = ProjectSession(root)
    session.apply(set_field(session.documents, "stage", "S2", "title", "Structure"))
    _theirs(root)
    with pytest.raises(ExternalEditError):
        session.save()
    conflict = file_conflict(session.documents, STAGES)
    shown = {change.field: (change.old, change.new) for change in conflict.changes}
    assert shown["stages.S1.title"] == ("Diligence and baseline", "Due diligence")
    assert shown["stages.S2.title"] == ("Structure", "Financing structure and model")
    assert shown["stages.S4"][1] is ABSENT and shown["stages.S4"][0]["title"] == "Signing readiness"
    # mine for S2, the disk's for S1 and S4
    choice = [change.field != "stages.S2.title" for change in conflict.changes]
    inverse, _ = session.apply(merge_command(conflict, choice))
    accept_disk_as_base(session.documents, STAGES)
    assert session.save() == [STAGES]
    stages = {stage.id: stage.title for stage in ProjectSession(root).loaded.project.stages.stages}
    assert stages == {"S1": "Due diligence", "S2": "Structure", "S3": "Lender coordination"}
    assert "title: Structure" in (root / STAGES).read_text()


def test_taking_nothing_of_the_disks_keeps_mine_and_an_unreadable_side_is_one_whole_file_choice(root: Path) -> None:
    session = ProjectSession(root)
    session.apply(set_field(session.documents, "stage", "S2", "title", "Structure"))
    mine = session.documents.read_bytes(STAGES)
    (root / STAGES).write_text("stages: [unclosed\n")
    conflict = file_conflict(session.documents, STAGES)
    assert [change.field for change in conflict.changes] == [WHOLE_FILE]
    session.apply(merge_command(conflict, [False]))
    accept_disk_as_base(session.documents, STAGES)
    session.save()
    assert (root / STAGES).read_bytes() == mine
