"""`dbstudio score TABLE --project PROJECT` on a copy of the sample: the table is checked against
the project's rubrics, a dropped row is a missing verdict (never a smaller rubric), a weight typo
is an error even when every system repeats it, and a missing verdict gives a range, not a blank.

The tables are made by `dbstudio verdicts template` and filled in here; the expected scores are
worked out by hand from the sample's final rubric (W+ = 143).
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import openpyxl
import pytest

from studio.cli.main import main
from studio.store.workspace import sample_project

PROJECT_ID = "kestrel-refinancing"
# The sample's final rubric: W+ = 143 (positive weights, reused ones at their original's weight).
FINAL_W_PLUS = 143
# alpha fails and A-04 (4 + 5 + 5) and passes every other positive final criterion:
# credit 143 - 14 = 129 -> 90.21.
ALPHA_FAILS = {"A-02", "A-03", "A-04"}
# beta passes final criteria worth 9 + 8 + 8 + 7 + 8 + 7 + 4 = 51 and leaves A-06 (3 points) unjudged.
BETA_PASSES = {"T06-C02", "T06-C07", "T07-C01", "T07-C03", "T08-C02", "T09-C02", "P-02"}
BETA_UNJUDGED = "A-06"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path_factory.mktemp("sample") / PROJECT_ID))


def template(project: Path, out: Path, *systems: str) -> Path:
    args = ["verdicts", "template", str(project), str(out)]
    for system in systems:
        args += ["--system", system]
    assert main(args) == 0
    return out


def verdict_for(row: dict[str, str]) -> str:
    """alpha and beta as described at the top; every checkpoint criterion: positives pass."""
    weight, criterion = int(row["weight"]), row["criterion"]
    if row["scope"] != "final":
        return "pass" if weight > 0 else "fail"
    if row["system"] == "alpha":
        return "pass" if weight > 0 and criterion not in ALPHA_FAILS else "fail"
    if criterion == BETA_UNJUDGED:
        return ""
    return "pass" if criterion in BETA_PASSES else "fail"


def filled(project: Path, tmp_path: Path, name: str = "verdicts.csv") -> tuple[Path, list[str], list[dict[str, str]]]:
    """A template for alpha and beta with the verdicts above: (path, header, rows)."""
    path = template(project, tmp_path / name, "alpha", "beta")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        header, rows = list(reader.fieldnames or []), list(reader)
    for row in rows:
        row["verdict"] = verdict_for(row)
    return write(path, header, rows), header, rows


def write(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, header)
        writer.writeheader()
        writer.writerows(rows)
    return path


def score_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict | None, str]:
    status = main(["score", *args, "--format", "json"])
    captured = capsys.readouterr()
    return status, json.loads(captured.out) if status == 0 else None, captured.err


def test_the_filled_template_scores_as_worked_out_by_hand(project: Path, tmp_path: Path, capsys):
    table, _, _ = filled(project, tmp_path)
    status, data, _ = score_json(capsys, str(table), "--project", str(project))
    assert status == 0 and data is not None
    alpha = data["projects"][PROJECT_ID]["alpha"]
    assert alpha["final"] == round(100 * 129 / FINAL_W_PLUS, 4) == 90.2098
    assert alpha["final_range"] == [90.2098, 90.2098] and alpha["absent"] == []
    assert alpha["process"] == 100.0 and alpha["missing"] == 0
    # The same table without --project gives the same scores (nothing is absent).
    status, plain, _ = score_json(capsys, str(table))
    assert plain is not None and plain["projects"][PROJECT_ID]["alpha"]["final"] == alpha["final"]


def test_a_dropped_row_is_a_missing_verdict_not_a_smaller_rubric(project: Path, tmp_path: Path, capsys):
    table, header, rows = filled(project, tmp_path)
    dropped = [r for r in rows if not (r["system"] == "alpha" and r["scope"] == "final" and r["criterion"] == "A-01")]
    assert len(dropped) == len(rows) - 1
    write(table, header, dropped)
    # Without the project the rubric silently shrinks: (129 - 8) / (143 - 8) = 89.63.
    status, plain, _ = score_json(capsys, str(table))
    assert plain is not None and plain["projects"][PROJECT_ID]["alpha"]["final"] == round(100 * 121 / 135, 4)
    # With it, A-01 (weight 8) is a missing verdict: between 121 / 143 and 129 / 143.
    status, data, _ = score_json(capsys, str(table), "--project", str(project))
    assert status == 0 and data is not None
    alpha = data["projects"][PROJECT_ID]["alpha"]
    assert alpha["final"] is None
    assert alpha["final_range"] == [round(100 * 121 / FINAL_W_PLUS, 4), round(100 * 129 / FINAL_W_PLUS, 4)]
    assert alpha["absent"] == ["final/A-01"] and alpha["missing"] == 1
    assert data["systems"]["alpha"]["final_left_out"] == [PROJECT_ID]
    assert data["projects"][PROJECT_ID]["beta"]["absent"] == []
    # The text report says which row is missing.
    assert main(["score", str(table), "--project", str(project)]) == 0
    out = capsys.readouterr().out
    assert f"{PROJECT_ID} alpha: final/A-01" in out
    assert "84.6–90.2" in out


def test_a_single_missing_3_point_verdict_gives_a_range_instead_of_a_blank(project: Path, tmp_path: Path, capsys):
    table, _, _ = filled(project, tmp_path)
    status, data, _ = score_json(capsys, str(table), "--project", str(project))
    assert data is not None
    beta = data["projects"][PROJECT_ID]["beta"]
    # credit 51 or 54 of 143: 35.66 to 37.76
    assert beta["final"] is None and beta["missing"] == 1
    assert beta["final_range"] == [round(100 * 51 / FINAL_W_PLUS, 4), round(100 * 54 / FINAL_W_PLUS, 4)]
    assert beta["process_range"] == [100.0, 100.0] and beta["process"] == 100.0
    assert main(["score", str(table), "--project", str(project)]) == 0
    text = capsys.readouterr().out
    line = next(line for line in text.splitlines() if line.startswith(PROJECT_ID) and " beta " in line)
    assert "35.7–37.8" in line


def test_a_weight_typo_repeated_for_every_system_is_an_error_naming_row_and_column(project: Path, tmp_path: Path,
                                                                                  capsys):
    table, header, rows = filled(project, tmp_path)
    for row in rows:
        if row["criterion"] == "X-03":
            row["weight"] = "7"  # the project's is 6; both systems carry the typo, so they agree
    write(table, header, rows)
    typo_rows = [number for number, row in enumerate(rows, start=2) if row["criterion"] == "X-03"]
    assert len(typo_rows) == 2
    status, plain, _ = score_json(capsys, str(table))
    assert status == 0 and plain is not None  # without the project nothing can tell
    status, data, err = score_json(capsys, str(table), "--project", str(project))
    assert status == 1 and data is None
    for number in typo_rows:
        assert (f"row {number}, column 'weight': weight 7 differs from the project's 6 for X-03 in the final rubric "
                f"of {PROJECT_ID}: write 6") in err
    assert "nothing was scored" in err


def test_every_field_that_differs_from_the_project_is_named(project: Path, tmp_path: Path, capsys):
    table, header, rows = filled(project, tmp_path)
    changes = {("final", "T06-C07", "target"): "cross-file", ("T01", "T01-C01", "dimension"): "usability",
               ("final", "P-03", "gate"): "", ("final", "P-03", "weight"): "3", ("final", "X-06", "requires"): "",
               ("T06", "T06-C03", "requires"): "T06-C02;T06-C04"}
    numbers = {}
    for number, row in enumerate(rows, start=2):
        for (scope, criterion, column), value in changes.items():
            if (row["system"], row["scope"], row["criterion"]) == ("alpha", scope, criterion):
                row[column] = value
                numbers[(criterion, column)] = number
    write(table, header, rows)
    status, _, err = score_json(capsys, str(table), "--project", str(project))
    assert status == 1
    # a gate that lost its gate cell needs a weight: both cells differ from the project
    assert f"row {numbers[('P-03', 'weight')]}, column 'weight': weight 3 differs from the project's 0" in err
    assert f"row {numbers[('T06-C07', 'target')]}, column 'target': target 'cross-file' differs from the project's " \
           f"'artifact' for T06-C07 in the final rubric of {PROJECT_ID} (reused from T06): write artifact, as the " \
           "final rubric judges a reused criterion" in err
    assert f"row {numbers[('T01-C01', 'dimension')]}, column 'dimension'" in err and "write correctness" in err
    assert f"row {numbers[('P-03', 'gate')]}, column 'gate'" in err and "write true: it is a fatal gate" in err
    assert f"row {numbers[('X-06', 'requires')]}, column 'requires'" in err and "write T06-C07" in err
    assert f"row {numbers[('T06-C03', 'requires')]}, column 'requires'" in err
    assert err.count(", column '") == 6


def test_unknown_criteria_scopes_and_projects_are_errors(project: Path, tmp_path: Path, capsys):
    table, header, rows = filled(project, tmp_path)
    rows[0]["criterion"] = "T01-C99"
    rows[1]["scope"] = "T02"  # T01-C02 is a T01 criterion
    rows[2]["scope"] = "T99"
    rows[3]["project"] = "another-project"
    write(table, header, rows)
    status, _, err = score_json(capsys, str(table), "--project", str(project))
    assert status == 1
    assert f"row 2, column 'criterion': criterion T01-C99 is not in the T01 rubric of {PROJECT_ID}" in err
    assert "row 3, column 'criterion'" in err and "it is in the T01 rubric: fix the scope" in err
    assert f"row 4, column 'scope': project {PROJECT_ID} has no rubric 'T99'" in err
    assert "row 5, column 'project': project 'another-project' (1 row) is not a project given with --project" in err


def test_problems_in_an_xlsx_table_name_their_cell(project: Path, tmp_path: Path, capsys):
    sheet_path = template(project, tmp_path / "verdicts.xlsx", "alpha", "beta")
    workbook = openpyxl.load_workbook(sheet_path)
    sheet = workbook.active
    header = [cell.value for cell in sheet[1]]
    weight_column = header.index("weight") + 1
    typo_rows = [row for row in range(2, sheet.max_row + 1) if sheet.cell(row, header.index("criterion") + 1).value
                 == "X-03"]
    for row in typo_rows:
        sheet.cell(row, weight_column).value = 7
    workbook.save(sheet_path)
    status, _, err = score_json(capsys, str(sheet_path), "--project", str(project))
    assert status == 1
    letter = openpyxl.utils.get_column_letter(weight_column)
    for row in typo_rows:
        assert f"row {row}, column 'weight' (cell {letter}{row}): weight 7 differs" in err


def test_a_folder_that_is_no_project_or_does_not_load_is_unusable(project: Path, tmp_path: Path, capsys):
    table, _, _ = filled(project, tmp_path)
    assert main(["score", str(table), "--project", str(tmp_path)]) == 2
    assert "not a project folder" in capsys.readouterr().err
    broken = Path(shutil.copytree(project, tmp_path / "broken"))
    rubric = broken / "subtasks" / "T03" / "rubric.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8").replace("weight: ", "weight: eight # ", 1), encoding="utf-8")
    assert main(["score", str(table), "--project", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "subtasks/T03/rubric.yaml" in err and "fix them first" in err


def test_a_project_without_rows_in_the_table_is_an_error(project: Path, tmp_path: Path, capsys):
    table, header, rows = filled(project, tmp_path)
    other = Path(shutil.copytree(project, tmp_path / "other"))
    info = other / "project.yaml"
    info.write_text(info.read_text(encoding="utf-8").replace(f"id: {PROJECT_ID}", "id: kestrel-two", 1),
                    encoding="utf-8")
    status, _, err = score_json(capsys, str(table), "--project", str(project), "--project", str(other))
    assert status == 1 and "no row is for project 'kestrel-two' (given with --project)" in err
    # With rows for both projects, each is scored against its own rubrics; a system mean covers
    # the projects whose score is known and names the others.
    second = [dict(row, project="kestrel-two") for row in rows]
    for row in second:
        if row["system"] == "alpha" and row["scope"] == "final" and row["criterion"] == "A-02":
            row["verdict"] = ""  # alpha's final on kestrel-two: 129..133 of 143
    write(table, header, rows + second)
    status, data, _ = score_json(capsys, str(table), "--project", str(project), "--project", str(other))
    assert status == 0 and data is not None
    alpha = data["systems"]["alpha"]
    assert alpha["final_mean"] == round(100 * 129 / FINAL_W_PLUS, 4)  # kestrel-refinancing alone
    assert alpha["final_left_out"] == ["kestrel-two"] and alpha["process_left_out"] == []
    assert data["projects"]["kestrel-two"]["alpha"]["final_range"] == [90.2098, round(100 * 133 / FINAL_W_PLUS, 4)]
    assert main(["score", str(table), "--project", str(project), "--project", str(other)]) == 0
    assert "alpha: the final mean leaves out kestrel-two (no known score)" in capsys.readouterr().out
