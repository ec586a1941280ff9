"""`dbstudio edit-impact` end to end: a copy of the sample project under real git, three submissions
judged through the real verdict store (every credit passes, every deduction and gate fails, except
the failures named below), then rubric edits in the working tree.

Before the edit the final scores rank run-b (fails A-02, 4 points) over run-a (fails A-01, 8) over
folder-c (fails A-01 and X-01, 17). The edit lowers A-01's weight to 7, which changes its version,
so every verdict on it stops counting: run-a's final then ranges over A-01 fail or pass, and so on.
b over a can reverse (a may gain the 7 and b lose them), b over c can too (c at most W+ - 9 against
b at least W+ - 11), a over c cannot (c at most W+ - 9, a at least W+ - 7).
The edit also drops T05-C06's `requires` (folder-c fails T05-C02: its T05 score rises, exactly, no
verdict stale) and adds T03-C07 (no verdict yet).

The oracle for every number is `dbstudio score --project`: before, on the saved project; after, on
the edited one with the open verdicts given (on the new criterion versions) as fail, then as pass."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from studio.scoring.project_rubrics import project_rubrics
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from tests.helpers import git, replace_in, run_cli

JUDGE = "judge:j1"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
FAILS = {"run-a": {("final", "A-01")},
         "run-b": {("final", "A-02")},
         "folder-c": {("final", "A-01"), ("final", "X-01"), ("T05", "T05-C02")}}
NEW_CRITERION = """\
  - id: T03-C07
    text: The register names who owns the extension request to the Venlo permit authority.
    covers:
      - T03:outputs/open_issues_register.md
    target: checkpoint
    dimension: completeness
    weight: 2
