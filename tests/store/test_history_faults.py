"""Git operations that must be refused without harm, on real repositories.

Each refusal is checked three ways: the error type, a message that says what to do, and the
repository left as it was (index entries, status, HEAD and every file's bytes).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.store.editing import OutsideProjectError, ProjectEditor
from studio.store.history import HistoryError, MissingIdentityError, ProjectRepository
from studio.store.object_diff import diff_object
from studio.store.workspace import WorkspaceError, create_project, ensure_workspace_sample
from studio.store.yamlfile import YamlDocument
from tests.helpers import SCAFFOLD, files_of, git, isolate_git

RUBRIC = "subtasks/T01/rubric.yaml"
IDENTITY_VARIABLES = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user or system git configuration; an identity given by the environment only."""
    isolate_git(tmp_path / "home", monkeypatch, "Test Author", "author@example.com")


def forget_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in IDENTITY_VARIABLES:
        monkeypatch.delenv(name)


def snapshot(worktree: Path) -> dict[str, object]:
    return {
        "index": git(worktree, "ls-files", "--stage", "-z"),
        "status": git(worktree, "status", "--porcelain=v1", "-z", "--untracked-files=all"),
        "head": git(worktree, "rev-parse", "HEAD"),
        "branch": git(worktree, "symbolic-ref", "-q", "HEAD", check=False),
        "files": files_of(worktree),
    }


@pytest.fixture
def project(tmp_path: Path) -> ProjectRepository:
    return create_project(tmp_path / "acme", "acme-audit", "Acme IT audit", template=SCAFFOLD)


@pytest.fixture
def bench(tmp_path: Path) -> tuple[Path, ProjectRepository, ProjectRepository]:
    """Two projects in one enclosing repository."""
    outer = tmp_path / "bench"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    (outer / "notes.txt").write_text("unrelated\n")
    p1 = create_project(outer / "projects" / "p1", "p1", "P1", template=SCAFFOLD)
    p2 = create_project(outer / "projects" / "p2", "p2", "P2", template=SCAFFOLD)
    return outer, p1, p2


def set_weight(root: Path, weight: int) -> None:
    document = YamlDocument.load(root / RUBRIC)
    document.data["criteria"][0]["weight"] = weight
    document.save()


# -- restore: folders ----------------------------------------------------------------------------


def test_restore_a_deleted_folder_puts_back_every_file(project: ProjectRepository) -> None:
    root = project.root
    first = project.history()[0].sha
    expected = {name: data for name, data in files_of(root).items() if name.startswith("subtasks/T01/")}
    git(root, "rm", "-q", "-r", "subtasks/T01")
    git(root, "commit", "-q", "-m", "Drop T01")
    assert not (root / "subtasks/T01").exists()

    result = project.restore("subtasks/T01", first)
    assert result.written == tuple(sorted(expected)) and result.removed == () and result.kept == ()
    assert (root / "subtasks/T01").is_dir()
    assert {name: data for name, data in files_of(root).items() if name.startswith("subtasks/T01/")} == expected
    for name, data in expected.items():
        assert data == git(root, "show", f"{first}:{name}").encode()
    assert sorted(s.path for s in project.status()) == sorted(expected)  # not saved yet


