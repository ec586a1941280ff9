"""The benchmark file: `dbstudio benchmark new` writes and commits one (real git), `validate` locates
every problem at its line and column with the fix, `status` names every (system, project) pair's run,
judging and attempts. Projects are copies of the blank template with runs made as the runner leaves
them and verdicts in the store (tests/judging/scored_runs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.benchmark.loader import load_benchmark
from studio.runs.record import RunStatus, load_run, save_run
from tests.helpers import git, replace_in, run_cli
from tests.judging.scored_runs import JUDGE, RUN_A, RUN_B, scored_project


def two_projects(folder: Path) -> Path:
    """p01 (kestrel-p01) and p02 (kestrel-p02): run-a judged on all 9 criteria and completed; run-b
    judged with 2 verdicts missing, failed at T02."""
    for name in ("p01", "p02"):
        root = scored_project(folder / name)
        replace_in(root, "project.yaml", "id: new-project", f"id: kestrel-{name}")
        for run, status, message in ((RUN_A, RunStatus.COMPLETED, None),
                                     (RUN_B, RunStatus.FAILED, "the agent exited 1 at T02")):
            run_dir = root / "runs" / run
            record = load_run(run_dir)
            record.status, record.message = status, message
            save_run(run_dir, record)
    return folder


def new(capsys, folder: Path, *projects: str) -> tuple[int, str, str]:
    args = ["benchmark", "new", str(folder), "--id", "kestrel-suite", "--title", "Kestrel suite"]
    for project in projects:
        args += ["--project", project]
    return run_cli(capsys, *args)


SYSTEMS = """\
judge: {judge}
systems:
  - id: claude
    name: Claude Opus 5 / Claude Code
    model: claude-opus-5
    harness: claude-code
    harness_version: 2.1.278
  - id: codex
    name: GPT-5.6 / Codex CLI
    model: gpt-5.6
    harness: codex
    settings: {{reasoning_effort: high}}
    adaptations: [PDF guard]
outcomes:
  - {{system: claude, project: kestrel-p01, submission: {a}}}
  - {{system: claude, project: kestrel-p01, submission: {b}, selected: false, reason: Docker engine lost at T03}}
  - {{system: codex, project: kestrel-p01, submission: {b}}}
  - {{system: claude, project: kestrel-p02, submission: 20261201-000000-nothere}}
