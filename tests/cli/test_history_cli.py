"""`dbstudio new|status|save|history|diff|restore` on real repositories, through the command line.

Success paths check what is printed against git itself; every refusal checks the exit code, a
message saying what to do, no traceback, and the repository left as it was.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from studio.cli.main import main
from tests.helpers import files_of, git, isolate_git

RUBRIC = "subtasks/T01/rubric.yaml"
IDENTITY = {"GIT_AUTHOR_NAME": "Cli Author", "GIT_AUTHOR_EMAIL": "cli@example.com",
            "GIT_COMMITTER_NAME": "Cli Author", "GIT_COMMITTER_EMAIL": "cli@example.com"}


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user or system git configuration; the identity comes from the environment only."""
    isolate_git(tmp_path / "home", monkeypatch, "Cli Author", "cli@example.com")


def snapshot(worktree: Path) -> dict[str, object]:
    return {
        "status": git(worktree, "status", "--porcelain=v1", "-z", "--untracked-files=all"),
        "index": git(worktree, "ls-files", "--stage", "-z"),
        "head": git(worktree, "rev-parse", "HEAD"),
        "files": files_of(worktree),
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def set_weight(root: Path, old: int, new: int) -> None:
    path = root / RUBRIC
    text = path.read_text()
    assert f"weight: {old}" in text
    path.write_text(text.replace(f"weight: {old}", f"weight: {new}", 1))


@pytest.fixture
def acme(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = tmp_path / "acme"
    code, out, err = run(capsys, "new", str(root), "--id", "acme-audit", "--title", "Acme IT audit", "--template", "finance-transaction")
    assert (code, err) == (0, "")
    assert out.startswith(f"created {root} ({git(root, 'rev-parse', 'HEAD')[:8]})")
    return root


def test_new_status_save_history_diff_restore(acme: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = acme
    first = git(root, "rev-parse", "HEAD").strip()
    original_rubric = (root / RUBRIC).read_bytes()
    assert run(capsys, "status", str(root)) == (0, "no unsaved changes\n", "")

    set_weight(root, 5, 8)
    (root / "notes.md").write_text("new notes\n")
    code, out, err = run(capsys, "status", str(root))
    assert (code, err) == (0, "")
    assert out.splitlines() == ["untracked notes.md", f"modified  {RUBRIC}"]

    code, out, err = run(capsys, "save", str(root), RUBRIC, "-m", "Raise the weight of T01-C01")
    second = git(root, "rev-parse", "HEAD").strip()
    assert (code, out, err) == (0, f"saved {second[:8]}: Raise the weight of T01-C01\n", "")
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == [RUBRIC]
    assert run(capsys, "status", str(root))[1] == "untracked notes.md\n"

    code, out, err = run(capsys, "history", str(root))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line[:8] for line in lines] == [second[:8], first[:8]]
    assert "Cli Author" in lines[0] and lines[0].endswith("Raise the weight of T01-C01")
    assert lines[1].endswith("Create project acme-audit from template finance-transaction")
    code, out, _ = run(capsys, "history", str(root), "--json", "--file", "notes.md")
    assert (code, json.loads(out)) == (0, [])
    code, out, _ = run(capsys, "history", str(root), "--json", "-n", "1")
    [entry] = json.loads(out)
    assert (entry["sha"], entry["files"], entry["author"]) == (second, [RUBRIC], "Cli Author")

    code, out, err = run(capsys, "diff", str(root), "T01-C01", first, second)
    assert (code, err) == (0, "")
    assert out.splitlines() == [f"criterion T01-C01 ({RUBRIC})", "  weight: 5 -> 8"]

    code, out, err = run(capsys, "restore", str(root), RUBRIC, first)
    assert (code, err) == (0, "")
    assert out == f"restored {RUBRIC} as of {first[:8]} (not saved yet: run `dbstudio save`)\n"
    assert (root / RUBRIC).read_bytes() == original_rubric

    # A folder: every file it held comes back; nothing unsaved is removed.
    git(root, "checkout", "-q", "--", RUBRIC)
    for path in sorted((root / "subtasks/T01").iterdir()):
        path.unlink()
    (root / "subtasks/T01/scratch.md").write_text("mine\n")
    code, out, err = run(capsys, "restore", str(root), "subtasks/T01", "HEAD")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"restored subtasks/T01 as of {second[:8]} (not saved yet: run `dbstudio save`)",
        "  written  subtasks/T01/instruction.md",
        f"  written  {RUBRIC}",
        "  written  subtasks/T01/subtask.yaml",
        "  kept     subtasks/T01/scratch.md (not at that revision, but has unsaved changes)",
    ]
    assert git(root, "status", "--porcelain", "--untracked-files=all").splitlines() == [
        "?? notes.md", "?? subtasks/T01/scratch.md"]


def test_a_real_dbstudio_process(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("dbstudio")
    assert script.is_file(), "the package must be installed (pip install -e .) so that dbstudio exists"
    env = {key: value for key, value in os.environ.items() if key not in IDENTITY}

    def dbstudio(*argv: str, identity: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(script), *argv], capture_output=True, text=True, timeout=120,
                              env={**env, **IDENTITY} if identity else env)

    root = tmp_path / "proc"
    refused = dbstudio("new", str(root), "--id", "proc", "--title", "Proc", "--template", "finance-transaction", identity=False)
    assert refused.returncode == 2 and refused.stdout == ""
    assert 'git config --global user.name "Your Name"' in refused.stderr and "Traceback" not in refused.stderr
    assert not root.exists()

    created = dbstudio("new", str(root), "--id", "proc", "--title", "Proc", "--template", "finance-transaction")
    assert created.returncode == 0, created.stderr
    (root / "brief.md").write_text("# Brief\n\nRewritten in a real process.\n")
    before = snapshot(root)
    refused = dbstudio("save", str(root), "-m", "No author", identity=False)
    assert refused.returncode == 2 and "git does not know who is saving" in refused.stderr
    assert "Traceback" not in refused.stderr and snapshot(root) == before
    saved = dbstudio("save", str(root), "-m", "Rewrite the brief")
    assert (saved.returncode, saved.stderr) == (0, "")
    assert saved.stdout == f"saved {git(root, 'rev-parse', 'HEAD')[:8]}: Rewrite the brief\n"
    history = dbstudio("history", str(root))
    assert [line.split()[-3:] for line in history.stdout.splitlines()][0] == ["Rewrite", "the", "brief"]


# -- refusals: exit code, message, repository untouched -------------------------------------------------


def _folder_where_a_file_is(root: Path) -> list[str]:
    first = git(root, "rev-parse", "HEAD").strip()
    git(root, "rm", "-q", "-r", "subtasks/T01")
    (root / "subtasks").mkdir(exist_ok=True)
    (root / "subtasks/T01").write_text("a file in the way\n")
    return ["restore", str(root), "subtasks/T01", first]


def _file_where_a_folder_is(root: Path) -> list[str]:
    (root / "brief.md").unlink()
    (root / "brief.md").mkdir()
    (root / "brief.md" / "mine.md").write_text("mine\n")
    return ["restore", str(root), "brief.md", "HEAD"]


def _committed_symlink(root: Path) -> list[str]:
    (root.parent / "outside.md").write_text("not the project's\n")
    (root / "brief.md").unlink()
    (root / "brief.md").symlink_to(Path("..") / "outside.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Link the brief")
    linked = git(root, "rev-parse", "HEAD").strip()
    (root / "brief.md").unlink()
    (root / "brief.md").write_text("# Brief\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "A real brief")
    return ["restore", str(root), "brief.md", linked]


def _symlinked_folder(root: Path) -> list[str]:
    first = git(root, "rev-parse", "HEAD").strip()
    elsewhere = root.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "rubric.yaml").write_text("criteria: []\n")
    git(root, "rm", "-q", "-r", "final")
    (root / "final").symlink_to(elsewhere)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "final links elsewhere")
    return ["restore", str(root), "final/rubric.yaml", first]


