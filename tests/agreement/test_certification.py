"""Judge certification and scores corrected for the judge's error, on a verdict store built here
from the blank template, checked against hand-computed values and second implementations
(statsmodels' Wilson interval, scikit-learn's kappa, a loop-by-loop bootstrap)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

from studio.agreement.certification import needed_per_class
from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from studio.store.loader import load_project
from tests.helpers import copy_blank, run_cli

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
Z = 1.959963984540054
GOOD, LENIENT, COIN = "judge:good", "judge:lenient", "judge:coin"
RUNS = [f"run-{n:02d}" for n in range(20)]


def put(project: Path, submission: str, rater: str, verdicts: dict[tuple[str, str], str]) -> None:
    versions = current_versions(load_project(project).project)
    VerdictStore(project).put(submission, [
        Verdict(criterion=criterion, scope=scope, verdict=value, rater=rater, time=T0,  # type: ignore[arg-type]
                criterion_version=versions[(scope, criterion)]) for (scope, criterion), value in verdicts.items()])


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return certified_project(tmp_path / "blank")


def certified_project(root: Path) -> Path:
    """20 runs, two checked decisions each: T01/T01-C01 (target checkpoint) and final/A-01 (target
    artifact). The expert Anna passes both on runs 00-09 and fails both on runs 10-19: 20 people
    pass, 20 people fail.
    judge:good agrees everywhere.
    judge:lenient fails T01-C01 on runs 00-01 (2 false fails) and passes it on runs 10-15 (6 false
    passes): sensitivity 18/20, specificity 14/20.
    judge:coin passes everything: sensitivity 20/20, specificity 0/20.
    run-x (unchecked): lenient alone on final T01-C01 pass, T02-C01 fail, PKG-01 pass, and on T01
    fail; Anna alone on final A-01 pass."""
    copy_blank(root)
    for number, run in enumerate(RUNS):
        truth = "pass" if number < 10 else "fail"
        settled = {("T01", "T01-C01"): truth, ("final", "A-01"): truth}
        put(root, run, "Anna", settled)
        put(root, run, GOOD, settled)
        lenient = dict(settled)
        if number < 2:
            lenient[("T01", "T01-C01")] = "fail"
        if 10 <= number < 16:
            lenient[("T01", "T01-C01")] = "pass"
        put(root, run, LENIENT, lenient)
        put(root, run, COIN, {key: "pass" for key in settled})
    put(root, "run-x", LENIENT, {("final", "T01-C01"): "pass", ("final", "T02-C01"): "fail",
                                 ("final", "PKG-01"): "pass", ("T01", "T01-C01"): "fail"})
    put(root, "run-x", "Anna", {("final", "A-01"): "pass"})
    return root


def certify_json(capsys, project: Path, *extra: str) -> dict:
    code, out, err = run_cli(capsys, "verdicts", "certify", str(project), "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_needed_decisions_by_hand() -> None:
    # all n agreeing: the Wilson lower bound is n / (n + z²); n >= 0.8 · 3.8415 / 0.2 = 15.37 -> 16
    assert needed_per_class(0.8) == 16
    assert 15 / (15 + Z * Z) < 0.8 <= 16 / (16 + Z * Z)
    assert needed_per_class(0.9) == 35  # 0.9 · 3.8415 / 0.1 = 34.57


def test_certification_pooled_by_hand_and_by_statsmodels(capsys, project: Path) -> None:
    report = certify_json(capsys, project, "--certify-at", "0.8")
    pooled = {c["judge"]: c for c in report["certificates"] if c["kind"] == "project"}
    good, lenient, coin = pooled[GOOD], pooled[LENIENT], pooled[COIN]
    # judge:good: 20/20 and 20/20; lower bounds 20 / (20 + z²) = 0.83887 >= 0.8: certified
    assert (good["true_pass"], good["people_pass"], good["true_fail"], good["people_fail"]) == (20, 20, 20, 20)
    assert good["sensitivity_wilson95"][0] == pytest.approx(20 / (20 + Z * Z), abs=1e-6)
    assert good["status"] == "certified" and good["certified"] is True
    # judge:lenient: sensitivity 18/20 = 0.9, specificity 14/20 = 0.7; lower bounds below 0.8
    assert (lenient["sensitivity"], lenient["specificity"]) == (0.9, 0.7)
    for key, (k, n) in (("sensitivity_wilson95", (18, 20)), ("specificity_wilson95", (14, 20))):
        low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert lenient[key] == pytest.approx([low, high], abs=1e-6)
        assert lenient[key] == pytest.approx(list(wilson_by_hand(k, n)), abs=1e-6)
    assert lenient["specificity_wilson95"][0] == pytest.approx(0.481018, abs=1e-5)  # centre 0.66777 - half 0.18675
    assert lenient["status"] == "not certified" and "specificity lower bound 0.481 < 0.8" in lenient["reason"]
    # agreement (18 + 14) / 40 = 0.8; kappa: po 0.8, pe = (24/40·20/40 + 16/40·20/40) = 0.5, (0.8-0.5)/0.5 = 0.6
    assert lenient["agreement"] == 0.8 and lenient["cohen_kappa"] == pytest.approx(0.6)
    judged = ["fail"] * 2 + ["pass"] * 18 + ["pass"] * 6 + ["fail"] * 14
    people = ["pass"] * 20 + ["fail"] * 20
    assert lenient["cohen_kappa"] == pytest.approx(cohen_kappa_score(judged, people))
    # judge:coin: specificity 0/20; never certified, kappa 0 (it always says pass)
    assert coin["specificity"] == 0.0 and coin["status"] == "not certified"


def test_too_few_decisions_per_target_is_never_certified(capsys, project: Path) -> None:
    report = certify_json(capsys, project)
    by_target = {(c["judge"], c["scope"]): c for c in report["certificates"] if c["kind"] == "target"}
    checkpoint = by_target[(GOOD, "checkpoint")]
    # 10 people pass and 10 people fail per target, 16 of each needed at 0.8: even perfect agreement is not enough
    assert (checkpoint["people_pass"], checkpoint["people_fail"], checkpoint["sensitivity"]) == (10, 10, 1.0)
    assert checkpoint["status"] == "not enough expert verdicts" and checkpoint["certified"] is False
    assert "10 the experts passed (at least 16 needed) and 10 the experts failed (at least 16 needed)" \
        in checkpoint["reason"]
    # scope T01 for judge:lenient: 8 of the 10 people-pass credited, 4 of the 10 people-fail caught
    t01 = next(c for c in report["certificates"] if (c["judge"], c["kind"], c["scope"]) == (LENIENT, "scope", "T01"))
    assert (t01["true_pass"], t01["people_pass"], t01["true_fail"], t01["people_fail"]) == (8, 10, 4, 10)
    assert t01["specificity_wilson95"] == pytest.approx(list(proportion_confint(4, 10, method="wilson")), abs=1e-6)
    assert report["interval"] == "Wilson score interval, 95%"


def test_judges_side_by_side_on_the_same_decisions(capsys, project: Path) -> None:
    code, out, err = run_cli(capsys, "verdicts", "certify", str(project), "--judge", GOOD, "--judge", LENIENT)
    assert code == 0, err
    assert "Side by side on the 40 decision(s)" in out
    rows = [line for line in out.splitlines() if "same decisions" in line]
    assert len(rows) == 2 and rows[0].startswith(GOOD) and rows[1].startswith(LENIENT)
    assert "18/20 0.90 [0.70, 0.97]" in rows[1] and "14/20 0.70 [0.48, 0.85]" in rows[1]
    assert rows[0].endswith("certified") and rows[1].endswith("not certified")
    assert COIN not in out


def test_no_expert_verdicts_and_one_class_missing(capsys, tmp_path: Path) -> None:
    root = copy_blank(tmp_path / "blank")
    put(root, "run-a", GOOD, {("T01", "T01-C01"): "pass"})
    report = certify_json(capsys, root)
    (only,) = [c for c in report["certificates"] if c["kind"] == "project"]
    assert only["decisions"] == 0 and only["sensitivity"] is None and only["status"] == "not enough expert verdicts"
    code, out, err = run_cli(capsys, "score", "--project", str(root), "--corrected")
    assert code == 0, err
    assert "no decision is checked by experts: the judge's error is not measured" in out
    # the experts only ever pass: specificity unknown, no corrected number
    put(root, "run-a", "Anna", {("T01", "T01-C01"): "pass"})
    put(root, "run-b", GOOD, {("T01", "T01-C01"): "fail"})
    code, out, err = run_cli(capsys, "score", "--project", str(root), "--corrected", "--format", "json")
    assert code == 0, err
    (scores,) = json.loads(out)["corrected"]["projects"]
    run_b = next(s for s in scores["scores"] if s["submission"] == "run-b" and s["scope"] == "T01")
    assert run_b["raw"] == 0.0 and run_b["corrected"] is None
    assert "no checked decision the experts failed: the judge's specificity is unknown" in run_b["reason"]


def corrected(capsys, project: Path, *extra: str) -> dict:
    code, out, err = run_cli(capsys, "score", "--project", str(project), "--corrected", "--format", "json", *extra)
    assert code == 0, err
    (found,) = json.loads(out)["corrected"]["projects"]
    return {(s["submission"], s["scope"]): s for s in found["scores"]}


def test_corrected_scores_by_hand(capsys, project: Path) -> None:
    scores = corrected(capsys, project, "--judge", LENIENT)
    # sensitivity 0.9, specificity 0.7: J = se + sp - 1 = 0.6.
    # run-x final (W+ = 5 + 6 + 4 + 5 = 20): raw = (T01-C01 5 + PKG-01 5 + A-01 4) / 20 = 70.
    # The judge decided T01-C01, T02-C01, PKG-01 (credit 10, weight 16); Anna settled A-01 (credit 4):
    # corrected = (4 + (10 + (0.7 - 1) · 16) / 0.6) / 20 · 100 = (4 + 5.2 / 0.6) / 20 · 100 = 63.3333
    final = scores[("run-x", "final")]
    assert final["raw"] == 70.0 and final["corrected"] == pytest.approx(63.3333, abs=1e-4)
    # run-x T01: judge fail -> (0 - 0.3 · 5) / 0.6 = -2.5 of 5, clipped to 0
    assert scores[("run-x", "T01")]["corrected"] == 0.0
    # a checked run: T01 settled by Anna, so raw and corrected agree; its final has missing verdicts
    assert scores[("run-00", "T01")]["raw"] == scores[("run-00", "T01")]["corrected"] == 100.0
    assert scores[("run-00", "final")]["corrected"] is None
    assert "missing verdict(s)" in scores[("run-00", "final")]["reason"]
    # T02 has no verdict on run-x: the process score (mean of the checkpoints) is not corrected
    assert scores[("run-x", "process")]["corrected"] is None


def test_correction_undefined_when_the_judge_is_no_better_than_chance(capsys, project: Path) -> None:
    put(project, "run-y", COIN, {("T01", "T01-C01"): "pass"})
    scores = corrected(capsys, project, "--judge", COIN)
    # judge:coin: 20/20 + 0/20 - 1 = 0: undefined, never a number
    run_y = scores[("run-y", "T01")]
    assert run_y["raw"] == 100.0 and run_y["corrected"] is None
    assert "sensitivity + specificity - 1 = 0.000" in run_y["reason"]


def test_correction_per_target(capsys, project: Path) -> None:
    scores = corrected(capsys, project, "--judge", LENIENT, "--correct-by", "target")
    # run-x's final PKG-01 is target package, which no expert checked: undefined
    assert scores[("run-x", "final")]["corrected"] is None
    assert "of target package is checked by experts" in scores[("run-x", "final")]["reason"]
    # run-x T01 (target checkpoint): se 8/10, sp 4/10, J = 0.2: (0 - 0.6 · 5) / 0.2 < 0 -> clipped 0
    assert scores[("run-x", "T01")]["corrected"] == 0.0


def test_bootstrap_interval_matches_a_loop_by_loop_bootstrap(capsys, project: Path) -> None:
    resamples, seed = 300, 7
    scores = corrected(capsys, project, "--judge", LENIENT, "--bootstrap", str(resamples), "--seed", str(seed))
    again = corrected(capsys, project, "--judge", LENIENT, "--bootstrap", str(resamples), "--seed", str(seed))
    assert scores == again  # seeded: reproducible
    # The same draws, one resample at a time: items are the 20 runs' T01 and final scopes (40, sorted),
    # each checked once; a resample counts each item as often as it was drawn.
    items = sorted([f"blank/{run}/T01" for run in RUNS] + [f"blank/{run}/final" for run in RUNS])
    cell = {}
    for number, run in enumerate(RUNS):
        truth = "pass" if number < 10 else "fail"
        judged = "fail" if number < 2 else "pass" if 10 <= number < 16 else truth
        cell[f"blank/{run}/T01"] = (judged, truth)
        cell[f"blank/{run}/final"] = (truth, truth)
    project_id = load_project(project).project.info.id
    items = [item.replace("blank/", f"{project_id}/") for item in items]
    cell = {key.replace("blank/", f"{project_id}/"): value for key, value in cell.items()}
    items = sorted(items)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(items), size=(resamples, len(items)))
    values = []
    for row in picks:
        tp = fn = tn = fp = 0
        for pick in row:
            judged, truth = cell[items[pick]]
            tp += judged == truth == "pass"
            fn += judged == "fail" and truth == "pass"
            tn += judged == truth == "fail"
            fp += judged == "pass" and truth == "fail"
        se, sp = tp / (tp + fn), tn / (tn + fp)
        if se + sp - 1 <= 0:
            continue
        values.append(min(100.0, max(0.0, (4 + (10 + (sp - 1) * 16) / (se + sp - 1)) / 20 * 100)))
    low, high = np.percentile(values, [2.5, 97.5])
    final = scores[("run-x", "final")]
    assert final["bootstrap95"] == pytest.approx([low, high], abs=1e-5)
    assert final["undefined_resamples"] == resamples - len(values)
    assert low <= final["corrected"] <= high


def test_bad_options_are_clear(capsys, project: Path) -> None:
    code, _, err = run_cli(capsys, "verdicts", "certify", str(project), "--certify-at", "1.5")
    assert code == 2 and "--certify-at takes a share between 0 and 1" in err
    code, _, err = run_cli(capsys, "score", "--project", str(project), "--corrected")
    assert code == 2 and "choose one with --judge" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "score", "--project", str(project), "--bootstrap", "100")
    assert code == 2 and "go with --corrected" in err
    code, _, err = run_cli(capsys, "verdicts", "certify", str(project), "--judge", "judge:nobody")
    assert code == 2 and "no such judge" in err


def test_rates_come_from_every_checked_run_when_runs_are_chosen(capsys, project: Path) -> None:
    # --run run-x scores run-x only; the judge's error is still measured on runs 00-19 (se 0.9, sp 0.7)
    code, out, err = run_cli(capsys, "score", "--project", str(project), "--corrected", "--judge", LENIENT,
                             "--run", "run-x")
    assert code == 0, err
    assert "error measured on all criteria: sensitivity 0.900 (18/20), specificity 0.700 (14/20)" in out
    final = next(line for line in out.splitlines() if line.strip().startswith("run-x") and " final " in line)
    assert final.split()[2:4] == ["70.00", "63.33"]


def test_export_still_takes_one_judge(capsys, project: Path, tmp_path: Path) -> None:
    out = tmp_path / "score.csv"
    code, _, err = run_cli(capsys, "verdicts", "export", str(project), "--format", "score", str(out),
                           "--judge", GOOD, "--judge", LENIENT)
    assert code == 2 and "export takes one --judge" in err and not out.exists()
    code, _, err = run_cli(capsys, "verdicts", "export", str(project), "--format", "json", str(out))
    assert code == 2 and "export needs --format score" in err
    code, _, err = run_cli(capsys, "verdicts", "export", str(project), "--format", "score", str(out), "--judge", LENIENT)
    assert code == 0, err
    assert "new-project,run-x,final,T02-C01,6,artifact,correctness,fail,,,run-x,judge:lenient" \
        in out.read_text(encoding="utf-8-sig")


def test_signed_weights_and_a_fatal_gate(capsys, project: Path) -> None:
    # T02: T02-C01 (6), T02-C02 (4, requires T02-C01), the gate T02-G01 (0), T02-N01 (-2); W+ = 10.
    put(project, "run-w", LENIENT, {("T02", "T02-C01"): "pass", ("T02", "T02-C02"): "pass",
                                    ("T02", "T02-G01"): "fail", ("T02", "T02-N01"): "pass"})
    put(project, "run-z", LENIENT, {("T02", "T02-C01"): "pass", ("T02", "T02-C02"): "pass",
                                    ("T02", "T02-G01"): "pass", ("T02", "T02-N01"): "fail"})
    scores = corrected(capsys, project, "--judge", LENIENT)
    # run-w raw = (6 + 4 - 2) / 10 = 80; the judge decided all: credit 8 on signed weight 8:
    # corrected = (8 + (0.7 - 1) · 8) / 0.6 / 10 · 100 = 5.6 / 0.6 · 10 = 93.3333
    run_w = scores[("run-w", "T02")]
    assert run_w["raw"] == 80.0 and run_w["corrected"] == pytest.approx(93.3333, abs=1e-4)
    # run-z: the gate triggered: its 0 stands, uncorrected, and says so
    run_z = scores[("run-z", "T02")]
    assert run_z["raw"] == run_z["corrected"] == 0.0
    assert "a fatal gate is triggered" in run_z["reason"]