def test_restore_a_present_folder_removes_only_saved_files_and_keeps_unsaved_work(project: ProjectRepository) -> None:
    root = project.root
    first = project.history()[0].sha
    original = files_of(root)
    folder = root / "subtasks/T01"
    (folder / "notes").mkdir()
    (folder / "notes" / "saved.md").write_text("saved later\n")
    (folder / "saved-top.md").write_text("saved later too\n")
    set_weight(root, 9)
    (folder / "instruction.md").write_text("# T01\n\nRewritten.\n")
    project.commit("Rework T01")
    (folder / "instruction.md").write_text("# T01\n\nUnsaved rewrite.\n")  # at the revision: overwritten
    (folder / "untracked.md").write_text("never saved\n")  # not at the revision: kept
    (folder / "saved-top.md").write_text("saved, then edited\n")  # not at the revision, unsaved edit: kept

    result = project.restore("subtasks/T01", first)
    assert result.written == ("subtasks/T01/instruction.md", RUBRIC, "subtasks/T01/subtask.yaml")
    assert result.removed == ("subtasks/T01/notes/saved.md",)
    assert result.kept == ("subtasks/T01/saved-top.md", "subtasks/T01/untracked.md")
    now = files_of(root)
    for name in result.written:
        assert now[name] == original[name]
    assert now["subtasks/T01/untracked.md"] == b"never saved\n"
    assert now["subtasks/T01/saved-top.md"] == b"saved, then edited\n"
    assert not (folder / "notes").exists()  # emptied by the removal
    # The removed file's bytes are still in history.
    assert git(root, "show", "HEAD:subtasks/T01/notes/saved.md") == "saved later\n"


def test_restore_the_whole_project_folder_inside_an_enclosing_repository(
        bench: tuple[Path, ProjectRepository, ProjectRepository]) -> None:
    outer, p1, p2 = bench
    first = p1.history()[0].sha
    before_p2 = files_of(p2.root)
    set_weight(p1.root, 7)
    (p2.root / "brief.md").write_text("# p2, unsaved\n")
    before_p2["brief.md"] = b"# p2, unsaved\n"
    result = p1.restore(".", first)
    assert result.path == "" and RUBRIC in result.written and "project.yaml" in result.written
    assert all(not name.startswith(("../", "projects/")) for name in result.written)
    assert YamlDocument.load(p1.root / RUBRIC).data["criteria"][0]["weight"] == 5
    assert files_of(p2.root) == before_p2  # the other project is untouched
    assert p1.status() == []


def test_restore_refuses_when_a_file_and_a_folder_clash(project: ProjectRepository) -> None:
    root = project.root
    first = project.history()[0].sha
    # A folder at the revision, a file now.
    git(root, "rm", "-q", "-r", "subtasks/T01")
    (root / "subtasks").mkdir(exist_ok=True)
    (root / "subtasks/T01").write_text("a file in the way\n")
    before = snapshot(root)
    with pytest.raises(HistoryError, match=r"'subtasks/T01' is a file now but was a folder .* move the file away"):
        project.restore("subtasks/T01", first)
    assert snapshot(root) == before
    with pytest.raises(HistoryError, match="is a file now but was a folder"):
        project.restore(RUBRIC, first)
    assert snapshot(root) == before

    # A file at the revision, a folder now.
    (root / "subtasks/T01").unlink()
    git(root, "checkout", "-q", "--", ".")
    (root / "brief.md").unlink()
    (root / "brief.md").mkdir()
    (root / "brief.md" / "inside.md").write_text("mine\n")
    before = snapshot(root)
    with pytest.raises(HistoryError, match=r"'brief.md' is a folder now but was a file .* move the folder away"):
        project.restore("brief.md", first)
    assert snapshot(root) == before


def test_restore_of_something_absent_at_the_revision_or_outside_the_project(
        bench: tuple[Path, ProjectRepository, ProjectRepository]) -> None:
    outer, p1, p2 = bench
    first = p1.history()[0].sha
    before = snapshot(outer)
    with pytest.raises(HistoryError, match="'subtasks/T09' does not exist at revision"):
        p1.restore("subtasks/T09", first)
    for outside in ("../p2/brief.md", str(p2.root / "brief.md"), "../../notes.txt"):
        with pytest.raises(HistoryError, match="is outside the project folder .*relative to the project folder"):
            p1.restore(outside, first)
    with pytest.raises(HistoryError, match="inside git's own folder"):
        p1.restore(".git/config", first)
    with pytest.raises(HistoryError, match="is a range of revisions"):
        p1.restore("brief.md", "HEAD~1..HEAD")
    assert snapshot(outer) == before


# -- restore: symbolic links -------------------------------------------------------------------------


