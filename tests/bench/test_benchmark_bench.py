"""bench/benchmark_bench.py runs (--quick: three small projects, three systems) and its checks catch
a wrong answer: a report that counts an attempt not selected."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench import common
from bench.benchmark_bench import check_report, make_benchmark

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_bench_runs_and_finds_every_answer_right(tmp_path: Path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "benchmark_bench.py"), "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WRONG ANSWERS" not in done.stdout
    for figure in ("floor (libyaml over the verdict files)", "report (core)", "report (CLI, child)",
                   "grid first paint, cells filled", "Figures tab shown"):
        assert figure in done.stdout, done.stdout


def test_the_checks_catch_a_report_that_counts_an_attempt_not_selected(tmp_path: Path, monkeypatch):
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.report import benchmark_report

    monkeypatch.setattr(common, "wrong", [])
    made = make_benchmark(tmp_path / "suite", quick=True)
    check_report(made, benchmark_report(load_benchmark(made.path)))
    assert common.wrong == []
    # report the earlier attempt (judged failing throughout) instead of the selected one
    text = made.path.read_text()
    text = text.replace("submission: claude-1}", "submission: claude-1, selected: false, reason: x}", 1)
    text = text.replace("submission: claude-0, selected: false, reason: harness crashed}", "submission: claude-0}")
    made.path.write_text(text)
    check_report(made, benchmark_report(load_benchmark(made.path)))
    assert any("claude" in problem for problem in common.wrong), common.wrong
