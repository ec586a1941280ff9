"""The score sheet, its charts and `dbstudio score --trajectory/--profile` on two runs of the blank
template judged in the verdict store (hand computation in tests/judging/scored_runs.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from studio.cli.main import main
from studio.judging.charts import profile_png, trajectory_png
from studio.judging.dashboards import compute_calibration, compute_scores
from studio.judging.score_sheet import ScoreSheet, read_score_sheet
from studio.store.loader import load_project
from tests.helpers import write
from tests.judging.scored_runs import SYSTEM_A, SYSTEM_B, add_experts, scored_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return scored_project(tmp_path / "blank")


def sheet_of(root: Path) -> ScoreSheet:
    return read_score_sheet(root, load_project(root).project)


def png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        return image.size


def test_the_sheet_holds_the_hand_computed_scores_ranges_and_profiles(project: Path):
    sheet = sheet_of(project)
    assert sheet.scopes == ["T01", "T02"] and sheet.has_final and sheet.judges == ["judge:m1"]
    run_a, run_b = sheet.runs
    assert (run_a.system, run_b.system) == (SYSTEM_A, SYSTEM_B)
    assert [(s.scope, s.score) for s in run_a.checkpoints] == [("T01", 100.0), ("T02", 80.0)]
    assert run_a.final is not None and run_a.final.score == 80.0 and run_a.process == 90.0
    assert run_a.targets == {"artifact": pytest.approx(100 * 11 / 15), "cross-file": None, "package": 100.0}
    assert run_a.dimensions["completeness"] == 100.0 and run_a.dimensions["consistency"] == 0.0
    assert run_a.dimensions["usability"] is None  # no criterion: unavailable, never 0
    assert sheet.available_targets == ["artifact", "package"]
    t02 = run_b.checkpoints[1]
    assert (t02.score, t02.low, t02.high, t02.missing, t02.text()) == (None, 60.0, 100.0, 1, "60.0–100.0")
    assert run_b.final is not None and (run_b.final.low, run_b.final.high) == (50.0, 75.0)
    assert run_b.process is None and run_b.process_range == (30.0, 50.0) and run_b.process_text() == "30.0–50.0"
    assert run_b.targets["package"] is None  # PKG-01 missing: the group's score is open


def test_the_charts_are_pngs_of_a_readable_size(project: Path):
    sheet = sheet_of(project)
    width, height = png_size(trajectory_png(sheet))
    assert 1300 <= width <= 2500 and 800 <= height <= 1600
    width, height = png_size(profile_png(sheet))
    assert width == 1950 and 800 <= height <= 1200


def test_dbstudio_score_draws_the_charts_the_app_shows(project: Path, tmp_path: Path, capsys):
    out, profile = tmp_path / "trajectory.png", tmp_path / "profile.png"
    assert main(["score", "--project", str(project), "--trajectory", str(out), "--profile", str(profile)]) == 0
    captured = capsys.readouterr()
    assert f"wrote {out}" in captured.err and "claude-code@" in captured.out
    _sheet, shown_trajectory, shown_profile = compute_scores(project, load_project(project).project)
    assert out.read_bytes() == shown_trajectory and profile.read_bytes() == shown_profile


@pytest.mark.parametrize(("extra", "message"), [
    (["--trajectory", "chart.svg"], "give a file name ending in .png"),
    (["--trajectory", "missing-folder/chart.png"], "does not exist"),
    (["--trajectory", "same.png", "--profile", "same.png"], "name the same file"),
])
def test_chart_options_that_cannot_work_are_refused_before_reading(project: Path, tmp_path: Path, monkeypatch,
                                                                   capsys, extra: list[str], message: str):
    monkeypatch.chdir(tmp_path)
    assert main(["score", "--project", str(project), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.glob("*.png"))


def test_chart_options_need_the_store_of_one_project(project: Path, tmp_path: Path, capsys):
    other = scored_project(tmp_path / "other")
    assert main(["score", "--project", str(project), "--project", str(other),
                 "--trajectory", str(tmp_path / "t.png")]) == 2
    assert "one --project" in capsys.readouterr().err
    table = tmp_path / "t.csv"
    table.write_text("project,system,scope,criterion,weight,target,dimension,verdict\n")
    assert main(["score", str(table), "--trajectory", str(tmp_path / "t.png")]) == 2
    assert "leave out TABLE" in capsys.readouterr().err
    assert not (tmp_path / "t.png").exists()


def test_calibration_cells_for_the_rubric_editor(project: Path):
    add_experts(project)
    write(project, "verdicts/calibration.yaml", "min_agreement: 0.4\nmin_decisions: 2\n")
    cells = compute_calibration(project, load_project(project).project)
    assert {key: (c.decisions, c.disagreements, c.flagged) for key, c in cells.items() if c.disagreements} == {
        ("T02", "T02-C01"): (2, 2, True), ("final", "A-01"): (2, 1, False)}
    assert cells[("T02", "T02-C01")].describe() == "judge and experts disagree on 2 of 2 decisions (agreement 0%)"
    assert cells[("T01", "T01-C01")].agreement == 1.0


def test_a_triggered_gate_says_so_beside_its_0(project: Path):
    from tests.judging.scored_runs import RUN_A, put

    put(project, RUN_A, "Anna", {("T02", "T02-G01"): "pass"})  # an expert finds the fatal condition
    run_a = sheet_of(project).runs[0]
    t02 = run_a.checkpoints[1]
    assert (t02.score, t02.gate_triggered, t02.text()) == (0.0, True, "0.00 (gate)")
    assert "fatal gate is triggered" in t02.explain()
    assert run_a.process == 50.0  # (100 + 0) / 2


def test_beyond_twelve_runs_the_charts_draw_each_systems_median_and_band(project: Path, monkeypatch):
    import dataclasses

    from studio.judging import charts

    sheet = sheet_of(project)
    run_a = next(run for run in sheet.runs if run.system == SYSTEM_A)
    run_b = next(run for run in sheet.runs if run.system == SYSTEM_B)

    def copies(run, system: str, count: int) -> list:
        return [dataclasses.replace(run, system=system, submission=f"{system}-{n}") for n in range(count)]

    # 20 runs of two systems: one line (and bar) per system, not per run
    many = dataclasses.replace(sheet, runs=copies(run_a, "alpha", 12) + copies(run_b, "beta", 8))
    groups = charts.band_groups(many)
    assert [(name, len(runs)) for name, runs in groups] == [("alpha", 12), ("beta", 8)]
    lines: list[tuple[list[float], list[float]]] = []
    real_plot = charts._trajectory_axes

    def axes(ax, shown, final_x):
        lines.extend((list(line.get_xdata()), list(line.get_ydata())) for line in ax.get_lines())
        real_plot(ax, shown, final_x)

    monkeypatch.setattr(charts, "_trajectory_axes", axes)
    assert png_size(trajectory_png(many))[0] >= 1200 and png_size(profile_png(many))[0] >= 1200
    # the median lines of alpha (T01 100, T02 80) and beta (T01 0; T02 unknown: left out), then the finals
    medians = [ys for xs, ys in lines if len(xs) > 1 or xs == [0]]
    assert [100.0, 80.0] in medians and [0.0] in medians
    assert sum(1 for xs, _ in lines if len(xs) == 1 and xs != [0]) == 1  # alpha's final star (beta's is open)

    # more systems than twelve as well: one median and band over every run
    spread_out = dataclasses.replace(sheet, runs=[dataclasses.replace(run_a, system=f"s{n}") for n in range(13)])
    assert [(name, len(runs)) for name, runs in charts.band_groups(spread_out)] == [("all runs (13 systems)", 13)]
    assert png_size(trajectory_png(spread_out))[1] >= 700
    # twelve runs or fewer: a line per run, as before
    few = dataclasses.replace(sheet, runs=copies(run_a, "alpha", 12))
    lines.clear()
    trajectory_png(few)
    assert sum(1 for xs, _ in lines if len(xs) > 1) == 12
