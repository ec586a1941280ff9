"""`dbstudio new --template NAME` for every bundled template, `--list-templates`, and an unknown name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.store.workspace import project_templates, templates
from tests.helpers import git, isolate_git, run_cli


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_git(tmp_path / "home", monkeypatch, "Cli Author", "cli@example.com")


def test_list_templates_names_each_with_its_description_blank_first(capsys: pytest.CaptureFixture[str]):
    code, out, err = run_cli(capsys, "new", "--list-templates")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == templates()
    assert lines[0].split()[:2] == ["blank", "(default)"]
    for line, template in zip(lines, project_templates(), strict=True):
        assert line.endswith(template.description)


@pytest.mark.parametrize("name", templates())
def test_new_from_each_template_then_validate_and_review(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         name: str):
    root = tmp_path / "engagement"
    code, out, err = run_cli(capsys, "new", str(root), "--id", "acme-engagement", "--title", "Acme engagement",
                             "--template", name, "--domain", "Consulting")
    assert (code, err) == (0, "")
    assert out.startswith(f"created {root} (")
    assert git(root, "log", "--format=%s") == f"Create project acme-engagement from template {name}\n"
    assert git(root, "status", "--porcelain") == ""
    assert "template.yaml" not in git(root, "ls-files")
    code, out, _ = run_cli(capsys, "validate", str(root))
    assert code == 0 and out.startswith("OK: ")
    code, out, _ = run_cli(capsys, "review", str(root), "--format", "json")
    findings = json.loads(out)["findings"]
    assert code == 0
    assert [f for f in findings if f["severity"] == "error"] == []


def test_without_a_template_new_makes_the_blank_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    root = tmp_path / "plain"
    assert run_cli(capsys, "new", str(root), "--id", "plain", "--title", "Plain")[0] == 0
    assert run_cli(capsys, "validate", str(root))[1] == "OK: 1 subtask, 3 criteria\n"
    assert not (root / "materials").exists()


def test_an_unknown_template_is_one_line_listing_the_available_ones(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]):
    code, out, err = run_cli(capsys, "new", str(tmp_path / "x"), "--id", "x", "--title", "X", "--template", "tax")
    assert (code, out) == (2, "")
    assert err == f"dbstudio new: no project template 'tax' (available: {', '.join(templates())})\n"
    assert not (tmp_path / "x").exists()


def test_new_without_its_folder_id_or_title_says_what_to_give(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    code, out, err = run_cli(capsys, "new", str(tmp_path / "x"), "--title", "X")
    assert (code, out) == (2, "")
    assert err.startswith("dbstudio new: give --id, e.g. dbstudio new ") and err.count("\n") == 1
    code, _, err = run_cli(capsys, "new")
    assert code == 2 and err.startswith("dbstudio new: give PATH, --id, --title, e.g.")
    assert not (tmp_path / "x").exists()
