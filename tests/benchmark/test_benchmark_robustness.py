"""`dbstudio benchmark robustness` end to end, on a benchmark built as test_benchmark_report.py builds
one: copies of the sample (s01, s02, s03), verdicts imported from filled templates as the judge's
(tests/cli/test_score_project.py's alpha and beta, and a third system, gamma), and a few expert
verdicts given with `dbstudio verdicts give` on s03, which beta has no outcome on (so s03 is outside
the shared set, and the experts change no shared score, but their sample counts)."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.store.workspace import sample_project
from tests.benchmark.test_benchmark_report import read_rows, write_rows
from tests.cli.test_score_project import PROJECT_ID, template, verdict_for
from tests.helpers import replace_in, run_cli

PROJECTS = ("s01", "s02", "s03")
JUDGE = "judge:j1"
EXPERT = "Marta Lindqvist"
# gamma fails A-02 and A-03 (4 + 5) on s01 and s03, and, A-06 (8 + 4 + 5 + 5 + 3)
# on s02; every other final criterion as alpha (positives pass, negatives and the gate fail)
GAMMA_FAILS = {"s01": {"A-02", "A-03"}, "s02": {"A-01", "A-02", "A-03", "A-04", "A-06"}, "s03": {"A-02", "A-03"}}
# (system, criterion, expert verdict) on s03's final rubric; the judge's is alpha's or gamma's pattern:
# alpha A-01 judge pass / expert fail (a false pass), alpha X-01 pass / pass, alpha A-02 fail / fail,
# gamma A-02 judge fail / expert pass (a false fail): 4 decisions, 2 judge passes (1 false), 2 judge
# fails (1 false): both rates 1/2
EXPERT_VERDICTS = (("alpha", "A-01", "fail"), ("alpha", "X-01", "pass"), ("alpha", "A-02", "fail"),
                   ("gamma", "A-02", "pass"))


def verdict(row: dict[str, str], project: str) -> str:
    system, criterion = row["system"], row["criterion"]
    if system == "gamma":
        if row["scope"] == "final" and criterion in GAMMA_FAILS[project]:
            return "fail"
        return verdict_for({**row, "system": "alpha", "criterion": "" if row["scope"] == "final" else criterion})
    value = verdict_for(row)
    if project == "s02" and system == "alpha" and criterion == "A-01":
        return "fail"
    if system == "beta" and criterion == "A-06":
        return "pass"  # beta's final score known: (51 + 3) / 143
    return value


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("robust")
    for name in PROJECTS:
        project = Path(shutil.copytree(sample_project(), base / name))
        replace_in(project, "project.yaml", f"id: {PROJECT_ID}", f"id: {name}")
        table = template(project, base / f"{name}.csv", "alpha", "beta", "gamma")
        header, rows = read_rows(table)
        for row in rows:
            row["verdict"] = verdict(row, name)
        write_rows(table, header, rows)
        for system in ("alpha", "beta", "gamma"):
            if (name, system) == ("s03", "beta"):
                continue
            assert main(["verdicts", "import", str(project), str(table), "--system", system, "--submission",
                         f"{system}-1", "--rater", JUDGE]) == 0
    for system, criterion, value in EXPERT_VERDICTS:
        assert main(["verdicts", "give", str(base / "s03"), f"{system}-1", "final", criterion, value, "--rater",
                     EXPERT]) == 0
    assert main(["benchmark", "new", str(base), "--id", "trio", "--title", "Trio",
                 *[a for name in PROJECTS for a in ("--project", str(base / name))]]) == 0
    path = base / "benchmark.yaml"
    outcomes = [f"  - {{system: {s}, project: {p}, submission: {s}-1}}" for p in PROJECTS
                for s in ("alpha", "beta", "gamma") if (p, s) != ("s03", "beta")]
    path.write_text(path.read_text().replace("systems: []\noutcomes: []\n", "") + (
        f"judge: {JUDGE}\nsystems:\n"
        "  - {id: alpha, name: Alpha, model: a-1, harness: claude-code}\n"
        "  - {id: beta, name: Beta, model: b-1, harness: codex}\n"
        "  - {id: gamma, name: Gamma, model: g-1, harness: codex}\n"
        "outcomes:\n" + "\n".join(outcomes) + "\n"))
    return path


def robustness(capsys, bench: Path, *extra: str) -> dict:
    code, out, err = run_cli(capsys, "benchmark", "robustness", str(bench), *extra, "--json")
    assert code == 0, err
    return json.loads(out)


def test_the_ranks_and_the_intervals_of_leaving_a_project_out(bench: Path, capsys):
    # shared set s01, s02 (beta has no outcome on s03); final W+ = 143:
    #            s01              s02                 mean
    #   alpha   129 (fails 14)   121 (also A-01)     125 / 143 = 87.41
    #   beta     54               54                  54 / 143 = 37.76
    #   gamma   134 (fails 9)    118 (fails 25)      126 / 143 = 88.11
    # gamma 1, alpha 2, beta 3. s01 out: alpha 121 > gamma 118; s02 out: gamma 134 > alpha 129:
    # alpha and gamma each 1-2; beta is below both in every case: 3.
    result = robustness(capsys, bench)
    assert result["shared_projects"] == ["s01", "s02"] and result["metric"] == "final score mean"
    systems = {s["system"]: s for s in result["systems"]}
    assert {s: v["mean"] for s, v in systems.items()} == pytest.approx(
        {"alpha": float(Fraction(12500, 143)), "beta": float(Fraction(5400, 143)), "gamma": float(Fraction(12600, 143))})
    assert {s: v["rank"] for s, v in systems.items()} == {"alpha": 2, "beta": 3, "gamma": 1}
    assert {s: v["projects"] for s, v in systems.items()} == {"alpha": [1, 2], "beta": [3, 3], "gamma": [1, 2]}
    swaps = result["kinds"]["projects"]["swaps"]
    assert swaps == [{"rising": "alpha", "over": "gamma", "tied": False, "when": "s01 left out"}]
    assert result["kinds"]["projects"]["perturbations"] == 3
    for kind in ("projects", "criteria", "weights", "judge"):
        for s, v in systems.items():
            assert v[kind][0] <= v["rank"] <= v[kind][1], (kind, s)


def test_the_means_are_the_reports_and_leaving_a_criterion_out_is_every_case_scored(bench: Path, capsys):
    """The analyses rank on exactly the report's shared means; leaving a criterion out agrees with the
    brute force, each of the 2 x 28 cases scored by the engine one by one."""
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.report import benchmark_report
    from studio.benchmark.robustness import benchmark_ranking
    from tests.scoring.brute_ranks import brute_leave_criterion

    loaded = load_benchmark(bench)
    report = benchmark_report(loaded)
    for metric in ("final", "process"):
        ranking, _, _ = benchmark_ranking(loaded, metric)
        for system, summary in report.shared.systems.items():
            expected = summary.final_mean if metric == "final" else summary.process_mean
            assert float(ranking.means[system]) == pytest.approx(expected, abs=1e-12)
        result = robustness(capsys, bench, "--metric", metric)
        some, every = brute_leave_criterion(ranking)
        for s in ranking.systems:
            expected = [1 + sum((t, s) in every for t in ranking.systems), 1 + sum((t, s) in some for t in ranking.systems)]
            assert next(v["criteria"] for v in result["systems"] if v["system"] == s) == expected
        assert result["kinds"]["criteria"]["perturbations"] == 1 + sum(len(r.ids) for r in ranking.rubrics)
    assert report.shared.projects == ["s01", "s02"]


def test_judge_error_uses_the_expert_sample_and_names_its_size(bench: Path, capsys):
    # the sample (s03): 4 decisions, 2 judge passes of which 1 is an expert's fail, 2 judge fails of which
    # 1 an expert's pass. Budgets over the shared final rubrics (29 criteria: 23 positive, 4 negative,
    # 2 gates; every verdict there the judge's): alpha passes 20 on s01 and 19 on s02 = 39, fails 58 - 39
    # = 19: ceil(39 / 2) = 20 and ceil(19 / 2) = 10; gamma 21 + 18 = 39 and 19 as well; beta passes 8 per
    # project: 16 and 42: 8 and 21.
    result = robustness(capsys, bench)
    judge = result["judge_error"]
    assert judge["sample"] == {"judge": JUDGE, "decisions": 4, "judge_passes": 2, "false_passes": 1,
                               "judge_fails": 2, "false_fails": 1, "false_pass_rate": 0.5, "false_fail_rate": 0.5}
    assert judge["budgets"] == {
        "alpha": {"judge_passes": 39, "to_fail": 20, "judge_fails": 19, "to_pass": 10},
        "beta": {"judge_passes": 16, "to_fail": 8, "judge_fails": 42, "to_pass": 21},
        "gamma": {"judge_passes": 39, "to_fail": 20, "judge_fails": 19, "to_pass": 10}}
    assert "not a confidence interval" in judge["meaning"]
    assert result["kinds"]["judge"]["available"]
    code, out, err = run_cli(capsys, "benchmark", "robustness", str(bench))
    assert code == 0, err
    assert ("judge error: a worst case within a measured error budget, not a confidence interval; from 4 "
            "expert-settled decisions of judge:j1: false-pass rate 1/2 (50.0%) of its passes, false-fail rate 1/2 "
            "(50.0%) of its fails") in out
    assert "    alpha: up to 20 of its 39 judge passes may be fails, 10 of its 19 judge fails passes" in out
    assert "trio: final score means over the shared set (2 projects: s01, s02), 3 systems, scored by judge:j1" in out
    header = next(line for line in out.splitlines() if line.startswith("system"))
    assert header.split() == ["system", "mean", "rank", "leave", "a", "project", "out", "leave", "a", "criterion", "out",
                              "weights", "±1", "judge", "error"]
    assert any(line.split()[:4] == ["gamma", "88.11", "1", "1–2"] for line in out.splitlines())
    assert "  leave a project out:\n    alpha above gamma: s01 left out\n  leave a criterion out:\n" in out


def test_a_larger_delta_never_narrows_an_interval(bench: Path, capsys):
    narrow, wide = robustness(capsys, bench, "--delta", "0"), robustness(capsys, bench, "--delta", "3")
    assert narrow["kinds"]["weights"]["title"] == "weights ±0" and wide["delta"] == 3
    for a, b in zip(narrow["systems"], wide["systems"], strict=True):
        assert a["weights"] == [a["rank"], a["rank"]]  # no change: the nominal ranks
        assert b["weights"][0] <= a["weights"][0] and b["weights"][1] >= a["weights"][1]


def test_without_an_expert_sample_judge_error_is_unavailable(bench: Path, capsys, tmp_path: Path):
    copy = Path(shutil.copytree(bench.parent, tmp_path / "copy", symlinks=True))
    (expert_file,) = (copy / "s03" / "verdicts" / "alpha-1").glob("marta*.yaml")
    expert_file.unlink()
    (expert_file,) = (copy / "s03" / "verdicts" / "gamma-1").glob("marta*.yaml")
    expert_file.unlink()
    result = robustness(capsys, copy / "benchmark.yaml")
    assert result["kinds"]["judge"]["available"] is False
    assert result["kinds"]["judge"]["reason"].startswith("no expert sample")
    assert all(s["judge"] is None for s in result["systems"]) and result["judge_error"]["budgets"] == {}
    code, out, _ = run_cli(capsys, "benchmark", "robustness", str(copy))
    assert code == 0 and "judge error: unavailable: no expert sample" in out and "n/a" in out


def test_bad_options_and_a_benchmark_without_a_shared_set_say_so_in_one_line(bench: Path, capsys, tmp_path: Path):
    with pytest.raises(SystemExit) as stopped:
        main(["benchmark", "robustness", str(bench), "--delta", "12"])
    assert stopped.value.code == 2
    assert "give a whole number of weight points from 0 to 9 (got '12')" in capsys.readouterr().err
    code, _, err = run_cli(capsys, "benchmark", "report", str(bench), "--metric", "process")
    assert code == 2 and err.strip() == "dbstudio benchmark report: --delta and --metric go with `benchmark robustness`"
    copy = Path(shutil.copytree(bench.parent, tmp_path / "copy", symlinks=True))
    path = copy / "benchmark.yaml"
    path.write_text("\n".join(line for line in path.read_text().splitlines()
                              if "{system: beta," not in line) + "\n")
    code, out, err = run_cli(capsys, "benchmark", "robustness", str(copy))
    assert code == 2 and out == "" and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("dbstudio benchmark robustness: no shared project set to rank on: every project lacks a "
                          "known final score for some system (s01 (no known final score for beta); s02 (no known final score for beta); "
                          "s03 (no known final score for beta)); run and judge those pairs first (`dbstudio benchmark status`)")


def test_the_example_in_the_docs_is_this_benchmarks_output(bench: Path, capsys):
    docs = (Path(__file__).resolve().parents[2] / "docs" / "robustness.md").read_text(encoding="utf-8")
    block = docs.split("$ dbstudio benchmark robustness trio\n", 1)[1].split("```", 1)[0]
    code, out, err = run_cli(capsys, "benchmark", "robustness", str(bench))
    assert code == 0, err
    assert out == block
