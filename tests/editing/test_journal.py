"""The journal of unsaved edits (studio.editing.journal): what is written, that it never enters
git, how it is read back into a freshly opened project, and the refusals when it no longer fits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.editing.commands import Compound
from studio.editing.files import PutFile, set_text
from studio.editing.journal import (
    JOURNAL_FOLDER,
    JournalError,
    JournalMismatch,
    capture,
    journal_path,
    read_journal,
    recover,
    remove_journal,
    set_aside,
    write_journal,
)
from studio.editing.rubric import add_criterion, edit_criterion
from studio.editing.session import ProjectSession
from studio.editing.timeline import add_subtask
from studio.store.history import ProjectRepository
from studio.store.workspace import create_project
from tests.helpers import SCAFFOLD

CRITERION = {"id": "T01-C09", "text": "The memo names the lender's covenant.", "covers": ["T01:outputs/T01.md"],
             "target": "checkpoint", "dimension": "correctness", "weight": 3, "review": {"status": "draft"}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project made from the blank template, with its own git repository and first commit."""
    root = tmp_path / "audit"
    create_project(root, "audit", "Revenue audit", template=SCAFFOLD)
    return root


def edited(root: Path) -> ProjectSession:
    """A session with unsaved edits of every kind: YAML values, a new criterion, a Markdown text,
    a new subtask's files, a binary file and a deleted file."""
    session = ProjectSession(root)
    documents = session.documents
    session.apply(add_subtask(documents, "S2", "T03", "Reconcile the ledgers"))
    session.apply(add_criterion(documents, "T01", CRITERION))
    session.apply(edit_criterion(documents, "T01", "T01-C09", {"weight": 4}))
    session.apply(set_text(documents, "brief.md", "# Brief\n\nThe client is Kestrel Ltd.\n"))
    documents.read_bytes("materials/scan.bin")
    session.apply(PutFile("materials/scan.bin", bytes(range(256))))
    documents.read_bytes("subtasks/T02/instruction.md")
    session.apply(PutFile("subtasks/T02/instruction.md", None))
    return session


def texts(session: ProjectSession) -> dict[str, bytes | None]:
    return session.documents.unsaved()


def test_a_journal_read_back_gives_a_fresh_session_every_unsaved_edit(project: Path):
    session = edited(project)
    journal = capture(session.documents, ["Add subtask T03", "Add criterion"])
    assert journal is not None
    path = write_journal(project, journal)
    assert path == project / ".dbstudio" / "journal" / "edits.json"
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["steps"] == ["Add subtask T03", "Add criterion"]
    assert {entry["path"] for entry in saved["files"]} == set(session.documents.dirty)

    fresh = ProjectSession(project)  # as after a crash: the disk as last saved
    assert not fresh.modified
    inverse, changes = recover(fresh, read_journal(project))
    assert texts(fresh) == texts(session)
    assert changes.files == frozenset(session.documents.dirty)
    assert fresh.loaded.project.rubric("T01").criteria[-1].weight == 4
    assert "T03" in fresh.loaded.project.subtasks
    # One undoable step: its inverse gives back the files as they are on disk.
    fresh.apply(inverse)
    assert all(fresh.documents.read_bytes(rel) == ((project / rel).read_bytes() if (project / rel).is_file() else None)
               for rel in session.documents.dirty)
    # Saved after recovery, the project is what the first session would have saved.
    recover(fresh, read_journal(project))
    fresh.save()
    session_texts = texts(session)
    for rel, content in session_texts.items():
        assert ((project / rel).read_bytes() if (project / rel).exists() else None) == content


def test_the_journal_never_enters_git_even_without_the_projects_ignore_rule(project: Path):
    (project / ".gitignore").write_text("runs/\n", encoding="utf-8")  # an older project: no .dbstudio/ rule
    repo = ProjectRepository(project)
    repo.commit("Older ignore rules", paths=[".gitignore"])
    write_journal(project, capture(edited(project).documents))
    assert journal_path(project).is_file()
    assert [status.path for status in repo.status()] == []  # what `dbstudio status` lists
    listed = repo.repo.git.ls_files("--others", "--exclude-standard")
    assert JOURNAL_FOLDER not in listed and listed == ""


def test_nothing_unsaved_gives_no_journal_and_removing_twice_is_fine(project: Path):
    assert capture(ProjectSession(project).documents) is None
    remove_journal(project)
    assert read_journal(project) is None


def test_a_file_changed_on_disk_since_refuses_the_journal_by_name_and_applies_nothing(project: Path):
    write_journal(project, capture(edited(project).documents))
    rubric = project / "subtasks" / "T01" / "rubric.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8") + "# edited in another program\n", encoding="utf-8")
    fresh = ProjectSession(project)
    with pytest.raises(JournalMismatch) as refused:
        recover(fresh, read_journal(project))
    assert refused.value.stale == ["subtasks/T01/rubric.yaml"]
    assert "subtasks/T01/rubric.yaml" in str(refused.value) and str(journal_path(project)) in str(refused.value)
    assert not fresh.modified
    kept = set_aside(project)
    assert kept.is_file() and read_journal(project) is None


def test_a_new_file_that_appeared_on_disk_since_refuses_too(project: Path):
    write_journal(project, capture(edited(project).documents))
    (project / "materials" / "scan.bin").write_bytes(b"someone else's scan")
    with pytest.raises(JournalMismatch, match="materials/scan.bin"):
        recover(ProjectSession(project), read_journal(project))


@pytest.mark.parametrize("content, said", [
    (b"{not json", "damaged"),
    (b'{"format": "dbstudio-edit-journal", "version": 99, "files": []}', "not a version-1 journal"),
    (b'{"format": "dbstudio-edit-journal", "version": 1, "files": [{"base": null}]}', "damaged"),
])
def test_a_damaged_journal_is_named_with_what_to_do(project: Path, content: bytes, said: str):
    path = journal_path(project)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with pytest.raises(JournalError) as refused:
        read_journal(project)
    assert str(path) in str(refused.value) and said in str(refused.value)
    assert "set it aside or delete it" in str(refused.value)


def test_the_recovery_is_one_compound_of_whole_files(project: Path):
    from studio.editing.journal import recovery_command

    command = recovery_command(project, capture(edited(project).documents))
    assert isinstance(command, Compound) and all(isinstance(edit, PutFile) for edit in command.commands)
