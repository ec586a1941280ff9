"""The verdict store on real files and real git: format, merging, atomic writes, located errors,
and two experts' work on two clones merged without a conflict."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError

from studio.judging.errors import JudgingError
from studio.judging.verdict_store import VerdictFileError, VerdictStore, rater_slug
from studio.judging.verdicts import Verdict, criterion_version
from studio.model import Criterion
from studio.store import layout
from tests.helpers import copy_blank

T0 = datetime(2026, 11, 30, 20, 15, 3, tzinfo=UTC)


def verdict(criterion: str, scope: str, value: str = "pass", rater: str = "Marta Lindqvist", **extra) -> Verdict:
    return Verdict(criterion=criterion, scope=scope, verdict=value, rater=rater, time=extra.pop("time", T0),
                   criterion_version=extra.pop("criterion_version", "0123456789abcdef"), **extra)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@example.org", "HOME": str(cwd), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_blank(tmp_path / "project")


def test_criterion_version_changes_with_text_weight_and_gate_only() -> None:
    base = Criterion(id="C1", text="The memo states net debt.", weight=5, target="checkpoint", dimension="correctness")
    version = criterion_version(base)
    assert len(version) == 16 and int(version, 16) >= 0
    assert criterion_version(base.model_copy(update={"covers": ["T01:outputs/memo.md"]})) == version
    assert criterion_version(base.model_copy(update={"text": "The memo states gross debt."})) != version
    assert criterion_version(base.model_copy(update={"weight": 6})) != version
    assert criterion_version(base.model_copy(update={"gate": True, "weight": 0})) != version


def test_verdict_time_is_kept_in_utc_to_the_second() -> None:
    plus_two = timezone(timedelta(hours=2))
    given = verdict("C1", "T01", time=datetime(2026, 11, 30, 22, 15, 3, 999, tzinfo=plus_two))
    assert given.time == T0 and given.time.tzinfo is UTC
    assert verdict("C1", "T01", time=datetime(2026, 11, 30, 20, 15, 3)).time == T0  # naive is UTC
    with pytest.raises(ValidationError):
        verdict("C1", "T01", value="partial")
    with pytest.raises(ValidationError):
        verdict("C1", "T01", rater="two\nlines")


def test_file_is_one_block_per_verdict_sorted_along_the_timeline(project: Path) -> None:
    store = VerdictStore(project)
    given = [verdict("F-C1", "final", "fail"), verdict("T02-C10", "T02", "na", note="does not apply: \"no\" deal\nat all"),
             verdict("T02-C2", "T02", evidence=["outputs/model.xlsx!Debt!B4", "outputs/memo.pdf#page=3"]),
             verdict("T01-C01", "T01", "missing")]
    store.put("run-1", given)
    path = project / "verdicts" / "run-1" / "marta-lindqvist.yaml"
    assert store.path("run-1", "Marta Lindqvist") == path
    text = path.read_text(encoding="utf-8")
    blocks = [line for line in text.splitlines() if line.startswith("  - scope:")]
    assert blocks == ["  - scope: T01", "  - scope: T02", "  - scope: T02", "  - scope: final"]
    criteria = [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("    criterion:")]
    assert criteria == ["T01-C01", "T02-C2", "T02-C10", "F-C1"]  # C2 before C10
    assert '    note: "does not apply: \\"no\\" deal\\nat all"' in text.splitlines()
    assert '    evidence: ["outputs/model.xlsx!Debt!B4", "outputs/memo.pdf#page=3"]' in text.splitlines()
    assert '    time: "2026-11-30T20:15:03Z"' in text.splitlines()
    # the same verdicts give the same bytes, whatever order they are put in
    store.put("run-1", list(reversed(given)))
    assert path.read_text(encoding="utf-8") == text
    assert sorted(store.read("run-1", "Marta Lindqvist"), key=repr) == sorted(given, key=repr)
    assert store.submissions() == ["run-1"] and store.raters("run-1") == ["Marta Lindqvist"]


def test_put_merges_by_scope_and_criterion_per_rater(project: Path) -> None:
    store = VerdictStore(project)
    store.put("run-1", [verdict("T01-C01", "T01", "fail"), verdict("T01-C02", "T01"),
                        verdict("T01-C01", "T01", "pass", rater="judge:qwen3")])
    store.put("run-1", [verdict("T01-C01", "T01", "pass", note="second look"), verdict("T01-C01", "final")])
    mine = {(v.scope, v.criterion): (v.verdict, v.note) for v in store.read("run-1", "Marta Lindqvist")}
    assert mine == {("T01", "T01-C01"): ("pass", "second look"), ("T01", "T01-C02"): ("pass", None),
                    ("final", "T01-C01"): ("pass", None)}
    assert [v.verdict for v in store.read("run-1", "judge:qwen3")] == ["pass"]
    assert sorted(store.raters("run-1")) == ["Marta Lindqvist", "judge:qwen3"]
    assert len(list(store.all())) == 4
    assert store.read("run-1", "nobody") == [] and store.read("run-2", "Marta Lindqvist") == []


def test_rater_file_names_and_their_clashes(project: Path) -> None:
    assert rater_slug("judge:openai/gpt-4o") == "judge-openai-gpt-4o"
    assert rater_slug("Élodie Brémond") == "elodie-bremond"
    with pytest.raises(JudgingError, match="letter or digit"):
        rater_slug("???")
    store = VerdictStore(project)
    store.put("run-1", [verdict("T01-C01", "T01", rater="Anna")])
    with pytest.raises(JudgingError, match="same file"):
        store.put("run-1", [verdict("T01-C01", "T01", rater="anna")])
    assert store.read("run-1", "anna") == []  # her name's file is Anna's; nothing was overwritten
    assert [v.rater for v in store.read("run-1", "Anna")] == ["Anna"]
    for bad in ("../x", "a/b", ".hidden", ""):
        with pytest.raises(JudgingError, match="cannot name a folder"):
            store.path(bad, "Anna")


def test_written_atomically_and_a_failed_write_keeps_the_file(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = VerdictStore(project)
    store.put("run-1", [verdict("T01-C01", "T01")])
    path = store.path("run-1", "Marta Lindqvist")
    before = path.read_bytes()

    def disk_full(source: object, target: object) -> None:  # the rename that would replace the file fails
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(JudgingError, match="No space left on device.*nothing was changed"):
        store.put("run-1", [verdict("T01-C01", "T01", "fail")])
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == ["marta-lindqvist.yaml"]  # no temporary left


@pytest.mark.parametrize(("damage", "line", "words"), [
    (lambda t: t.replace("verdict: fail", "verdict: maybe"), 13, "field 'verdict'"),
    (lambda t: t.replace('time: "2026-11-30T20:15:03Z"', "time: soon", 1), 9, "field 'time'"),
    (lambda t: t.replace("    criterion: T01-C02\n", "    criterion: T01-C01\n"), 11, "listed again (first at line 6)"),
    (lambda t: t.replace("    verdict: fail\n", "<<<<<<< HEAD\n    verdict: fail\n"), 13, "merge conflict"),
    (lambda t: t.replace("verdict: fail", "verdict: fail: twice"), 13, "not valid YAML"),
    (lambda t: t.replace("  - scope: T01\n    criterion: T01-C02", "  - just text\n  - scope: T01\n    criterion: T01-C02"),
     11, "not a block"),
])
def test_damaged_file_names_file_and_line(project: Path, damage, line: int, words: str) -> None:
    store = VerdictStore(project)
    store.put("run-1", [verdict("T01-C01", "T01"), verdict("T01-C02", "T01", "fail")])
    path = store.path("run-1", "Marta Lindqvist")
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    for read in (lambda: store.read("run-1", "Marta Lindqvist"), lambda: list(store.all()),
                 lambda: store.put("run-1", [verdict("T01-C03", "T01")])):
        with pytest.raises(VerdictFileError) as caught:
            read()
        assert f"{path}:{line}:" in str(caught.value) and words in str(caught.value)


def test_not_a_verdict_file(project: Path) -> None:
    path = project / "verdicts" / "run-1" / "someone.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(VerdictFileError, match=r"someone\.yaml:1: not a verdict file"):
        VerdictStore(project).raters("run-1")


def test_verdicts_are_not_git_ignored(project: Path) -> None:
    assert "verdicts" not in layout.GITIGNORE and "verdicts" not in (project / ".gitignore").read_text()
    git(project, "init", "-q")
    VerdictStore(project).put("run-1", [verdict("T01-C01", "T01")])
    git(project, "add", "-A")
    assert "verdicts/run-1/marta-lindqvist.yaml" in git(project, "diff", "--cached", "--name-only").splitlines()


def test_two_experts_on_two_clones_merge_without_conflict(tmp_path: Path) -> None:
    origin = copy_blank(tmp_path / "origin")
    git(origin, "init", "-q", "-b", "main")
    VerdictStore(origin).put("run-1", [verdict("T01-C01", "T01", "fail", rater="judge:qwen3")])
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "project and the judge's verdicts")
    first, second = tmp_path / "marta", tmp_path / "jonas"
    git(tmp_path, "clone", "-q", str(origin), str(first))
    git(tmp_path, "clone", "-q", str(origin), str(second))
    VerdictStore(first).put("run-1", [verdict("T01-C01", "T01", "pass", rater="Marta Lindqvist"),
                                      verdict("T01-C02", "T01", "fail", rater="Marta Lindqvist")])
    VerdictStore(second).put("run-1", [verdict("T01-C01", "T01", "fail", rater="Jonas Weber", note="no bridge")])
    for clone, name in ((first, "Marta"), (second, "Jonas")):
        git(clone, "add", "-A")
        git(clone, "commit", "-q", "-m", f"{name}'s verdicts")
    git(second, "push", "-q", "origin", "HEAD:jonas")
    git(first, "fetch", "-q", "origin", "jonas")
    git(first, "merge", "-q", "--no-edit", "FETCH_HEAD")  # asserts returncode 0: no conflict
    assert git(first, "status", "--porcelain") == ""
    merged = VerdictStore(first)
    assert sorted(merged.raters("run-1")) == ["Jonas Weber", "Marta Lindqvist", "judge:qwen3"]
    by_rater = {(v.rater, v.criterion): v.verdict for _, v in merged.all()}
    assert by_rater == {("judge:qwen3", "T01-C01"): "fail", ("Marta Lindqvist", "T01-C01"): "pass",
                        ("Marta Lindqvist", "T01-C02"): "fail", ("Jonas Weber", "T01-C01"): "fail"}


def test_puts_from_several_threads_lose_no_verdict(project: Path) -> None:
    """The app judges in the background while the expert reviews: every put of one rater is kept."""
    import threading

    store = VerdictStore(project)
    threads = [threading.Thread(target=store.put, args=("run-1", [verdict(f"T01-C{n:02d}", "T01")]))
               for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(v.criterion for v in store.read("run-1", "Marta Lindqvist")) == [f"T01-C{n:02d}" for n in range(12)]