def _merge_conflict(root: Path) -> list[str]:
    git(root, "switch", "-q", "-c", "other")
    set_weight(root, 5, 7)
    git(root, "commit", "-q", "-am", "Weight 7")
    git(root, "switch", "-q", "main")
    set_weight(root, 5, 9)
    git(root, "commit", "-q", "-am", "Weight 9")
    assert subprocess.run(["git", "merge", "-q", "other"], cwd=root, capture_output=True).returncode == 1
    return ["save", str(root), "-m", "Resolve"]


def _dotdot_id(root: Path) -> list[str]:
    return ["diff", str(root), "../../etc", "HEAD"]


def _range_revision(root: Path) -> list[str]:
    return ["diff", str(root), "T01", "HEAD~1..HEAD"]


def _unknown_path(root: Path) -> list[str]:
    return ["restore", str(root), "subtasks/T09", "HEAD"]


def _outside_path(root: Path) -> list[str]:
    return ["restore", str(root), "../elsewhere.md", "HEAD"]


def _hook_refuses(root: Path) -> list[str]:
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'spelling check failed' >&2\nexit 1\n")
    hook.chmod(0o755)
    (root / "brief.md").write_text("# Brief, edited\n")
    (root / "added.md").write_text("added\n")
    return ["save", str(root), "-m", "Blocked"]