def test_restore_refuses_a_symlink_committed_at_the_revision(tmp_path: Path, project: ProjectRepository) -> None:
    root = project.root
    outside = tmp_path / "outside.md"
    outside.write_text("not the project's\n")
    (root / "brief.md").unlink()
    (root / "brief.md").symlink_to(Path("..") / "outside.md")
    linked = project.commit("Link the brief").sha
    (root / "brief.md").unlink()
    (root / "brief.md").write_text("# Brief again\n")
    project.commit("A real brief again")
    before = snapshot(root)
    for target in ("brief.md", "."):
        with pytest.raises(HistoryError, match=r"symbolic links .*brief.md.* nothing was changed"):
            project.restore(target, linked)
    assert snapshot(root) == before
    assert outside.read_text() == "not the project's\n"


def test_restore_does_not_write_through_a_symlinked_folder_out_of_the_project(
        tmp_path: Path, project: ProjectRepository) -> None:
    root = project.root
    first = project.history()[0].sha
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "rubric.yaml").write_text("criteria: []  # another project's\n")
    git(root, "rm", "-q", "-r", "final")
    (root / "final").symlink_to(elsewhere)
    project.commit("final/ now links elsewhere")
    before = snapshot(root)
    with pytest.raises(HistoryError, match=r"'final' is a symbolic link: restore does not write through links"):
        project.restore("final/rubric.yaml", first)
    with pytest.raises(HistoryError, match=r"'final' is a symbolic link"):
        project.restore("final", first)
    assert snapshot(root) == before
    assert (elsewhere / "rubric.yaml").read_text() == "criteria: []  # another project's\n"
    assert sorted(os.listdir(elsewhere)) == ["rubric.yaml"]


# -- save ----------------------------------------------------------------------------------------


def test_save_refuses_files_of_another_project_and_prints_the_commit_it_made(
        bench: tuple[Path, ProjectRepository, ProjectRepository]) -> None:
    outer, p1, p2 = bench
    (p2.root / "brief.md").write_text("# p2 brief, edited\n")
    (p1.root / "brief.md").write_text("# p1 brief, edited\n")
    before = snapshot(outer)
    for outside in ("../p2/brief.md", str(p2.root / "brief.md"), "../../notes.txt", "subtasks/../../p2/brief.md"):
        with pytest.raises(HistoryError, match="is outside the project folder"):
            p1.commit("Sneak in p2", paths=[outside])
        assert snapshot(outer) == before
    with pytest.raises(HistoryError, match="is outside the project folder"):
        p1.commit("Mixed", paths=["brief.md", "../p2/brief.md"])
    assert snapshot(outer) == before

    revision = p1.commit("Edit the p1 brief", paths=[str(p1.root / "brief.md")])
    assert revision.sha == git(outer, "rev-parse", "HEAD").strip()
    assert git(outer, "show", "--name-only", "--format=", "HEAD").split() == ["projects/p1/brief.md"]
    assert revision.files == ("brief.md",) and revision.message == "Edit the p1 brief"
    assert [s.path for s in p2.status()] == ["brief.md"]  # p2's edit is still unsaved


def test_save_takes_names_literally_and_refuses_unknown_and_ignored_files(project: ProjectRepository) -> None:
    root = project.root
    (root / "brief.md").write_text("# edited\n")
    (root / "extra.md").write_text("new\n")
    (root / "runs").mkdir()
    (root / "runs" / "out.txt").write_text("run output\n")
    before = snapshot(root)
    with pytest.raises(HistoryError, match=r"no file '\*.md' in the project folder"):
        project.commit("Glob", paths=["*.md"])
    with pytest.raises(HistoryError, match="no file 'missing.md'"):
        project.commit("Missing", paths=["missing.md"])
    with pytest.raises(HistoryError, match=r"could not stage the files \(The following paths are ignored .*runs"):
        project.commit("Ignored", paths=["runs/out.txt"])
    with pytest.raises(HistoryError, match="nothing to save"):
        project.commit("Nothing", paths=[])
    assert snapshot(root) == before


