"""A benchmark from runs to Table 5, for real: two projects x two script-harness systems run in
Docker by `dbstudio benchmark run` (two pairs at once), judged by `dbstudio benchmark judge`
against a loopback chat-completions server, reported by `dbstudio benchmark report`. System b's
agent exits 3 at T03: its runs fail there, their checkpoints are judged, their final scores stay
unknown and keep both projects out of the shared set, named. A second `run` has nothing to run, a
second `judge` reuses every verdict (nothing is sent again)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.runs.record import load_run
from tests.helpers import git, replace_in, run_cli
from tests.judging.chat_server import ChatServer
from tests.runs.harnesses import write_harness
from tests.runs.projects import three_subtask_project

PROJECTS = ("p01", "p02")


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-benchmark-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def suite(base: Path, image: str) -> Path:
    for name in PROJECTS:
        root = three_subtask_project(base / name, commit=False)
        replace_in(root, "project.yaml", "id: new-project", f"id: {name}")
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", name)
    write_harness(base / "agent-a.sh", listing=False)
    write_harness(base / "agent-b.sh", t03="exit 3", listing=False)
    path = base / "benchmark.yaml"
    settings = f"{{image: {image}, cpus: 1, memory: 512m}}"
    path.write_text(
        "id: e2e\ntitle: End to end\nprojects: [p01, p02]\njudge: judge:m1\nsystems:\n"
        f"  - {{id: a, name: Agent A, model: none, harness: 'script:agent-a.sh', harness_version: '1', settings: {settings}}}\n"
        f"  - {{id: b, name: Agent B, model: none, harness: 'script:agent-b.sh', settings: {settings}}}\n"
        "outcomes: []\n")
    return path


def test_run_judge_report_a_whole_benchmark(tmp_path: Path, capsys, test_image: str):
    bench = suite(tmp_path / "suite", test_image)
    code, out, err = run_cli(capsys, "benchmark", "run", str(bench), "--concurrency", "2")
    assert code == 1, out + err  # b fails at T03 on both projects
    assert "running 4 pair(s), 2 at once" in out and "2 of 4 pair(s) completed" in out
    for project in PROJECTS:  # a failed pair is named with its run, which exists and is in the outcomes
        assert any(line.startswith(f"b on {project}: ran 2") and ", failed: the harness exited with code 3 in T03"
                   in line for line in out.splitlines()), out
    code, out, _ = run_cli(capsys, "benchmark", "status", str(bench), "--format", "json")
    pairs = {(p["system"], p["project"]): p for p in json.loads(out)["pairs"]}
    assert {key: p["run"] for key, p in pairs.items()} == {
        ("a", "p01"): "completed", ("b", "p01"): "failed", ("a", "p02"): "completed", ("b", "p02"): "failed"}
    for (system, project), pair in pairs.items():
        record = load_run(bench.parent / project / "runs" / pair["submission"])
        assert record.system is not None and record.system.id == system  # recorded with its system
    assert all(p["judging"] == "not judged" for p in pairs.values())

    with ChatServer() as server:  # every statement holds
        code, out, err = run_cli(capsys, "benchmark", "judge", str(bench), "--endpoint", server.url)
        assert "judging 4 pair(s)" in out, out + err
        sent = len(server.requests)
        assert sent > 0 and all(r.body["model"] == "m1" for r in server.requests)  # the pinned judge's model
        code_again, out_again, _ = run_cli(capsys, "benchmark", "judge", str(bench), "--endpoint", server.url)
        assert len(server.requests) == sent  # resumable: what is judged is never asked again
    assert code == 0 and "4 of 4 pair(s) judged in full" in out
    assert "judged 5, reused 0, missing 0; no checkpoint for T03, final" in out  # b's T01 and T02
    # a's pairs are scored and left alone; b's failed runs are asked again and reuse all they had
    assert code_again == 0 and "judging 2 pair(s)" in out_again
    assert out_again.count("judged 0, reused 5, missing 0; no checkpoint for T03, final") == 2
    code, out, _ = run_cli(capsys, "benchmark", "run", str(bench))
    assert code == 0 and "nothing to run" in out

    code, out, err = run_cli(capsys, "benchmark", "report", str(bench), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    for project in PROJECTS:
        assert report["projects"][project]["a"]["final"] is not None
        assert report["projects"][project]["b"]["final"] is None  # no final package
        # the numbers are dbstudio score's over the project's store, each run under its system's id
        code, scored, _ = run_cli(capsys, "score", "--project", str(bench.parent / project), "--format", "json")
        by_run = json.loads(scored)["projects"][project]
        run_a = by_run["a"]  # a run recorded with its system is scored as that system
        assert report["projects"][project]["a"]["final"] == run_a["final"]
        assert report["projects"][project]["a"]["checkpoints"] == run_a["checkpoints"]
    assert report["shared"]["projects"] == [] and report["shared"]["left_out"] == {"p01": ["b"], "p02": ["b"]}
    assert sorted(report["systems"]["b"]["final_left_out"]) == ["p01", "p02"]
    # resources: each pair's agent time is its subtask intervals summed; a script harness reports no tokens
    for (system, project), pair in pairs.items():
        record = load_run(bench.parent / project / "runs" / pair["submission"])
        spent = sum((s.ended - s.started).total_seconds() for s in record.subtasks if s.started and s.ended)
        (entry,) = [r for r in report["resources"]["pairs"] if (r["system"], r["project"]) == (system, project)]
        assert entry["agent_s"] == pytest.approx(spent, abs=0.05) and entry["agent_s"] > 0
        assert entry["tokens"] is None
    assert report["resources"]["systems"]["a"]["unknown_tokens"] == ["p01", "p02"]
