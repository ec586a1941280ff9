"""`dbstudio agreement` end to end: a real CSV in, text, JSON, xlsx and PNG out."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl

from studio.cli.main import main

ROWS = [
    # criterion, item, rater, verdict, target, dimension, project
    ("C1", "run-1", "judge", "pass", "checkpoint", "correctness", "P1"),
    ("C1", "run-1", "alice", "pass", "checkpoint", "correctness", "P1"),
    ("C2", "run-1", "judge", "pass", "artifact", "usability", "P1"),
    ("C2", "run-1", "alice", "fail", "artifact", "usability", "P1"),
    ("C1", "run-2", "judge", "fail", "checkpoint", "correctness", "P2"),
    ("C1", "run-2", "alice", "FAIL", "checkpoint", "correctness", "P2"),
    ("C2", "run-2", "judge", "yes", "artifact", "usability", "P2"),
    ("C2", "run-2", "alice", "1", "artifact", "usability", "P2"),
    ("C3", "run-2", "judge", "0", "package", "completeness", "P2"),
    ("C3", "run-2", "alice", "", "package", "completeness", "P2"),
]


def write_table(path: Path, rows=ROWS) -> Path:
    header = "verdict,rater,item,criterion,target,dimension,project\n"  # any column order
    path.write_text(header + "".join(f"{v},{r},{i},{c},{t},{d},{p}\n" for c, i, r, v, t, d, p in rows))
    return path


def test_json_report_counts_by_hand(tmp_path: Path, capsys):
    table = write_table(tmp_path / "ratings.csv")
    assert main(["agreement", str(table), "--json", "--bootstrap", "50", "--seed", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    pooled = report["pooled"]
    # 4 decisions rated by both (C3/run-2 lacks alice's verdict): agree on 3.
    assert (pooled["n"], pooled["agree"], pooled["percent"]) == (4, 3, 75.0)
    assert report["judge"] == "judge" and report["bootstrap"] == {"resamples": 50, "seed": 3, "unit": "item"}
    assert pooled["judge_vs_experts"]["false_pass"] == 1 and pooled["judge_vs_experts"]["expert_fail"] == 2
    assert set(report["by_target"]) == {"checkpoint", "artifact", "package"}
    assert report["by_target"]["checkpoint"]["cohen_kappa"] == 1.0
    assert report["by_target"]["package"]["n"] == 0 and report["by_target"]["package"]["cohen_kappa"] is None
    assert [d["criterion"] for d in report["disagreements"]] == ["C2"]


def test_text_xlsx_and_plot_outputs(tmp_path: Path, capsys):
    table = write_table(tmp_path / "ratings.csv")
    xlsx, png = tmp_path / "report.xlsx", tmp_path / "report.png"
    assert main(["agreement", str(table), "--xlsx", str(xlsx), "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "75.00" in text and "undefined" in text  # package has no pair to compare
    workbook = openpyxl.load_workbook(xlsx)
    assert {"Pooled", "By target", "Confusion", "Disagreements"} <= set(workbook.sheetnames)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_rows_compute_nothing(tmp_path: Path, capsys):
    rows = ROWS + [("C1", "run-1", "judge", "fail", "checkpoint", "correctness", "P1")]
    table = write_table(tmp_path / "ratings.csv", rows)
    out = tmp_path / "never.xlsx"
    assert main(["agreement", str(table), "--xlsx", str(out)]) == 1
    captured = capsys.readouterr()
    assert "row 12, column 'rater'" in captured.err and "nothing was computed" in captured.err
    assert captured.out == "" and not out.exists()


def test_unknown_judge_and_negative_bootstrap(tmp_path: Path, capsys):
    table = write_table(tmp_path / "ratings.csv")
    assert main(["agreement", str(table), "--judge", "gpt"]) == 2
    assert "no rater named 'gpt'" in capsys.readouterr().err
    assert main(["agreement", str(table), "--bootstrap", "-1"]) == 2