def test_save_during_a_merge_conflict_is_refused_before_anything_is_staged(project: ProjectRepository) -> None:
    root = project.root
    git(root, "switch", "-q", "-c", "other")
    set_weight(root, 7)
    git(root, "commit", "-q", "-am", "Weight 7")
    git(root, "switch", "-q", "main")
    set_weight(root, 9)
    git(root, "commit", "-q", "-am", "Weight 9")
    assert subprocess.run(["git", "merge", "-q", "other"], cwd=root, capture_output=True).returncode != 0
    (root / "brief.md").write_text("# edited during the merge\n")
    assert "<<<<<<<" in (root / RUBRIC).read_text()
    before = snapshot(root)
    assert git(root, "ls-files", "--unmerged")  # the conflict is recorded in the index
    for paths in (None, [RUBRIC], ["brief.md"]):
        with pytest.raises(HistoryError, match=rf"middle of a merge with unresolved conflicts in {RUBRIC}") as caught:
            project.commit("Resolve", paths=paths)
        message = str(caught.value)
        assert "git add FILE" in message and "git merge --abort" in message and "conflict markers" in message
        assert snapshot(root) == before
    assert (root / ".git" / "MERGE_HEAD").exists()
    assert any("middle of a merge" in warning for warning in project.warnings())
    assert [(s.path, s.change) for s in project.status()] == [("brief.md", "modified"), (RUBRIC, "conflict")]


def test_save_during_a_merge_without_conflicts_is_refused(project: ProjectRepository) -> None:
    root = project.root
    git(root, "switch", "-q", "-c", "other")
    (root / "brief.md").write_text("# from other\n")
    git(root, "commit", "-q", "-am", "Brief on other")
    git(root, "switch", "-q", "main")
    set_weight(root, 9)
    git(root, "commit", "-q", "-am", "Weight 9")
    git(root, "merge", "-q", "--no-commit", "--no-ff", "other")
    before = snapshot(root)
    with pytest.raises(HistoryError, match=r"middle of a merge: finish it with `git commit` or undo it"):
        project.commit("Save mid-merge")
    assert snapshot(root) == before


def test_a_refused_commit_leaves_the_index_as_it_was(project: ProjectRepository) -> None:
    root = project.root
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint failed: fix brief.md' >&2\nexit 1\n")
    hook.chmod(0o755)
    (root / "brief.md").write_text("# edited\n")
    (root / "new.md").write_text("brand new\n")
    git(root, "add", "brief.md")  # the user's own staging survives too
    before = snapshot(root)
    with pytest.raises(HistoryError, match=r"git refused the commit \(lint failed: fix brief.md\): nothing was saved"):
        project.commit("Blocked by the hook")
    assert snapshot(root) == before
    assert sorted(p.name for p in (root / ".git").iterdir() if p.name.startswith("index")) == ["index"]


def test_save_while_another_git_command_holds_the_index(project: ProjectRepository) -> None:
    root = project.root
    (root / "brief.md").write_text("# edited\n")
    lock = root / ".git" / "index.lock"
    lock.write_bytes(b"")
    before = snapshot(root)
    with pytest.raises(HistoryError, match="another git command is using this repository"):
        project.commit("Edit")
    assert lock.exists()  # not ours to remove
    lock.unlink()
    assert snapshot(root) == before
    assert project.commit("Edit").files == ("brief.md",)


# -- identity ------------------------------------------------------------------------------------


