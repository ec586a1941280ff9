"""The score sheet at volume: each run scored in one pass, and a run whose verdict files did not
change kept from the last sheet of the same project, rubrics, judge and viewer; on two runs of the
blank template with a judge and two experts (tests/judging/scored_runs.py), against `dbstudio
score --project`, which scores the same store through the score rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import studio.judging.verdict_store as verdict_store
from studio.cli.main import main
from studio.judging.score_sheet import RunScores, ScoreSheet, forget_scored, read_score_sheet
from studio.judging.visibility import Viewer
from studio.store.loader import load_project
from tests.judging.scored_runs import JUDGE, RUN_A, RUN_B, SYSTEM_B, add_experts, put, scored_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    forget_scored()
    root = scored_project(tmp_path / "blank")
    add_experts(root)
    return root


def cli_scores(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> dict[str, dict]:
    assert main(["score", "--project", str(root), "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)["projects"]["new-project"]


def as_cli(run: RunScores) -> dict:
    """A run of the sheet in the words of `dbstudio score --format json`."""
    final = run.final
    assert final is not None
    return {"checkpoints": {score.scope: score.score for score in run.checkpoints}, "final": final.score,
            "final_range": [final.low, final.high], "process": run.process,
            "process_range": list(run.process_range) if run.process_range else None, "targets": run.targets,
            "dimensions": run.dimensions, "missing": run.missing, "gate_triggered": final.gate_triggered}


def rounded(value: object) -> object:
    """As the JSON report prints a score: to 4 decimals."""
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    return [rounded(item) for item in value] if isinstance(value, list) else value


def same_as_cli(sheet: ScoreSheet, cli: dict[str, dict]) -> None:
    assert {run.system for run in sheet.runs} == set(cli)
    for run in sheet.runs:
        expected = rounded(as_cli(run))
        assert isinstance(expected, dict)
        assert {key: cli[run.system][key] for key in expected} == expected, run.system


def test_a_stored_verdict_reads_and_scores_only_its_run_again(project: Path, monkeypatch, capsys):
    asked: list[str] = []  # the submission of each verdict file read
    given_in = verdict_store.given_in

    def counted_given_in(path, signature):  # type: ignore[no-untyped-def]
        if path.parent.name not in asked:
            asked.append(path.parent.name)
        return given_in(path, signature)

    monkeypatch.setattr(verdict_store, "given_in", counted_given_in)
    loaded = load_project(project).project
    first = read_score_sheet(project, loaded)
    assert asked == [RUN_A, RUN_B]
    same_as_cli(first, cli_scores(capsys, project))

    asked.clear()
    assert read_score_sheet(project, loaded).runs == first.runs
    assert asked == []  # nothing changed on disk: nothing read or scored again

    # Ben now passes T01-C01 of run-b where Anna fails it: the experts differ, T01 (that one criterion)
    # has no verdict that counts
    put(project, RUN_B, "Ben", {("T02", "T02-C01"): "fail", ("T01", "T01-C01"): "pass"})
    again = read_score_sheet(project, loaded)
    assert asked == [RUN_B]
    assert again.runs[0] == first.runs[0] and again.runs[1] != first.runs[1]
    assert again.runs[1].system == SYSTEM_B and again.runs[1].checkpoints[0].text() == "not judged"
    same_as_cli(again, cli_scores(capsys, project))
    forget_scored()
    assert read_score_sheet(project, loaded) == again  # the kept runs are what a cold read gives


def test_each_judge_viewer_and_rubric_has_its_own_scores(project: Path, capsys):
    loaded = load_project(project).project
    put(project, RUN_A, "judge:m2", {("T01", "T01-C01"): "fail"})
    read_score_sheet(project, loaded)  # both judges: run-a's T01-C01 is missing where they differ
    for judge in (JUDGE, "judge:m2"):
        same_as_cli(read_score_sheet(project, loaded, judge), cli_scores(capsys, project, "--judge", judge))
    # Ben (two verdicts a run) reviewing blind sees the decisions he rated, not the kept sheet of every verdict
    blind = read_score_sheet(project, loaded, JUDGE, viewer=Viewer("Ben", "rater", True))
    forget_scored()
    assert blind == read_score_sheet(project, loaded, JUDGE, viewer=Viewer("Ben", "rater", True))
    assert blind.runs != read_score_sheet(project, loaded, JUDGE).runs
    # a weight edited in the rubric scores every run again (its verdicts are stale: left out)
    rubric = project / "subtasks" / "T01" / "rubric.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8").replace("weight: 5", "weight: 3"), encoding="utf-8")
    edited = load_project(project).project
    same_as_cli(read_score_sheet(project, edited, JUDGE), cli_scores(capsys, project, "--judge", JUDGE))
