"""Saving structural edits and committing them: new subtask folders are committed, removed ones
are committed as deletions, and a folder created and removed again between two commits is no
concern of git's. Real git repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.rename import rename
from studio.editing.session import ProjectSession
from studio.editing.timeline import add_subtask, remove_subtask
from studio.store.history import ProjectRepository
from tests.editing.edit_support import copy_sample


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_sample(tmp_path / "kestrel")
    ProjectRepository.init(root).commit("Start from the sample")
    return root


def _tracked(root: Path) -> set[str]:
    return set(ProjectRepository(root).repo.git.ls_files().splitlines())


def test_a_subtask_added_and_removed_before_a_commit_leaves_git_untouched(project: Path):
    session = ProjectSession(project)
    session.apply(add_subtask(session.documents, "S4", "T11", "Draft"))
    session.save()
    session.apply(remove_subtask(session.documents, "T11"))
    session.save()
    session.apply(add_subtask(session.documents, "S4", "T12", "Closing memo"))
    session.save()
    revision = session.commit("Add T12")
    assert set(revision.files) == {"stages.yaml", "subtasks/T12/subtask.yaml", "subtasks/T12/instruction.md",
                                   "subtasks/T12/rubric.yaml"}
    assert not any(name.startswith("subtasks/T11/") for name in _tracked(project))
    assert ProjectRepository(project).status() == []


def test_a_renamed_subtask_is_committed_as_a_move(project: Path):
    session = ProjectSession(project)
    session.apply(rename(session.documents, "subtask", "T04", "T04S"))
    session.save()
    session.commit("Rename T04")
    tracked = _tracked(project)
    assert "subtasks/T04S/rubric.yaml" in tracked and "subtasks/T04/rubric.yaml" not in tracked
    assert ProjectRepository(project).status() == []