def test_save_without_identity_is_refused_with_the_commands_to_run(
        project: ProjectRepository, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project.root
    forget_identity(monkeypatch)
    set_weight(root, 8)
    (root / "new.md").write_text("new\n")
    before = snapshot(root)
    with pytest.raises(MissingIdentityError) as caught:
        project.commit("Raise the weight")
    message = str(caught.value)
    assert 'git config --global user.name "Your Name"' in message
    assert 'git config --global user.email "you@example.com"' in message
    assert f'git -C {root} config user.name "Your Name"' in message
    assert message.startswith("git does not know who is saving (no email is set)")
    assert "Nothing was staged or saved" in message
    assert snapshot(root) == before


def test_save_uses_a_project_local_or_environment_identity(
        project: ProjectRepository, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project.root
    forget_identity(monkeypatch)
    git(root, "config", "user.name", "Local Expert")
    git(root, "config", "user.email", "local@example.com")
    set_weight(root, 8)
    assert project.commit("Local identity").author == "Local Expert"
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Env Expert")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "env@example.com")
    set_weight(root, 3)
    assert project.commit("Env identity").author == "Env Expert"


def test_new_without_identity_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forget_identity(monkeypatch)
    with pytest.raises(WorkspaceError, match=r"git does not know who is saving") as caught:
        create_project(tmp_path / "deep" / "er" / "acme", "acme", "Acme", template=SCAFFOLD)
    assert 'git config --global user.email "you@example.com"' in str(caught.value)
    assert "git -C" not in str(caught.value)  # the folder it would name is gone
    assert isinstance(caught.value, StudioError)
    assert not (tmp_path / "deep").exists()

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(WorkspaceError, match="git does not know who is saving"):
        create_project(empty, "acme", "Acme", template=SCAFFOLD)
    assert empty.is_dir() and os.listdir(empty) == []


def test_new_inside_a_repository_without_identity_or_mid_merge_leaves_nothing_behind(
        bench: tuple[Path, ProjectRepository, ProjectRepository], monkeypatch: pytest.MonkeyPatch) -> None:
    outer, p1, p2 = bench
    (outer / "notes.txt").write_text("edited, unsaved\n")
    git(outer, "add", "notes.txt")
    before = snapshot(outer)
    with monkeypatch.context() as patched:
        forget_identity(patched)
        with pytest.raises(WorkspaceError, match="git does not know who is saving"):
            create_project(outer / "projects" / "p3", "p3", "P3", template=SCAFFOLD)
    assert snapshot(outer) == before and not (outer / "projects" / "p3").exists()

    (outer / "MERGE_HEAD").write_text("")  # a stray name in the work tree is not a merge
    (outer / ".git" / "MERGE_HEAD").write_text(git(outer, "rev-parse", "HEAD"))
    (outer / "MERGE_HEAD").unlink()
    before = snapshot(outer)
    with pytest.raises(WorkspaceError, match="middle of a merge"):
        create_project(outer / "projects" / "p3", "p3", "P3", template=SCAFFOLD)
    assert snapshot(outer) == before and not (outer / "projects" / "p3").exists()


# -- detached HEAD ---------------------------------------------------------------------------------


def test_detached_head_is_warned_about(project: ProjectRepository) -> None:
    root = project.root
    assert project.warnings() == []
    head = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "--detach")
    [warning] = project.warnings()
    assert f"HEAD is detached at {head[:8]}" in warning and "git switch -c" in warning
    set_weight(root, 4)
    saved = project.commit("Saved while detached")
    assert saved.sha == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "rev-parse", "main").strip() == head  # the branch did not move: hence the warning
    assert "HEAD is detached" in project.warnings()[0]


# -- diff -----------------------------------------------------------------------------------------


def test_diff_refuses_ids_that_are_paths_and_revisions_that_are_not_one_commit(
        tmp_path: Path, project: ProjectRepository) -> None:
    first = project.history()[0].sha
    for bad in ("..", "../../etc", "T01/../..", "subtasks/T01", ".hidden", "T01 "):
        with pytest.raises(HistoryError, match="is not a subtask or criterion id"):
            diff_object(project, bad, first)
    with pytest.raises(HistoryError, match="is a range of revisions"):
        diff_object(project, "T01", f"{first}..HEAD")
    marker = tmp_path / "written-by-git"
    with pytest.raises(HistoryError, match="unknown revision"):
        diff_object(project, "T01", f"--output={marker}")
    assert not marker.exists()
    with pytest.raises(HistoryError, match="unknown revision"):
        diff_object(project, "T01", "HEAD:project.yaml")  # a file, not a commit