REFUSALS: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "restore folder over a file": (_folder_where_a_file_is, "'subtasks/T01' is a file now but was a folder"),
    "restore file over a folder": (_file_where_a_folder_is, "'brief.md' is a folder now but was a file"),
    "restore a committed symlink": (_committed_symlink, "symbolic links or submodules at revision"),
    "restore through a symlinked folder": (_symlinked_folder, "'final' is a symbolic link: restore does not"),
    "save during a merge conflict": (_merge_conflict, f"unresolved conflicts in {RUBRIC}: edit those files"),
    "diff an id with ..": (_dotdot_id, "'../../etc' is not a subtask or criterion id"),
    "diff a range": (_range_revision, "is a range of revisions: give one revision"),
    "restore what never existed": (_unknown_path, "'subtasks/T09' does not exist at revision"),
    "restore outside the project": (_outside_path, "is outside the project folder"),
    "save refused by a hook": (_hook_refuses, r"git refused the commit \(spelling check failed\)"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_leave_the_repository_untouched(acme: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    prepare, expected = REFUSALS[case]
    argv = prepare(acme)
    outside = {p.name: p.read_bytes() for p in acme.parent.rglob("*") if p.is_file() and acme not in p.parents}
    before = snapshot(acme)
    code, out, err = run(capsys, *argv)
    assert code in (1, 2) and out == ""
    assert err.startswith(f"dbstudio {argv[0]}: ") and err.count("\n") >= 1
    assert re.search(expected, err), err
    assert "Traceback" not in err
    assert snapshot(acme) == before
    assert {p.name: p.read_bytes() for p in acme.parent.rglob("*") if p.is_file() and acme not in p.parents} == outside


def test_save_of_another_projects_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outer = tmp_path / "bench"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    for name in ("p1", "p2"):
        assert run(capsys, "new", str(outer / name), "--id", name, "--title", name.upper(), "--template", "finance-transaction")[0] == 0
    (outer / "p2" / "brief.md").write_text("# p2, edited\n")
    (outer / "p1" / "brief.md").write_text("# p1, edited\n")
    before = snapshot(outer)
    code, out, err = run(capsys, "save", str(outer / "p1"), "../p2/brief.md", "-m", "Sneak")
    assert (code, out) == (2, "")
    assert "'../p2/brief.md' is outside the project folder" in err and "relative to the project folder" in err
    assert snapshot(outer) == before
    code, out, err = run(capsys, "save", str(outer / "p1"), "brief.md", "-m", "Edit p1's brief")
    assert (code, err) == (0, "")
    assert out == f"saved {git(outer, 'rev-parse', 'HEAD')[:8]}: Edit p1's brief\n"
    assert git(outer, "show", "--name-only", "--format=", "HEAD").split() == ["p1/brief.md"]


def test_without_identity_save_and_new_are_refused_and_leave_nothing(
        acme: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in IDENTITY:
        monkeypatch.delenv(name)
    set_weight(acme, 5, 6)
    (acme / "new.md").write_text("new\n")
    before = snapshot(acme)
    code, out, err = run(capsys, "save", str(acme), "-m", "No author")
    assert (code, out) == (2, "")
    assert 'git config --global user.name "Your Name"' in err and 'git config --global user.email' in err
    assert f"git -C {acme} config user.name" in err
    assert snapshot(acme) == before

    target = acme.parent / "fresh" / "project"
    code, out, err = run(capsys, "new", str(target), "--id", "fresh", "--title", "Fresh", "--template", "finance-transaction")
    assert (code, out) == (2, "")
    assert "git does not know who is saving" in err and "was not created" in err
    assert not (acme.parent / "fresh").exists()


def test_detached_head_is_warned_about_by_status_and_save(acme: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(acme, "checkout", "-q", "--detach")
    head = git(acme, "rev-parse", "HEAD").strip()
    code, out, err = run(capsys, "status", str(acme))
    assert (code, out) == (0, "no unsaved changes\n")
    assert err.startswith(f"dbstudio status: warning: HEAD is detached at {head[:8]}") and "git switch -c" in err
    set_weight(acme, 5, 4)
    code, out, err = run(capsys, "save", str(acme), "-m", "Detached save")
    assert code == 0 and out == f"saved {git(acme, 'rev-parse', 'HEAD')[:8]}: Detached save\n"
    assert "dbstudio save: warning: HEAD is detached" in err
    assert git(acme, "rev-parse", "main").strip() == head


def test_save_takes_its_files_after_the_message_too(acme: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`save P -m MSG FILE` (options before the files) commits just that file, as `save P FILE -m MSG` does."""
    set_weight(acme, 5, 7)
    (acme / "notes.md").write_text("not to be saved\n")
    code, out, err = run(capsys, "save", str(acme), "-m", "Weight 7", RUBRIC)
    assert (code, err) == (0, "")
    assert out.startswith("saved ") and out.endswith(": Weight 7\n")
    assert git(acme, "show", "--name-only", "--format=", "HEAD").split() == [RUBRIC]
    assert run(capsys, "status", str(acme))[1] == "untracked notes.md\n"
