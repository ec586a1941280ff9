"""The verdict table: reading CSV and xlsx, and refusing bad rows with row and column."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from studio.cli.main import main
from studio.scoring.table import VerdictTableError, read_verdict_table

HEADER = ["system", "project", "scope", "criterion", "weight", "target", "dimension", "verdict", "gate", "requires"]
GOOD = [
    ["A", "P1", "T01", "C1", "5", "checkpoint", "correctness", "Pass", "", ""],
    ["A", "P1", "T01", "C2", "5", "checkpoint", "completeness", "0", "", ""],
    ["A", "P1", "final", "F1", "4", "artifact", "correctness", "TRUE", "", ""],
    ["A", "P1", "final", "F1", "4", "artifact", "correctness", "TRUE", "", ""],  # covers a 2nd file: counted once
    ["A", "P1", "final", "F2", "-2", "cross-file", "consistency", "yes", "", ""],
    ["A", "P1", "final", "G", "0", "package", "completeness", "no", "true", ""],
    ["A", "P1", "final", "F3", "6", "package", "usability", "1", "", "F1"],
]


def write_csv(path: Path, rows: list[list[str]], header=HEADER) -> Path:
    path.write_text("\n".join(",".join(r) for r in [header] + rows) + "\n", encoding="utf-8")
    return path


def write_xlsx(path: Path, rows: list[list], header=HEADER) -> Path:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(header)
    for row in rows:
        sheet.append([int(v) if isinstance(v, str) and v.lstrip("-").isdigit() and i == 4 else v
                      for i, v in enumerate(row)])
    workbook.create_sheet("ignored").append(["not", "read"])
    workbook.save(path)
    return path


def test_csv_scores_to_hand_computed_values(tmp_path: Path, capsys):
    table = write_csv(tmp_path / "v.csv", GOOD)
    assert main(["score", str(table), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    p = data["projects"]["P1"]["A"]
    # final: W+ = 4 + 6 = 10, credit 4 - 2 + 6 = 8 -> 80; F1 counted once
    assert p["final"] == 80.0 and p["checkpoints"] == {"T01": 50.0} and p["process"] == 50.0
    assert p["targets"] == {"artifact": 100.0, "cross-file": None, "package": 100.0}
    assert p["gate_triggered"] is False and p["missing"] == 0
    s = data["systems"]["A"]
    assert (s["final_mean"], s["process_mean"], s["gap"], s["pass_rate_90"]) == (80.0, 50.0, -30.0, 0.0)


def test_xlsx_first_sheet_gives_the_same_scores(tmp_path: Path):
    from_csv = read_verdict_table(write_csv(tmp_path / "v.csv", GOOD))
    from_xlsx = read_verdict_table(write_xlsx(tmp_path / "v.xlsx", GOOD))
    assert from_xlsx == from_csv


def test_missing_verdicts_are_counted_and_reported(tmp_path: Path, capsys):
    rows = [r[:] for r in GOOD]
    rows[0][7] = ""
    table = write_csv(tmp_path / "v.csv", rows)
    assert main(["score", str(table)]) == 0
    out = capsys.readouterr().out
    assert "1 verdict(s) missing" in out
    assert main(["score", str(table), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["projects"]["P1"]["A"]["checkpoints"]["T01"] is None and data["missing"] == 1
    # C1 (5 of T01's W+ = 10) unjudged, C2 failed: T01 lies between 0 and 50, so does the process score
    assert data["projects"]["P1"]["A"]["process"] is None
    assert data["projects"]["P1"]["A"]["process_range"] == [0.0, 50.0]
    assert data["projects"]["P1"]["A"]["final_range"] == [80.0, 80.0]
    assert data["systems"]["A"]["process_left_out"] == ["P1"] and data["systems"]["A"]["process_mean"] is None
    assert data["systems"]["A"]["final_mean"] == 80.0 and data["systems"]["A"]["final_left_out"] == []
    assert "absent" not in data["projects"]["P1"]["A"]  # only with --project


def test_the_text_table_shows_a_range_and_names_the_projects_left_out(tmp_path: Path, capsys):
    rows = [r[:] for r in GOOD] + [[r[0], "P2", *r[2:]] for r in GOOD]
    rows[len(GOOD) + 4][7] = ""  # P2's F2 (-2 of W+ 10, credit 10 otherwise): final 80..100
    table = write_csv(tmp_path / "v.csv", rows)
    assert main(["score", str(table)]) == 0
    out = capsys.readouterr().out
    p2 = next(line for line in out.splitlines() if line.startswith("P2 "))
    assert "80.0–100.0" in p2
    assert "A: the final mean leaves out P2 (no known score)" in out
    system = next(line for line in out.splitlines() if line.startswith("A "))
    assert system.split()[1] == "80.00"  # P1 alone


@pytest.mark.parametrize(
    ("row_index", "column", "value", "expected"),
    [
        (1, 5, "beauty", "unknown target 'beauty'"),
        (1, 4, "11", "weight 11 is out of range"),
        (1, 4, "0", "weight 0 is only for a fatal gate"),
        (5, 4, "3", "a fatal gate has weight 0, this one has 3"),
        (1, 6, "style", "unknown dimension"),
        (1, 7, "maybe", "verdict 'maybe' is not one of"),
        (1, 4, "five", "not an integer"),
        (2, 5, "checkpoint", "does not fit scope 'final'"),
        (6, 9, "NOPE", "requires 'NOPE'"),
    ],
)
def test_bad_rows_name_row_and_column_and_nothing_is_scored(tmp_path: Path, capsys, row_index, column, value, expected):
    rows = [r[:] for r in GOOD]
    rows[row_index][column] = value
    table = write_csv(tmp_path / "v.csv", rows)
    assert main(["score", str(table)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing scored
    assert f"row {row_index + 2}, column '{HEADER[column]}'" in captured.err
    assert expected in captured.err and "Traceback" not in captured.err


def test_requires_cycle_is_refused(tmp_path: Path):
    rows = [r[:] for r in GOOD]
    rows[2][9] = "F3"  # F1 requires F3, F3 requires F1
    with pytest.raises(VerdictTableError) as info:
        read_verdict_table(write_csv(tmp_path / "v.csv", rows))
    assert any("cycle" in p.message and p.column == "requires" for p in info.value.problems)


def test_conflicting_duplicate_and_weight_drift_across_systems(tmp_path: Path):
    rows = [r[:] for r in GOOD]
    rows[3][7] = "0"  # same criterion, other verdict
    rows.append(["B", "P1", "T01", "C1", "7", "checkpoint", "correctness", "1", "", ""])
    with pytest.raises(VerdictTableError) as info:
        read_verdict_table(write_csv(tmp_path / "v.csv", rows))
    rendered = str(info.value)
    assert "row 5, column 'criterion'" in rendered and "first at row 4" in rendered
    assert "row 9, column 'weight'" in rendered and "shared across systems" in rendered


def test_xlsx_errors_name_the_cell(tmp_path: Path):
    rows = [r[:] for r in GOOD]
    rows[2][5] = "bogus"
    with pytest.raises(VerdictTableError) as info:
        read_verdict_table(write_xlsx(tmp_path / "v.xlsx", rows))
    assert "row 4, column 'target' (cell F4)" in str(info.value)


def test_unusable_tables(tmp_path: Path):
    with pytest.raises(VerdictTableError, match="lacks column"):
        read_verdict_table(write_csv(tmp_path / "v.csv", GOOD, header=HEADER[:5] + ["tgt"] + HEADER[6:]))
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(VerdictTableError, match="empty"):
        read_verdict_table(tmp_path / "empty.csv")
    (tmp_path / "fake.xlsx").write_text("not a workbook")
    with pytest.raises(VerdictTableError, match="not a readable xlsx"):
        read_verdict_table(tmp_path / "fake.xlsx")
    with pytest.raises(VerdictTableError, match="no such file"):
        read_verdict_table(tmp_path / "absent.csv")
