"""Is this a project folder: one rule (layout.not_a_project / project_folder), and every shell
that is handed a folder says why not in its words."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.review import review_project
from studio.store import layout
from studio.store.layout import NotAProjectError, not_a_project, project_folder
from studio.store.workspace import sample_project
from studio.validation import validate_project


def test_a_folder_with_a_project_yaml_is_a_project_folder(tmp_path: Path):
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    assert not_a_project(root) is None and project_folder(root) == root


def test_why_a_path_is_no_project_folder_names_it_and_the_fix(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    cases = {tmp_path / "nowhere": "no such folder", tmp_path / "notes.txt": "not a folder",
             tmp_path: "not a project folder (it has no project.yaml)"}
    for path, why in cases.items():
        message = not_a_project(path) or ""
        assert message.startswith(f"{path}: {why}") and layout.PROJECT_FILE in message
        with pytest.raises(NotAProjectError) as refused:
            project_folder(path)
        assert str(refused.value) == message
    assert "File > New" in (not_a_project(tmp_path) or "")  # the way to make one, for a new user


@pytest.mark.parametrize("command", ["exposure", "impact"])
def test_the_cli_says_the_rules_words(tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]):
    missing = tmp_path / "nowhere"
    argv = [command, str(missing)] + (["--changed", "M01"] if command == "impact" else [])
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"dbstudio {command}: {not_a_project(missing)}"


def test_validation_and_review_raise_the_rules_words(tmp_path: Path):
    for check in (validate_project, review_project):
        with pytest.raises(NotAProjectError) as refused:
            check(tmp_path)
        assert str(refused.value) == not_a_project(tmp_path)
