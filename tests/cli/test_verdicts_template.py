"""`dbstudio verdicts template PROJECT --system NAME... OUT`: a blank verdict table for a copy of
the sample, one row per system and criterion, every interchange column filled from the project."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import openpyxl
import pytest

from studio.cli.main import main
from studio.store.loader import load_project
from studio.store.workspace import sample_project

PROJECT_ID = "kestrel-refinancing"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path_factory.mktemp("sample") / PROJECT_ID))


def criteria_of(project: Path) -> list[tuple[str, str]]:
    """(scope, id) of every criterion, checkpoint rubrics along the timeline, then the final one."""
    model = load_project(project).project
    pairs = [(sid, c.key) for sid in model.timeline() for c in model.checkpoint_rubrics[sid].criteria]
    return pairs + [("final", c.key) for c in model.final_rubric.criteria]


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def test_csv_has_one_row_per_system_and_criterion_with_every_column_filled(project: Path, tmp_path: Path):
    out = tmp_path / "verdicts.csv"
    assert main(["verdicts", "template", str(project), str(out), "--system", "alpha", "--system", "beta"]) == 0
    rows = read_csv(out)
    expected = criteria_of(project)
    assert len(expected) == 99
    assert [(r["system"], r["scope"], r["criterion"]) for r in rows] == \
        [(system, scope, cid) for system in ("alpha", "beta") for scope, cid in expected]
    assert {r["project"] for r in rows} == {PROJECT_ID}
    assert all(r["verdict"] == "" for r in rows)
    assert all(r["weight"] and r["target"] and r["dimension"] and r["text"] for r in rows)
    by_key = {(r["system"], r["scope"], r["criterion"]): r for r in rows}
    # a reused criterion: target artifact, its original's weight and dimension
    reused = by_key[("alpha", "final", "T06-C02")]
    assert (reused["weight"], reused["target"], reused["dimension"]) == ("9", "artifact", "correctness")
    assert by_key[("alpha", "T06", "T06-C02")]["target"] == "checkpoint"
    gate = by_key[("beta", "final", "P-03")]
    assert (gate["weight"], gate["gate"]) == ("0", "true")
    assert by_key[("alpha", "final", "X-06")]["requires"] == "T06-C07"
    assert by_key[("alpha", "T06", "T06-C03")]["requires"] == "T06-C02"


def test_the_blank_table_fits_the_project_and_every_score_is_a_range(project: Path, tmp_path: Path, capsys):
    out = tmp_path / "blank.csv"
    assert main(["verdicts", "template", str(project), str(out), "--system", "alpha"]) == 0
    capsys.readouterr()
    assert main(["score", str(out), "--project", str(project), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    alpha = data["projects"][PROJECT_ID]["alpha"]
    assert alpha["missing"] == 99 and alpha["absent"] == []
    assert alpha["final"] is None and alpha["final_range"] == [0.0, 100.0]


def test_xlsx_has_a_pass_fail_drop_down_on_every_verdict_cell(project: Path, tmp_path: Path, capsys):
    out = tmp_path / "verdicts.xlsx"
    assert main(["verdicts", "template", str(project), str(out), "--system", "alpha", "--system", "beta"]) == 0
    sheet = openpyxl.load_workbook(out).active
    header = [cell.value for cell in sheet[1]]
    assert header[:10] == ["project", "system", "scope", "criterion", "weight", "target", "dimension", "verdict",
                           "gate", "requires"]
    assert sheet.max_row == 1 + 2 * 99
    letter = openpyxl.utils.get_column_letter(header.index("verdict") + 1)
    lists = [v for v in sheet.data_validations.dataValidation if v.type == "list"]
    assert len(lists) == 1 and lists[0].formula1 == '"pass,fail"' and lists[0].allow_blank
    assert str(lists[0].sqref) == f"{letter}2:{letter}{sheet.max_row}"
    assert isinstance(sheet.cell(2, header.index("weight") + 1).value, int)
    # Filled in as a spreadsheet user would, it scores like the same verdicts in a CSV.
    verdict_column = header.index("verdict") + 1
    for row in range(2, sheet.max_row + 1):
        weight = sheet.cell(row, header.index("weight") + 1).value
        sheet.cell(row, verdict_column).value = "pass" if weight > 0 else "fail"
    workbook = sheet.parent
    workbook.save(out)
    capsys.readouterr()
    assert main(["score", str(out), "--project", str(project), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["projects"][PROJECT_ID]["beta"]["final"] == 100.0 and data["missing"] == 0


def test_text_that_looks_like_a_formula_stays_text(project: Path, tmp_path: Path):
    copy = Path(shutil.copytree(project, tmp_path / "copy"))
    rubric = copy / "subtasks" / "T01" / "rubric.yaml"
    text = rubric.read_text(encoding="utf-8")
    rubric.write_text(text.replace("text: The baseline workbook", "text: =SUM(A1) The baseline workbook", 1),
                      encoding="utf-8")
    out = tmp_path / "verdicts.xlsx"
    assert main(["verdicts", "template", str(copy), str(out), "--system", "alpha"]) == 0
    sheet = openpyxl.load_workbook(out).active
    cell = sheet.cell(2, 11)
    assert cell.value.startswith("=SUM(A1) The baseline") and cell.data_type == "s" and cell.quotePrefix


def test_systems_may_follow_one_option_and_the_file_name_may_come_last(project: Path, tmp_path: Path):
    out = tmp_path / "verdicts.csv"
    assert main(["verdicts", "template", str(project), "--system", "alpha", "beta", str(out)]) == 0
    assert [r["system"] for r in read_csv(out)] == ["alpha"] * 99 + ["beta"] * 99


def test_an_existing_file_is_kept_unless_forced(project: Path, tmp_path: Path, capsys):
    out = tmp_path / "verdicts.csv"
    out.write_text("verdicts someone typed\n", encoding="utf-8")
    assert main(["verdicts", "template", str(project), str(out), "--system", "alpha"]) == 2
    assert "exists (it may hold verdicts)" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "verdicts someone typed\n"
    assert main(["verdicts", "template", str(project), str(out), "--system", "alpha", "--force"]) == 0
    assert len(read_csv(out)) == 99


@pytest.mark.parametrize(("args", "message"), [
    (["OUT.txt", "--system", "a"], "ending in .csv or .xlsx"),
    (["OUT.csv", "--system", "a", "--system", "a"], "--system a is given more than once"),
    (["OUT.csv", "--system", " "], "--system needs a name"),
    (["missing-folder/OUT.csv", "--system", "a"], "does not exist"),
])
def test_bad_arguments_are_unusable_and_write_nothing(project: Path, tmp_path: Path, capsys, args, message):
    args = [str(tmp_path / a) if a.startswith(("OUT", "missing")) else a for a in args]
    assert main(["verdicts", "template", str(project), *args]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_system_is_required_and_the_folder_must_be_a_project(tmp_path: Path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["verdicts", "template", str(tmp_path), str(tmp_path / "out.csv")])
    assert exit_.value.code == 2
    assert main(["verdicts", "template", str(tmp_path), "--system", "a", "b"]) == 2
    assert "give the table to write" in capsys.readouterr().err
    assert main(["verdicts", "template", str(tmp_path), str(tmp_path / "out.csv"), "--system", "a"]) == 2
    assert "not a project folder" in capsys.readouterr().err
