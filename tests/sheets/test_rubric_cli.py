"""`dbstudio rubric export|import` through the installed entry point and through main()."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from openpyxl.worksheet.worksheet import Worksheet

from studio.cli.main import main
from studio.store.loader import load_project
from tests.sheets.conftest import T01, cell, edit_sheet, file_hashes, put, row_of

DBSTUDIO = Path(sys.executable).parent / "dbstudio"


def _dbstudio(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DBSTUDIO), *args], capture_output=True, text=True, check=False, timeout=120)


def _edit(sheet: Worksheet) -> None:
    put(sheet, cell(sheet, "T01", "T01-C02", "weight"), -7)
    sheet.delete_rows(row_of(sheet, "T01", "T01-C06"))


def test_export_then_dry_run_then_import_through_the_installed_command(sample: Path, tmp_path: Path):
    out = tmp_path / "rubrics.xlsx"
    exported = _dbstudio("rubric", "export", str(sample), str(out))
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.strip() == f"wrote 99 criteria to {out}"
    edit_sheet(out, _edit)
    before = file_hashes(sample)

    dry = _dbstudio("rubric", "import", str(sample), str(out), "--dry-run", "--format", "json")
    assert dry.returncode == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert report["applied"] is False and report["errors"] == []
    assert report["diff"]["changed"] == [{"rubric": "T01", "criterion": "T01-C02", "field": "weight", "old": -6,
                                          "new": -7, "cell": "Rubrics!G3"}]
    removed_text = next(c.text for c in load_project(sample).project.checkpoint_rubrics["T01"].criteria
                        if c.id == "T01-C06")
    assert report["diff"]["removed"] == [{"rubric": "T01", "criterion": "T01-C06", "reused": False,
                                          "text": removed_text}]
    assert file_hashes(sample) == before

    applied = _dbstudio("rubric", "import", str(sample), str(out))
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout.splitlines() == ["~ T01 T01-C02 weight: -6 -> -7", f"- T01 T01-C06: {removed_text}"]
    assert "1 field changed, 0 criteria added, 1 removed" in applied.stderr
    assert f"wrote {T01}" in applied.stderr
    after = file_hashes(sample)
    assert {rel for rel in before if before[rel] != after[rel]} == {T01}
    text = (sample / T01).read_text(encoding="utf-8")
    assert "weight: -7" in text and "T01-C06" not in text

    again = _dbstudio("rubric", "import", str(sample), str(out))
    assert again.returncode == 0 and again.stdout == ""
    assert "nothing to change" in again.stderr and file_hashes(sample) == after


def test_an_import_that_leaves_findings_prints_them_and_exits_1(sample: Path, exported: Path,
                                                                capsys: pytest.CaptureFixture[str]):
    edit_sheet(exported, lambda sheet: put(sheet, cell(sheet, "T01", "T01-C01", "reviewer"), None))
    assert main(["rubric", "import", str(sample), str(exported), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["applied"] is True and report["written"] == [T01]
    assert [f["file"] for f in report["findings"]] == [T01]
    assert "reviewer" in report["findings"][0]["message"]


def test_usage_mistakes_exit_2_and_write_nothing(sample: Path, exported: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]):
    before = file_hashes(sample)
    assert main(["rubric", "export", str(sample), str(tmp_path / "x.xlsx"), "--dry-run"]) == 2
    assert main(["rubric", "export", str(sample), str(tmp_path / "x.csv")]) == 2
    assert main(["rubric", "export", str(sample), str(tmp_path / "no" / "such" / "x.xlsx")]) == 2
    assert main(["rubric", "import", str(tmp_path), str(exported)]) == 2
    assert main(["rubric", "import", str(sample), str(tmp_path / "missing.xlsx")]) == 2
    err = capsys.readouterr().err
    assert "--dry-run is for import only" in err and "ending in .xlsx" in err and "does not exist" in err
    assert "not a project folder" in err and "no such file" in err and "Traceback" not in err
    assert file_hashes(sample) == before and not (tmp_path / "x.xlsx").exists()
