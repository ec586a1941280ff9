"""Git versioning of project folders, against real repositories."""

from __future__ import annotations

import shutil
from pathlib import Path

import git
import pytest

from studio.store.editing import ExternalEditError, ProjectEditor
from studio.store.history import HistoryError, ProjectRepository
from studio.store.object_diff import diff_object
from studio.store.workspace import (
    TEMPLATES_DIR,
    WorkspaceError,
    create_project,
    ensure_workspace_sample,
    sample_project,
)
from studio.store.yamlfile import YamlDocument
from tests.helpers import SCAFFOLD

RUBRIC = "subtasks/T01/rubric.yaml"


@pytest.fixture
def project(tmp_path: Path) -> ProjectRepository:
    return create_project(tmp_path / "acme", "acme-audit", "Acme IT audit", template=SCAFFOLD)


def _set_weight(root: Path, weight: int) -> None:
    document = YamlDocument.load(root / RUBRIC)
    document.data["criteria"][0]["weight"] = weight
    document.save()


def test_create_from_template_sets_id_and_commits(project: ProjectRepository):
    info = YamlDocument.load(project.root / "project.yaml").data
    assert (info["id"], info["title"]) == ("acme-audit", "Acme IT audit")
    assert project.prefix == ""  # its own repository
    history = project.history()
    assert len(history) == 1 and "template finance-transaction" in history[0].message
    assert "project.yaml" in history[0].files and ".gitignore" in history[0].files
    assert project.status() == []


def test_create_refuses_non_empty_folder(tmp_path: Path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    with pytest.raises(WorkspaceError, match="not empty"):
        create_project(tmp_path / "x", "x", "X", template=SCAFFOLD)
    assert (tmp_path / "x" / "keep.txt").read_text() == "mine"


def test_save_history_diff_restore_cycle(project: ProjectRepository):
    root = project.root
    _set_weight(root, 8)
    assert [(s.path, s.change) for s in project.status()] == [(RUBRIC, "modified")]
    second = project.commit("Raise the weight of T01-C01")
    (root / "subtasks/T01/instruction.md").write_text("# T01\n\nA rewritten instruction.\n")
    third = project.commit("Rewrite the T01 instruction")

    log = project.history()
    assert [r.message for r in log] == ["Rewrite the T01 instruction", "Raise the weight of T01-C01",
                                        "Create project acme-audit from template finance-transaction"]
    assert [r.sha for r in project.history(path=RUBRIC)] == [second.sha, log[-1].sha]

    diff = diff_object(project, "T01-C01", log[-1].sha, second.sha)
    assert diff.kind == "criterion" and diff.new_file == RUBRIC
    assert [(c.field, c.old, c.new) for c in diff.changes] == [("weight", 5, 8)]
    assert "weight: 5 -> 8" in diff.render()

    subtask_diff = diff_object(project, "T01", second.sha, third.sha)
    assert subtask_diff.changes == []
    assert any(line.startswith("+A rewritten instruction.") for line in subtask_diff.text_diff)

    project.restore(RUBRIC, log[-1].sha)
    assert YamlDocument.load(root / RUBRIC).data["criteria"][0]["weight"] == 5
    assert [(s.path, s.change) for s in project.status()] == [(RUBRIC, "modified")]


def test_diff_reports_added_criterion_and_unknown_revision(project: ProjectRepository):
    root = project.root
    first = project.history()[0].sha
    document = YamlDocument.load(root / RUBRIC)
    new = dict(document.data["criteria"][0])
    new["id"] = "T01-C02"
    document.data["criteria"].append(new)
    document.save()
    diff = diff_object(project, "T01-C02", first)  # against the working tree
    assert diff.added and "added in" in diff.render()
    with pytest.raises(HistoryError, match="unknown revision"):
        diff_object(project, "T01-C01", "no-such-rev")
    with pytest.raises(HistoryError, match="no subtask or criterion"):
        diff_object(project, "ZZZ", first)


def test_nothing_to_save_and_empty_message(project: ProjectRepository):
    with pytest.raises(HistoryError, match="nothing to save"):
        project.commit("No change")
    _set_weight(project.root, 3)
    with pytest.raises(HistoryError, match="needs a message"):
        project.commit("  ")


def test_project_inside_enclosing_repository_commits_only_its_folder(tmp_path: Path):
    outer = git.Repo.init(tmp_path / "bench", initial_branch="main")
    (tmp_path / "bench" / "notes.txt").write_text("unrelated\n")
    repo = create_project(tmp_path / "bench" / "projects" / "p1", "p1", "P1", template=SCAFFOLD)
    assert repo.prefix == "projects/p1"
    assert Path(str(repo.repo.working_tree_dir)).resolve() == (tmp_path / "bench").resolve()
    tracked = outer.git.ls_files().splitlines()
    assert "projects/p1/project.yaml" in tracked and "notes.txt" not in tracked
    assert "project.yaml" in repo.history()[0].files
    assert [s.path for s in repo.status()] == []  # notes.txt is outside the project folder


def test_editor_refuses_to_clobber_external_edit_and_save_commits_only_its_files(project: ProjectRepository):
    root = project.root
    editor = ProjectEditor(root)
    document = editor.open_document(RUBRIC)
    document.data["criteria"][0]["weight"] = 9
    # Someone edits the same file in another editor, and another file too.
    text = (root / RUBRIC).read_text().replace("weight: 5", "weight: 4")
    (root / RUBRIC).write_text(text)
    (root / "brief.md").write_text("# Brief\n\nEdited elsewhere.\n")
    assert editor.changed_on_disk() == [RUBRIC]
    with pytest.raises(ExternalEditError, match=RUBRIC):
        editor.write_document(RUBRIC, document)
    assert "weight: 4" in (root / RUBRIC).read_text()  # their edit survives

    stages = editor.open_document("stages.yaml")
    stages.data["stages"][0]["title"] = "Planning"
    editor.write_document("stages.yaml", stages)
    revision = editor.save("Rename the first stage")
    assert revision.files == ("stages.yaml",)
    assert {s.path for s in project.status()} == {RUBRIC, "brief.md"}  # external edits left uncommitted


def test_not_a_repository(tmp_path: Path):
    shutil.copytree(TEMPLATES_DIR / "blank", tmp_path / "loose")
    with pytest.raises(HistoryError, match="not under git"):
        ProjectRepository(tmp_path / "loose")


def test_workspace_sample_copy_has_its_own_repository(tmp_path: Path):
    target = ensure_workspace_sample(tmp_path / "ws")
    repo = ProjectRepository(target)
    assert repo.prefix == ""
    assert repo.status() == []
    assert (target / "project.yaml").read_bytes() != b""
    source = sample_project()
    source_files = sorted(p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file())
    copied = sorted(p.relative_to(target).as_posix() for p in target.rglob("*")
                    if p.is_file() and ".git" not in p.parts)
    assert set(source_files) <= set(copied)
    assert ensure_workspace_sample(tmp_path / "ws") == target  # second start reuses the copy
    assert len(repo.history()) == 1
