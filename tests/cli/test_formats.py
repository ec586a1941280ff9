"""`--format text|json` on every command with a machine-readable output; `--json` is the same as `--format json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.store.workspace import create_project
from tests.helpers import REPO_ROOT, SCAFFOLD, replace_in

SAMPLE = REPO_ROOT / "projects" / "kestrel-refinancing"

VERDICTS = ("system,project,scope,criterion,weight,target,dimension,verdict\n"
            "A,P1,T01,C1,5,checkpoint,correctness,pass\n"
            "A,P1,T01,C2,5,checkpoint,completeness,fail\n"
            "A,P1,final,F1,4,artifact,correctness,pass\n")
RATINGS = ("criterion,item,rater,verdict\n"
           "C1,run-1,judge,pass\nC1,run-1,alice,pass\n"
           "C2,run-1,judge,pass\nC2,run-1,alice,fail\n"
           "C1,run-2,judge,fail\nC1,run-2,alice,fail\n")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def json_and_alias(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    """The command's JSON output, after checking `--json` prints exactly the same and exits the same."""
    code, out, _ = run(capsys, *argv, "--format", "json")
    alias_code, alias_out, _ = run(capsys, *argv, "--json")
    assert (alias_code, alias_out) == (code, out)
    return code, json.loads(out)


def test_validate(blank_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_in(blank_project, "subtasks/T01/rubric.yaml", "weight: 5", "weight: 42")
    code, data = json_and_alias(capsys, "validate", str(blank_project))
    assert code == 1 and data["project"] == str(blank_project)
    assert [f["file"] for f in data["findings"]] == ["subtasks/T01/rubric.yaml"]
    text_code, text, _ = run(capsys, "validate", str(blank_project), "--format", "text")
    assert text_code == 1 and text.startswith("subtasks/T01/rubric.yaml:")


def test_review_and_impact(capsys: pytest.CaptureFixture[str]) -> None:
    code, review = json_and_alias(capsys, "review", str(SAMPLE))
    assert code == 0 and isinstance(review, dict) and "findings" in review
    code, impact = json_and_alias(capsys, "impact", str(SAMPLE), "--changed", "M02")
    assert code == 0 and isinstance(impact, dict) and impact


def test_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "verdicts.csv"
    table.write_text(VERDICTS, encoding="utf-8")
    code, data = json_and_alias(capsys, "score", str(table))
    assert code == 0 and data["projects"]["P1"]["A"]["checkpoints"] == {"T01": 50.0}
    text_code, text, _ = run(capsys, "score", str(table))
    assert text_code == 0 and not text.lstrip().startswith("{")


def test_agreement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "ratings.csv"
    table.write_text(RATINGS, encoding="utf-8")
    code, data = json_and_alias(capsys, "agreement", str(table))
    assert code == 0 and (data["pooled"]["n"], data["pooled"]["agree"]) == (3, 2)


def test_history_and_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = create_project(tmp_path / "acme", "acme-audit", "Acme IT audit", template=SCAFFOLD).root
    code, revisions = json_and_alias(capsys, "history", str(root))
    assert code == 0 and len(revisions) == 1 and "project.yaml" in revisions[0]["files"]
    code, changes = json_and_alias(capsys, "status", str(root))
    assert (code, changes) == (0, [])
    replace_in(root, "project.yaml", "Acme IT audit", "Acme IT audit 2026")
    code, changes = json_and_alias(capsys, "status", str(root))
    assert (code, changes) == (0, [{"path": "project.yaml", "change": "modified"}])
    text_code, text, _ = run(capsys, "status", str(root))
    assert text_code == 0 and text.split() == ["modified", "project.yaml"]


def test_the_last_format_option_wins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "verdicts.csv"
    table.write_text(VERDICTS, encoding="utf-8")
    code, out, _ = run(capsys, "score", str(table), "--json", "--format", "text")
    assert code == 0 and not out.lstrip().startswith("{")