def test_diff_never_reads_an_instruction_outside_the_project(tmp_path: Path, project: ProjectRepository) -> None:
    root = project.root
    (tmp_path / "secret.md").write_text("SECRET OUTSIDE\n")
    first = project.history()[0].sha
    subtask = root / "subtasks/T01/subtask.yaml"
    subtask.write_text(subtask.read_text().replace("instruction: instruction.md", "instruction: ../../../secret.md"))
    assert "../../../secret.md" in subtask.read_text()
    (root / "subtasks/T01/leak.md").symlink_to(tmp_path / "secret.md")
    rendered = diff_object(project, "T01", first).render()
    assert "SECRET" not in rendered
    subtask.write_text(subtask.read_text().replace("../../../secret.md", "leak.md"))
    assert "SECRET" not in diff_object(project, "T01", first).render()


# -- the editor -------------------------------------------------------------------------------------


def test_editor_refuses_names_that_lead_out_of_the_project(tmp_path: Path, project: ProjectRepository) -> None:
    root = project.root
    outside = tmp_path / "outside.md"
    outside.write_text("theirs\n")
    (root / "linked.md").symlink_to(outside)
    editor = ProjectEditor(root)
    for name in ("../outside.md", "linked.md", str(outside)):
        with pytest.raises(OutsideProjectError, match="outside the project folder"):
            editor.write_text(name, "mine\n")
        with pytest.raises(OutsideProjectError):
            editor.read_text(name)
    assert outside.read_text() == "theirs\n"
    with pytest.raises(HistoryError, match="nothing to save"):
        editor.save("Nothing written")


# -- smaller cases ----------------------------------------------------------------------------------


def test_restore_brings_back_the_executable_bit(project: ProjectRepository) -> None:
    root = project.root
    script = root / "scripts" / "feedback.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text("print('feedback')\n")
    script.chmod(0o755)
    executable = project.commit("Add a feedback script").sha
    script.chmod(0o644)
    script.write_text("print('changed')\n")
    project.commit("Change the script, no longer executable")
    script.unlink()
    result = project.restore("scripts", executable)
    assert "scripts/feedback.py" in result.written
    assert script.read_text() == "print('feedback')\n"
    assert os.access(script, os.X_OK)
    project.restore("scripts/feedback.py", "HEAD")
    assert script.read_text() == "print('changed')\n" and not os.access(script, os.X_OK)


def test_history_of_another_projects_file_is_refused(
        bench: tuple[Path, ProjectRepository, ProjectRepository]) -> None:
    outer, p1, p2 = bench
    with pytest.raises(HistoryError, match="is outside the project folder"):
        p1.history("../p2/brief.md")
    assert [r.files for r in p1.history("brief.md")] == [p1.history()[-1].files]


def test_absolute_names_inside_the_project_are_accepted_even_through_a_linked_folder(
        tmp_path: Path, project: ProjectRepository) -> None:
    link = tmp_path / "shortcut"
    link.symlink_to(project.root)
    (project.root / "brief.md").write_text("# edited\n")
    revision = project.commit("Through the shortcut", paths=[str(link / "brief.md")])
    assert revision.files == ("brief.md",)


def test_workspace_sample_without_identity_leaves_no_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forget_identity(monkeypatch)
    with pytest.raises(WorkspaceError, match="git config --global user.name"):
        ensure_workspace_sample(tmp_path / "ws")
    assert not (tmp_path / "ws").exists()


def test_new_under_a_file_is_refused_with_a_message(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder\n")
    with pytest.raises(WorkspaceError, match=r"was not created: .*check the folder's permissions"):
        create_project(blocker / "acme", "acme", "Acme", template=SCAFFOLD)
    assert blocker.read_text() == "a file, not a folder\n"
    assert sorted(os.listdir(tmp_path)) == ["home", "notes.txt"]
