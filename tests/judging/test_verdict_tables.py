"""Scores and agreement from the verdict store of a copy of the blank template, through
`dbstudio score`, `dbstudio agreement` and `dbstudio verdicts export`, against values computed
by hand here.

The blank template: T01 {T01-C01 w5}; T02 {T02-C01 w6, T02-C02 w4 requires T02-C01, gate T02-G01,
T02-N01 w-2 (a failure condition)}; final {T01-C01 and T02-C01 reused (w5, w6), A-01 w4, PKG-01 w5}.
"""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from pathlib import Path

import openpyxl
import pytest

from studio.cli.main import main
from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from studio.runs.record import RunRecord, save_run
from studio.store import layout
from studio.store.loader import load_project
from tests.helpers import copy_blank

T0 = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
JUDGE = "judge:m1"
RUN = "claude-code@run-a"  # run-a is a local run of the project: its system is HARNESS@RUN_ID
FOLDER = "folder-b"  # a handed-over folder: its own system


def put(project: Path, submission: str, rater: str, verdicts: dict[tuple[str, str], str],
        version: str | None = None) -> None:
    versions = current_versions(load_project(project).project)
    VerdictStore(project).put(submission, [
        Verdict(criterion=criterion, scope=scope, verdict=value, rater=rater, time=T0,  # type: ignore[arg-type]
                criterion_version=version or versions.get((scope, criterion), "0" * 16))
        for (scope, criterion), value in verdicts.items()])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_blank(tmp_path / "blank")
    save_run(root / layout.RUNS_DIR / "run-a", RunRecord(run_id="run-a", project_id="new-project",
                                                          project_dir=str(root), harness="claude-code",
                                                          image="dbs-test:1", created=T0))
    put(root, "run-a", JUDGE, {("T01", "T01-C01"): "pass", ("T02", "T02-C01"): "fail", ("T02", "T02-C02"): "pass",
                               ("T02", "T02-G01"): "fail", ("T02", "T02-N01"): "fail", ("final", "T01-C01"): "pass",
                               ("final", "T02-C01"): "pass", ("final", "A-01"): "fail", ("final", "PKG-01"): "pass"})
    put(root, "run-a", "Anna", {("T02", "T02-C01"): "pass", ("T02", "T02-C02"): "pass", ("T02", "T02-N01"): "pass",
                                ("final", "A-01"): "pass"})
    put(root, "run-a", "Ben", {("T02", "T02-C01"): "fail", ("final", "A-01"): "pass", ("final", "PKG-01"): "na"})
    put(root, "run-a", "adjudicated", {("T02", "T02-C01"): "pass"})
    # left out: a verdict on an earlier text of T01-C01, and one on a criterion the project does not have
    put(root, "run-a", "Anna", {("T01", "T01-C01"): "fail"}, version="5ta1e5ta1e5ta1e0")
    put(root, "run-a", "Anna", {("T01", "T01-C99"): "fail"})
    put(root, FOLDER, JUDGE, {("T01", "T01-C01"): "fail", ("T02", "T02-C01"): "pass", ("T02", "T02-C02"): "fail",
                              ("T02", "T02-G01"): "pass", ("T02", "T02-N01"): "fail", ("final", "T01-C01"): "fail",
                              ("final", "T02-C01"): "pass", ("final", "A-01"): "pass", ("final", "PKG-01"): "missing"})
    put(root, FOLDER, "Anna", {("T01", "T01-C01"): "fail", ("final", "PKG-01"): "fail"})
    return root


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[dict, str]:
    assert main([*argv, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


def test_scores_from_the_store_match_the_hand_computation(project: Path, capsys) -> None:
    data, err = run_json(capsys, "score", "--project", str(project))
    run_a, folder_b = data["projects"]["new-project"][RUN], data["projects"]["new-project"][FOLDER]
    # run-a: T01-C01 judge pass -> 5/5 (Anna's fail was given on an earlier text: left out)
    # T02: C01 adjudicated pass 6 + C02 judge pass 4 (its requirement holds) + N01 Anna pass (the failure
    # condition is met: -2; she outranks the judge) and the gate judged not triggered: 8/10
    assert run_a["checkpoints"] == {"T01": 100.0, "T02": 80.0}
    assert run_a["process"] == 90.0
    # final: T01-C01 5 + T02-C01 6 + A-01 4 (Anna and Ben agree) of 20; PKG-01 is Ben's na: missing
    assert run_a["final"] is None and run_a["final_range"] == [75.0, 100.0] and run_a["missing"] == 1
    # folder-b: T01-C01 fail -> 0; T02's gate triggered -> 0 (6/10 without it); final T02-C01 6 + A-01 4 of 20,
    # PKG-01 Anna's fail where the judge left it missing
    assert folder_b["checkpoints"] == {"T01": 0.0, "T02": 0.0} and not folder_b["gate_triggered"]
    assert folder_b["final"] == 50.0 and folder_b["process"] == 0.0 and folder_b["missing"] == 0
    assert "left out 1 verdict(s) given on an earlier text" in err and "1 verdict(s) on criteria the project" in err
    # --run takes an id or its start; --judge names a judge of the store
    data, _ = run_json(capsys, "score", "--project", str(project), "--run", "fold")
    assert list(data["projects"]["new-project"]) == [FOLDER]


def test_exported_score_table_scores_the_same(project: Path, tmp_path: Path, capsys) -> None:
    from_store, _ = run_json(capsys, "score", "--project", str(project))
    for name in ("score.csv", "score.xlsx"):
        out = tmp_path / name
        assert main(["verdicts", "export", str(project), "--format", "score", str(out)]) == 0
        capsys.readouterr()
        from_table, _ = run_json(capsys, "score", str(out), "--project", str(project))
        for system in (RUN, FOLDER):
            mine = from_store["projects"]["new-project"][system]
            theirs = from_table["projects"]["new-project"][system]
            assert {k: v for k, v in theirs.items() if k != "absent"} == mine and theirs["absent"] == []
    rows = list(csv.DictReader((tmp_path / "score.csv").read_text(encoding="utf-8-sig").splitlines()))
    assert len(rows) == 2 * 9
    by_key = {(r["system"], r["scope"], r["criterion"]): r for r in rows}
    assert (by_key[(RUN, "T02", "T02-C01")]["verdict"], by_key[(RUN, "T02", "T02-C01")]["source"]) == \
        ("pass", "adjudicated")
    assert by_key[(RUN, "T02", "T02-N01")]["source"] == "Anna"
    assert by_key[(RUN, "final", "PKG-01")]["verdict"] == "" and "not applicable (Ben)" in \
        by_key[(RUN, "final", "PKG-01")]["source"]
    assert by_key[(FOLDER, "T02", "T02-C01")]["source"] == JUDGE
    assert by_key[(RUN, "T02", "T02-C02")]["requires"] == "T02-C01" and by_key[(RUN, "T02", "T02-G01")]["gate"] == "true"
    sheet = openpyxl.load_workbook(tmp_path / "score.xlsx").active
    assert sheet.title == "Verdicts" and sheet.max_row == 1 + 2 * 9


def test_experts_who_differ_leave_the_verdict_missing_until_adjudicated(project: Path, tmp_path: Path,
                                                                        capsys) -> None:
    (project / "verdicts" / "run-a" / "adjudicated.yaml").unlink()
    data, _ = run_json(capsys, "score", "--project", str(project), "--run", "run-a")
    # T02-C01 is missing now (Anna pass, Ben fail): with it 10 - 2 = 8 of 10, without it C02 is not
    # credited (it requires C01) and the score is -2/10 -> 0
    assert data["projects"]["new-project"][RUN]["checkpoints"]["T02"] is None
    assert data["projects"]["new-project"][RUN]["missing"] == 2
    out = tmp_path / "score.csv"
    assert main(["verdicts", "export", str(project), "--run", "run-a", "--format", "score", str(out)]) == 0
    rows = {r["criterion"]: r for r in csv.DictReader(out.read_text(encoding="utf-8-sig").splitlines())
            if r["scope"] == "T02"}
    assert rows["T02-C01"]["verdict"] == "" and "experts differ (Anna pass; Ben fail): adjudicate" in \
        rows["T02-C01"]["source"]


def test_agreement_from_the_store_matches_the_hand_computation(project: Path, tmp_path: Path, capsys) -> None:
    data, _ = run_json(capsys, "agreement", "--project", str(project))
    # decisions rated by two or more of judge:m1, Anna, Ben (adjudicated is no independent rater):
    # run-a T02-C01 (fail, pass, fail), T02-C02 (pass, pass: agree), T02-N01 (fail, pass),
    # A-01 (fail, pass, pass), PKG-01 (pass, na); folder-b T01-C01 (fail, fail: agree).
    # folder-b PKG-01 has the judge's missing and Anna's fail: one rating, not counted.
    assert (data["pooled"]["n"], data["pooled"]["agree"]) == (6, 2)
    assert data["judge"] == JUDGE
    for name in ("ratings.csv", "ratings.xlsx"):
        out = tmp_path / name
        assert main(["verdicts", "export", str(project), "--format", "agreement", str(out)]) == 0
        capsys.readouterr()
        from_table, _ = run_json(capsys, "agreement", str(out), "--judge", JUDGE)
        assert from_table == data
    rows = list(csv.DictReader((tmp_path / "ratings.csv").read_text(encoding="utf-8-sig").splitlines()))
    assert {r["rater"] for r in rows} == {JUDGE, "Anna", "Ben"}
    by_key = {(r["item"], r["criterion"], r["rater"]): r["verdict"] for r in rows}
    assert by_key[("folder-b/final", "PKG-01", JUDGE)] == "" and by_key[("run-a/final", "PKG-01", "Ben")] == "na"
    assert ("run-a/T02", "T02-C01", "adjudicated") not in by_key and len(rows) == 9 + 4 + 3 + 9 + 2


def test_several_judges_need_a_choice(project: Path, capsys) -> None:
    put(project, "run-a", "judge:m2", {("T02", "T02-C01"): "pass"})
    assert main(["agreement", "--project", str(project)]) == 2
    assert "several judges (judge:m1, judge:m2): choose one with --judge" in capsys.readouterr().err
    data, _ = run_json(capsys, "agreement", "--project", str(project), "--judge", "judge:m2")
    # judge:m1 is left out: run-a T02-C01 (m2 pass, Anna pass, Ben fail) and A-01 (Anna pass, Ben pass: agree)
    assert (data["pooled"]["n"], data["pooled"]["agree"]) == (2, 1)
    assert main(["score", "--project", str(project), "--judge", "judge:nobody"]) == 2
    assert "no such judge" in capsys.readouterr().err


def test_bad_calls_are_refused_with_the_fix(project: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "x.csv"
    assert main(["verdicts", "export", str(project), str(out)]) == 2
    assert "--format score" in capsys.readouterr().err
    assert main(["verdicts", "export", str(project), "--format", "score", "--run", "nope", str(out)]) == 2
    assert "--run nope has no verdicts" in capsys.readouterr().err
    assert main(["score", "--run", "run-a"]) == 2
    assert "--project PROJECT" in capsys.readouterr().err
    assert main(["agreement"]) == 2
    assert "--project PROJECT" in capsys.readouterr().err
    empty = copy_blank(tmp_path / "empty")
    assert main(["score", "--project", str(empty)]) == 2
    assert "no verdicts yet" in capsys.readouterr().err
    assert not out.exists()
