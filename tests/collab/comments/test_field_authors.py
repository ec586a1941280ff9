"""Who did what: two experts edit different fields of one criterion in a real repository; blame names
each field's author, and the history of the criterion lists both revisions with their changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from studio.collab.authors import field_authors, object_history
from studio.store.history import ProjectRepository
from studio.store.history_errors import HistoryError
from tests.helpers import git, run_cli

SAMPLE = Path(__file__).resolve().parents[3] / "projects" / "kestrel-refinancing"
RUBRIC = "subtasks/T01/rubric.yaml"


def _commit_as(root: Path, name: str, message: str) -> None:
    git(root, "-c", f"user.name={name}", "-c", f"user.email={name.split()[0].lower()}@example.com",
        "commit", "-q", "-am", message)


def _edit(root: Path, old: str, new: str) -> None:
    path = root / RUBRIC
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The sample saved by Ann; then Bob changes T01-C01's weight, Ann its text, Bob an unrelated criterion."""
    root = tmp_path / "kestrel"
    shutil.copytree(SAMPLE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    _commit_as(root, "Ann Auditor", "the sample")
    _edit(root, "weight: 8", "weight: 7")
    _commit_as(root, "Bob Banker", "T01-C01 weighs less")
    _edit(root, "The baseline workbook states", "The baseline net debt workbook states")
    _commit_as(root, "Ann Auditor", "T01-C01 names the workbook")
    _edit(root, "weight: -6", "weight: -5")
    _commit_as(root, "Bob Banker", "T01-C02 deducts less")
    return root


def test_blame_names_the_author_of_each_field(project):
    found = {f.field: f for f in field_authors(ProjectRepository(project), "T01-C01")}
    assert (found["weight"].author, found["weight"].value, found["weight"].message) == \
        ("Bob Banker", 7, "T01-C01 weighs less")
    assert found["text"].author == "Ann Auditor" and found["text"].value.startswith("The baseline net debt workbook")
    assert found["text"].message == "T01-C01 names the workbook"
    assert found["dimension"].author == "Ann Auditor" and found["dimension"].message == "the sample"
    assert found["review.status"].message == "the sample"  # a nested field is named to its leaf
    newest = git(project, "rev-parse", "HEAD~1").strip()
    assert found["text"].commit == newest


def test_history_of_a_criterion_lists_only_the_revisions_that_changed_it(project):
    revisions = object_history(ProjectRepository(project), "T01-C01")
    assert [(r.author, r.message) for r in revisions] == [
        ("Ann Auditor", "T01-C01 names the workbook"), ("Bob Banker", "T01-C01 weighs less"),
        ("Ann Auditor", "the sample")]
    assert [c.field for c in revisions[1].changes] == ["weight"]
    assert (revisions[1].changes[0].old, revisions[1].changes[0].new) == (8, 7)
    assert revisions[2].added and not revisions[0].added


def test_a_subtask_blames_its_rubric_and_instruction_fields(project):
    found = {f.field: f.author for f in field_authors(ProjectRepository(project), "T01")}
    assert found["rubric.T01-C01.weight"] == "Bob Banker"
    assert found["rubric.T01-C02.weight"] == "Bob Banker"
    assert found["rubric.T01-C01.text"] == "Ann Auditor"
    assert found["title"] == "Ann Auditor" and found["instruction text"] == "Ann Auditor"


def test_the_cli_blame_and_history_item(project, capsys):
    code, out, _ = run_cli(capsys, "blame", str(project), "T01-C01", "--format", "json")
    assert code == 0
    rows = {row["field"]: row for row in json.loads(out)}
    assert rows["weight"]["author"] == "Bob Banker" and rows["weight"]["value"] == 7
    code, out, _ = run_cli(capsys, "blame", str(project), "T01-C01")
    weight_line = next(line for line in out.splitlines() if line.startswith("weight"))
    assert "Bob Banker" in weight_line and weight_line.rstrip().endswith("7")
    code, out, _ = run_cli(capsys, "history", str(project), "--item", "T01-C01")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 3
    assert "Ann Auditor" in lines[0] and "T01-C01 names the workbook" in lines[0]
    assert "Bob Banker" in lines[1] and "T01-C01 weighs less" in lines[1]


@pytest.mark.parametrize(("object_id", "needle"), [("T77-C01", "no saved revision has"), ("a b", "not a subtask")])
def test_blame_of_an_unknown_id_exits_2(project, capsys, object_id, needle):
    code, _, err = run_cli(capsys, "blame", str(project), object_id)
    assert code == 2 and needle in err


def test_a_removed_criterion_is_said_so(project):
    text = (project / RUBRIC).read_text(encoding="utf-8")
    start = text.index("  - id: T01-C02")
    end = text.index("  - id:", start + 5)
    (project / RUBRIC).write_text(text[:start] + text[end:], encoding="utf-8")
    _commit_as(project, "Bob Banker", "T01-C02 dropped")
    with pytest.raises(HistoryError, match="removed in"):
        field_authors(ProjectRepository(project), "T01-C02")
    assert object_history(ProjectRepository(project), "T01-C02")[0].removed