"""


def written_bench(folder: Path, capsys) -> Path:
    """two_projects in `folder` with a benchmark.yaml made by `benchmark new` and given SYSTEMS."""
    two_projects(folder)
    code, _, err = new(capsys, folder, str(folder / "p01"), str(folder / "p02"))
    assert code == 0, err
    path = folder / "benchmark.yaml"
    path.write_text(path.read_text().replace("systems: []\noutcomes: []\n", "")
                    + SYSTEMS.format(judge=JUDGE, a=RUN_A, b=RUN_B))
    return path


@pytest.fixture
def bench(tmp_path: Path, capsys) -> Path:
    return written_bench(tmp_path / "suite", capsys)


def test_new_writes_and_commits_the_file_beside_the_projects(tmp_path: Path, capsys):
    folder = two_projects(tmp_path / "suite")
    code, out, err = new(capsys, folder, str(folder / "p01"), str(folder / "p02"))
    assert code == 0, err and "2 project(s)" in out
    text = (folder / "benchmark.yaml").read_text()
    assert "id: kestrel-suite\ntitle: Kestrel suite\nprojects:\n- p01\n- p02\n" in text
    assert git(folder, "log", "--format=%s").strip() == "Create benchmark kestrel-suite"
    assert git(folder, "ls-files").split() == ["benchmark.yaml"]  # the projects are repositories of their own
    # again: refused, the file kept
    code, _, err = new(capsys, folder)
    assert code == 2 and "already exists" in err and (folder / "benchmark.yaml").read_text() == text


def test_new_refuses_what_is_not_a_project_and_leaves_the_folder_as_it_was(tmp_path: Path, capsys):
    folder = two_projects(tmp_path / "suite")
    before = sorted(p.name for p in folder.iterdir())
    code, _, err = new(capsys, folder, str(folder / "p01"), str(folder / "nothing"))
    assert code == 2 and "--project" in err and "no such folder" in err
    assert sorted(p.name for p in folder.iterdir()) == before  # no benchmark.yaml, no .git
    code, _, err = run_cli(capsys, "benchmark", "new", str(tmp_path / "x"), "--id", "bad id!", "--title", "T")
    assert code == 2 and "not an id" in err and not (tmp_path / "x").exists()


def test_a_good_benchmark_validates(bench: Path, capsys):
    code, out, err = run_cli(capsys, "benchmark", "validate", str(bench))
    assert code == 0, out + err
    assert "kestrel-suite: 2 project(s), 2 system(s), 3 reported outcome(s) of 4 pairs" in out


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_every_problem_is_located_with_its_fix(bench: Path, capsys):
    text = bench.read_text()
    text = text.replace("  - id: codex\n", "  - id: claude\n")  # a duplicate id
    text = text.replace("reason: Docker engine lost at T03", "selected: true")  # two reported, and a key twice
    text = text.replace("selected: false, selected: true", "selected: true")
    text += "  - {system: gemini, project: kestrel-p09, submission: x, selected: false}\n"
    bench.write_text(text)
    code, out, _ = run_cli(capsys, "benchmark", "validate", str(bench))
    assert code == 1
    found = {(int(line.split(":")[1]), line.split(": ", 2)[2]) for line in out.splitlines()}
    messages = "\n".join(message for _, message in found)
    assert (line_of(bench, "name: GPT-5.6") - 1,  # the second system's id
            "system id 'claude' is used twice (also systems item 1): give each system an id of its own") in found
    assert any(n == line_of(bench, f"submission: {RUN_B}, selected: true") and "has 2 reported outcomes" in m
               and "mark the others `selected: false` with a reason" in m for n, m in found)
    gemini = line_of(bench, "system: gemini")
    assert any(n == gemini and m.startswith("no system 'gemini' (systems: claude)") for n, m in found)
    assert any(n == gemini and "no project 'kestrel-p09'" in m and "kestrel-p01, kestrel-p02" in m for n, m in found)
    assert "attempt x is not selected but gives no reason" in messages


def test_schema_problems_and_broken_yaml_are_located(bench: Path, capsys):
    bench.write_text(bench.read_text().replace("    model: gpt-5.6\n", "    modle: gpt-5.6\n"))
    code, out, _ = run_cli(capsys, "benchmark", "validate", str(bench))
    assert code == 1
    assert f"benchmark.yaml:{line_of(bench, 'modle:')}:" in out and "unknown key 'modle'" in out
    assert "missing required key 'model'" in out
    bench.write_text("id: [unclosed\n")
    code, out, _ = run_cli(capsys, "benchmark", "validate", str(bench))
    assert code == 1 and "benchmark.yaml:" in out
    code, _, err = run_cli(capsys, "benchmark", "validate", str(bench.parent / "p01"))
    assert code == 2 and "no such file" in err and "benchmark new" in err


def test_a_project_listed_twice_or_sharing_an_id(bench: Path, capsys):
    folder = bench.parent
    replace_in(folder / "p02", "project.yaml", "id: kestrel-p02", "id: kestrel-p01")
    bench.write_text(bench.read_text().replace("- p02\n", "- p02\n- ./p01\n"))
    loaded = load_benchmark(bench)
    messages = [f.message for f in loaded.errors]
    assert any("projects p01 and p02 are both project 'kestrel-p01'" in m for m in messages)
    assert any("project ./p01 is listed twice (also item 1)" in m for m in messages)


def test_status_names_every_pair(bench: Path, capsys):
    code, out, err = run_cli(capsys, "benchmark", "status", str(bench), "--format", "json")
    assert code == 0, err
    pairs = {(p["system"], p["project"]): p for p in json.loads(out)["pairs"]}
    assert len(pairs) == 4  # 2 systems x 2 projects, none dropped
    claude = pairs[("claude", "kestrel-p01")]
    assert (claude["run"], claude["judging"], claude["verdicts"], claude["missing"], claude["attempts"]) == \
        ("completed", "scored", 9, 0, 2)
    codex = pairs[("codex", "kestrel-p01")]
    assert (codex["run"], codex["detail"], codex["judging"], codex["missing"]) == \
        ("failed", "the agent exited 1 at T02", "judged", 2)
    missing = pairs[("claude", "kestrel-p02")]
    assert missing["run"] == "missing" and "no run or submission 20261201-000000-nothere in p02" in missing["detail"]
    assert pairs[("codex", "kestrel-p02")]["run"] == "not started"
    code, out, _ = run_cli(capsys, "benchmark", "status", str(bench))
    assert code == 0
    assert "completed, scored, 2 attempts" in out and "failed: the agent exited 1 at T02, judged, 2 of 9 verdicts missing" in out
    assert f"1 of 4 pairs scored by {JUDGE}" in out


def test_status_of_a_named_submission_and_another_judge(bench: Path, capsys):
    from tests.judging.scored_runs import put

    put(bench.parent / "p02", "manual-upload", JUDGE, {("T01", "T01-C01"): "pass"})
    bench.write_text(bench.read_text().replace("submission: 20261201-000000-nothere", "submission: manual-upload"))
    code, out, _ = run_cli(capsys, "benchmark", "status", str(bench), "--format", "json")
    pairs = {(p["system"], p["project"]): p for p in json.loads(out)["pairs"]}
    upload = pairs[("claude", "kestrel-p02")]
    assert (upload["run"], upload["judging"], upload["verdicts"], upload["missing"]) == ("submitted", "judged", 1, 8)
    bench.write_text(bench.read_text().replace(f"judge: {JUDGE}", "judge: judge:someone-else"))
    code, out, _ = run_cli(capsys, "benchmark", "status", str(bench), "--format", "json")
    pairs = {(p["system"], p["project"]): p for p in json.loads(out)["pairs"]}
    assert pairs[("claude", "kestrel-p01")]["judging"] == "not judged"  # only the named judge's verdicts count


def test_store_mode_scores_group_runs_by_their_recorded_system(tmp_path: Path, capsys):
    from studio.runs.record import RunSystem

    root = scored_project(tmp_path / "p")

    def systems_scored() -> set[str]:
        code, out, err = run_cli(capsys, "score", "--project", str(root), "--format", "json")
        assert code == 0, err
        return set(json.loads(out)["projects"]["new-project"])

    assert systems_scored() == {f"claude-code@{RUN_A}", f"script:agent.sh@{RUN_B}"}  # no system recorded
    for run, system in ((RUN_A, "alpha"), (RUN_B, "beta")):
        record = load_run(root / "runs" / run)
        record.system = RunSystem(id=system, model="m")
        save_run(root / "runs" / run, record)
    assert systems_scored() == {"alpha", "beta"}
    record = load_run(root / "runs" / RUN_B)
    record.system = RunSystem(id="alpha")
    save_run(root / "runs" / RUN_B, record)
    # two attempts of one system are never merged into one score: each is named apart
    assert systems_scored() == {f"alpha@{RUN_A}", f"alpha@{RUN_B}"}
