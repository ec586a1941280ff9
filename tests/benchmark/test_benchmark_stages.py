"""The pairs' status in two stages, as the Benchmark window shows it: `run_states` reads no project's
rubrics or verdicts, and `benchmark_status` over those run states is `benchmark status` exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.benchmark.loader import load_benchmark
from studio.benchmark.status import READING, benchmark_status, run_states
from tests.benchmark.test_benchmark_file import written_bench


@pytest.fixture
def bench(tmp_path: Path, capsys) -> Path:
    return written_bench(tmp_path / "suite", capsys)


def test_run_states_read_no_project_and_complete_to_the_status(bench: Path, monkeypatch):
    from studio.benchmark import reading

    loaded = load_benchmark(bench)
    full = benchmark_status(loaded)
    with monkeypatch.context() as patched:
        def refused(*args: object) -> None:
            raise AssertionError("run_states read a project's rubrics or verdicts")

        patched.setattr(reading, "read_project", refused)
        states = run_states(loaded)
    assert [(p.system, p.project, p.run, p.detail, p.attempts) for p in states] == \
        [(p.system, p.project, p.run, p.detail, p.attempts) for p in full]
    assert [p.text for p in states] == [f"completed, {READING}, 2 attempts",
                                        f"failed: the agent exited 1 at T02, {READING}", full[2].text, "not started"]
    assert full[2].run == "missing"
    assert benchmark_status(loaded, runs=states) == full
    assert all(p.judging != READING for p in full)


def test_the_judging_is_read_project_by_project(bench: Path, monkeypatch):
    from studio.benchmark import reading
    from studio.benchmark.overview import benchmark_runs, with_judging

    overview = benchmark_runs(bench)
    full = benchmark_status(overview.loaded)
    assert overview.waiting() == ["kestrel-p01"]  # p02's pairs need no verdict: one missing, one not started
    real, read = reading.read_project, []

    def counted(project, project_id, reported):  # type: ignore[no-untyped-def]
        read.append(project_id)
        return real(project, project_id, reported)

    monkeypatch.setattr(reading, "read_project", counted)
    assert with_judging(overview, "kestrel-p02").status == overview.status and read == []
    judged = with_judging(overview, "kestrel-p01")
    assert judged.status == full and judged.judging_known and judged.waiting() == [] and read == ["kestrel-p01"]