"""


def judge_all(root: Path, submissions: dict[str, set[tuple[str, str]]], only: set[tuple[str, str]] | None = None,
              value: str | None = None) -> None:
    """Store the judge's verdicts on the criteria as the folder has them now: pass for a credit, fail for
    a deduction or gate, fail where named; with `only`, just those decisions, every one `value`."""
    project = load_project(root).project
    versions = current_versions(project)
    store = VerdictStore(root)
    for submission, fails in submissions.items():
        given = []
        for scope, entries in project_rubrics(project).items():
            for entry in entries.values():
                key = (scope, entry.id)
                if only is not None and key not in only:
                    continue
                verdict = value or ("fail" if entry.gate or entry.weight < 0 or key in fails else "pass")
                given.append(Verdict(criterion=entry.id, scope=scope, verdict=verdict, rater=JUDGE, time=T0,
                                     criterion_version=versions[key]))
        store.put(submission, given)


def scores(capsys, root: Path) -> dict:
    code, out, err = run_cli(capsys, "score", "--project", str(root), "--json")
    assert code == 0, err
    return next(iter(json.loads(out)["projects"].values()))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    judge_all(root, FAILS)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Judged sample")
    return root


def edit(root: Path) -> None:
    text = (root / "final/rubric.yaml").read_text(encoding="utf-8")
    start = text.index("  - id: A-01")
    end = text.index("  - id: A-02")
    (root / "final/rubric.yaml").write_text(
        text[:start] + text[start:end].replace("weight: 8", "weight: 7") + text[end:], encoding="utf-8")
    replace_in(root, "subtasks/T05/rubric.yaml", "    requires:\n      - T05-C02\n", "")
    with (root / "subtasks/T03/rubric.yaml").open("a", encoding="utf-8") as handle:
        handle.write(NEW_CRITERION)


def span(data: dict) -> tuple[float, float]:
    return data["low"], data["high"]


def test_the_scores_before_and_after_and_the_orders_that_can_change(capsys, project: Path):
    saved = scores(capsys, project)
    edit(project)
    code, out, err = run_cli(capsys, "edit-impact", str(project), "--json")
    assert code == 0, err
    impact = json.loads(out)
    assert impact["against"] == git(project, "rev-parse", "HEAD").strip()
    assert {(c["scope"], c["criterion"], tuple(c["fields"]), c["stales"]) for c in impact["changes"]} == {
        ("final", "A-01", ("weight",), True), ("T05", "T05-C06", ("requires",), False),
        ("T03", "T03-C07", ("added",), False)}
    by_name = {s["submission"]: s for s in impact["submissions"]}
    assert set(by_name) == set(FAILS)
    for name, sub in by_name.items():
        before = saved[name]
        assert span(sub["final"]["before"]) == pytest.approx((before["final"], before["final"]))
        assert span(sub["process"]["before"]) == pytest.approx((before["process"], before["process"]))
        rubrics = sub["rubrics"]
        assert rubrics["final"]["stale"] == ["A-01"] and rubrics["final"]["missing"] == 1
        assert rubrics["T03"]["added"] == ["T03-C07"] and rubrics["T03"]["stale"] == []
        assert rubrics["T05"]["stale"] == [] and rubrics["T05"]["missing"] == 0
        assert sub["stale"] == 1 and sub["missing"] == 2
    t05 = by_name["folder-c"]["rubrics"]["T05"]
    assert t05["after"]["low"] == t05["after"]["high"] > t05["before"]["high"]  # the requires edit: exact, higher
    assert by_name["run-a"]["rubrics"]["T05"]["before"] == by_name["run-a"]["rubrics"]["T05"]["after"]
    assert {(f["measure"], f["above"], f["below"]) for f in impact["flips"]} >= {
        ("final", "run-b", "run-a"), ("final", "run-b", "folder-c")}
    assert ("final", "run-a", "folder-c") not in {(f["measure"], f["above"], f["below"]) for f in impact["flips"]}
    assert impact["rejudge"] == {"decisions": 6, "checks": 0, "requests": 6, "batch": 8, "judge_verdicts": 3,
                                 "people_verdicts": 0}

    # the oracle after the edit: the open verdicts given on the new versions, all fail, then all pass
    opened = {("final", "A-01"), ("T03", "T03-C07")}
    ends = []
    for value in ("fail", "pass"):
        judge_all(project, {name: set() for name in FAILS}, only=opened, value=value)
        ends.append(scores(capsys, project))
    for name, sub in by_name.items():
        for measure in ("final", "process"):
            assert span(sub[measure]["after"]) == pytest.approx((ends[0][name][measure], ends[1][name][measure]))
        for scope, rubric in sub["rubrics"].items():
            if scope != "final":
                assert span(rubric["after"]) == pytest.approx(
                    (ends[0][name]["checkpoints"][scope], ends[1][name]["checkpoints"][scope]))


def test_the_text_report(capsys, project: Path):
    edit(project)
    code, out, err = run_cli(capsys, "edit-impact", str(project))
    assert code == 0 and err == ""
    head = git(project, "rev-parse", "--short=8", "HEAD").strip()
    assert out.startswith(f"kestrel-refinancing: rubrics as saved at {head} -> as in the working tree\n")
    assert "final/A-01 weight (its verdicts stop counting)" in out and "T05/T05-C06 requires;" in out
    assert "orders the edit can change (" in out
    assert "final: run-b (" in out and "run-a can rank level or above it" in out
    assert "to judge again: 6 decision(s) in about 6 judge request(s) at 8 criteria a request" in out


def test_a_saved_edit_is_compared_with_an_earlier_revision(capsys, project: Path):
    edit(project)
    git(project, "commit", "-q", "-am", "Rubric edits")
    code, out, _ = run_cli(capsys, "edit-impact", str(project), "--json")
    assert code == 0
    now = json.loads(out)
    assert now["changes"] == [] and now["flips"] == [] and not any(s["changed"] for s in now["submissions"])
    code, out, _ = run_cli(capsys, "edit-impact", str(project), "--against", "HEAD~1", "--json")
    assert code == 0
    earlier = json.loads(out)
    assert {c["criterion"] for c in earlier["changes"]} == {"A-01", "T05-C06", "T03-C07"}
    assert all(s["stale"] == 1 for s in earlier["submissions"])


def test_no_edit_changes_nothing(capsys, project: Path):
    code, out, _ = run_cli(capsys, "edit-impact", str(project))
    assert code == 0
    assert "criteria changed: none that a score reads" in out and out.count("(unchanged)") == 6
    assert "orders the edit can change: none" in out and "to judge again: nothing" in out


def test_one_run_and_one_judge(capsys, project: Path):
    edit(project)
    code, out, err = run_cli(capsys, "edit-impact", str(project), "--run", "run-a", "--judge", JUDGE, "--json")
    assert code == 0, err
    impact = json.loads(out)
    assert [s["submission"] for s in impact["submissions"]] == ["run-a"] and impact["flips"] == []
    assert impact["judge"] == JUDGE


@pytest.mark.parametrize(("argv", "message"), [
    (["--against", "nosuchrev"], "unknown revision 'nosuchrev': use a commit id from `dbstudio history`"),
    (["--run", "run-z"], "--run run-z has no verdicts in"),
    (["--judge", "gpt"], "--judge gpt: a judge is named judge:MODEL"),
    (["--benchmark", "nowhere"], "nowhere"),
])
def test_bad_options_are_refused_in_words(capsys, project: Path, argv: list[str], message: str):
    code, out, err = run_cli(capsys, "edit-impact", str(project), *argv)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_a_folder_without_history_or_a_broken_file_is_refused_in_words(capsys, tmp_path: Path, project: Path):
    plain = Path(shutil.copytree(sample_project(), tmp_path / "plain"))
    code, _, err = run_cli(capsys, "edit-impact", str(plain))
    assert code == 2 and "is not under git version control" in err
    fresh = tmp_path / "fresh"
    shutil.copytree(sample_project(), fresh)
    git(fresh, "init", "-q", "-b", "main")
    code, _, err = run_cli(capsys, "edit-impact", str(fresh))
    assert code == 2 and "has no saved revision yet: save one first" in err
    replace_in(project, "final/rubric.yaml", "weight: 8", "weight: 80")
    code, _, err = run_cli(capsys, "edit-impact", str(project))
    assert code == 2 and "final/rubric.yaml:" in err and "fix them first" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "edit-impact", str(tmp_path / "nothing"))
    assert code == 2 and "nothing" in err and "Traceback" not in err


def test_a_project_without_verdicts_has_no_score_to_change(capsys, tmp_path: Path):
    root = Path(shutil.copytree(sample_project(), tmp_path / "unjudged"))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Sample")
    edit(root)
    code, out, _ = run_cli(capsys, "edit-impact", str(root))
    assert code == 0 and "no judged submissions: no score to change" in out


SYSTEMS = {"alpha": "run-a", "beta": "run-b", "gamma": "folder-c"}


def test_a_benchmark_ranks_its_systems_by_their_means_over_the_shared_set(capsys, tmp_path: Path, project: Path):
    """The edited project and an unedited copy of it (other id, the same verdicts): each system's mean
    after the edit ranges over its edited project's range, the copy's score fixed. beta over alpha can
    reverse ((100 + 94.41) / 2 = 97.2 at best for alpha, (92.25 + 97.20) / 2 = 94.7 at worst for beta);
    beta and alpha over gamma cannot; the process means tie alpha and beta, so they are not ranked."""
    other = Path(shutil.copytree(project, tmp_path / "kestrel-2", ignore=shutil.ignore_patterns(".git")))
    replace_in(other, "project.yaml", "id: kestrel-refinancing", "id: kestrel-two")
    judge_all(other, FAILS)  # the verdicts again: their versions do not depend on the project's id
    edit(project)
    code, _, err = run_cli(capsys, "benchmark", "new", str(tmp_path), "--id", "pair", "--title", "Pair",
                           "--project", str(project), "--project", str(other))
    assert code == 0, err
    path = tmp_path / "benchmark.yaml"
    outcomes = [f"  - {{system: {system}, project: {pid}, submission: {submission}}}"
                for pid in ("kestrel-refinancing", "kestrel-two") for system, submission in SYSTEMS.items()]
    path.write_text(path.read_text().replace("systems: []\noutcomes: []\n", "") + (
        f"judge: {JUDGE}\nsystems:\n"
        + "".join(f"  - {{id: {s}, name: {s.title()}, model: m-{s}, harness: claude-code}}\n" for s in SYSTEMS)
        + "outcomes:\n" + "\n".join(outcomes) + "\n"))
    code, out, err = run_cli(capsys, "edit-impact", str(project), "--benchmark", str(path), "--json")
    assert code == 0, err
    found = json.loads(out)
    bench = found["benchmark"]
    assert bench["project"] == "kestrel-refinancing" and bench["shared"] == ["kestrel-refinancing", "kestrel-two"]
    assert [(f["measure"], f["above"], f["below"]) for f in bench["flips"]] == [("final", "beta", "alpha")]
    copy = scores(capsys, other)
    for system, submission in SYSTEMS.items():
        edited = next(s for s in found["submissions"] if s["submission"] == submission)
        assert edited["system"] == system
        for measure in ("final", "process"):
            fixed = copy[submission][measure]
            for side in ("before", "after"):
                low, high = span(edited[measure][side])
                assert span(bench["means"][system][measure][side]) == pytest.approx(
                    ((low + fixed) / 2, (high + fixed) / 2))
    code, out, _ = run_cli(capsys, "edit-impact", str(project), "--benchmark", str(path))
    assert code == 0 and "benchmark pair (judge judge:j1): means over the shared set, 2 project(s)" in out
    assert "final: beta (" in out and "alpha can rank level or above it" in out

    code, _, err = run_cli(capsys, "edit-impact", str(tmp_path / "kestrel-2"), "--benchmark", str(path), "--run", "x")
    assert code == 2 and "leave out --judge and --run" in err
    outsider = Path(shutil.copytree(project, tmp_path / "outsider"))
    code, _, err = run_cli(capsys, "edit-impact", str(outsider), "--benchmark", str(path))
    assert code == 2 and "is not one of the projects of" in err and "kestrel-two (kestrel-2)" in err
