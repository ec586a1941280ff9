"""Comment threads kept in the project: opened, replied to, resolved and reopened through the CLI, saved
with the project, merged between two clones without conflict, and checked by validate."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from studio.collab.comments import CommentError, add_thread, list_threads, reply, resolve
from studio.store.history import ProjectRepository
from studio.store.loader import load_project
from tests.helpers import git, run_cli

SAMPLE = Path(__file__).resolve().parents[3] / "projects" / "kestrel-refinancing"


def _identify(folder: Path, name: str, email: str) -> None:
    git(folder, "config", "user.name", name)
    git(folder, "config", "user.email", email)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The sample project in a repository of its own, with one saved revision by Ann."""
    root = tmp_path / "kestrel"
    shutil.copytree(SAMPLE, root)
    git(root, "init", "-q", "-b", "main")
    _identify(root, "Ann Auditor", "ann@example.com")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the sample")
    return root


def _thread_id(out: str) -> str:
    return out.split("thread ", 1)[1].split()[0]


def test_a_thread_round_trips_through_the_cli_and_survives_save_and_reload(project, capsys):
    code, out, _ = run_cli(capsys, "comment", str(project), "add", "T03-C01", "factual support?")
    assert code == 0
    thread_id = _thread_id(out)
    assert (project / "comments" / f"{thread_id}.yaml").is_file()
    assert ProjectRepository(project).status()[0].change == "untracked"  # written, not committed

    _identify(project, "Bob Banker", "bob@example.com")
    assert run_cli(capsys, "comment", str(project), "reply", thread_id, "the term sheet, p. 3")[0] == 0
    assert run_cli(capsys, "comment", str(project), "resolve", thread_id)[0] == 0
    code, out, err = run_cli(capsys, "save", str(project), "-m", "a question on T03-C01, answered")
    assert code == 0, err
    assert ProjectRepository(project).status() == []

    (thread,) = load_project(project).project.comments.values()
    assert thread.target == "T03-C01"
    assert thread.opened_by == "Ann Auditor"
    assert [(m.author, m.email, m.text) for m in thread.messages] == [
        ("Ann Auditor", "ann@example.com", "factual support?"), ("Bob Banker", "bob@example.com", "the term sheet, p. 3")]
    assert thread.resolved_by == "Bob Banker" and thread.resolved_at is not None
    assert thread.messages[0].at <= thread.messages[1].at <= thread.resolved_at

    code, out, _ = run_cli(capsys, "comment", str(project), "list", "--open")
    assert code == 0 and thread_id not in out
    assert run_cli(capsys, "comment", str(project), "reopen", thread_id)[0] == 0
    code, out, _ = run_cli(capsys, "comment", str(project), "list", "--open", "--target", "T03-C01", "--format", "json")
    listed = yaml.safe_load(out)
    assert [t["id"] for t in listed] == [thread_id] and "resolved_by" not in listed[0]
    assert [m["text"] for m in listed[0]["messages"]] == ["factual support?", "the term sheet, p. 3"]


def test_list_filters_by_target(project):
    first = add_thread(project, "T01", "is M03 released in time?")
    add_thread(project, "T02-C01", "weight too high?")
    assert [t.id for t in list_threads(project, target="T01")] == [first.id]
    assert len(list_threads(project)) == 2


@pytest.mark.parametrize(("argv", "needle"), [
    (["add", "T99-C01", "text"], "no subtask or criterion 'T99-C01'"),
    (["add", "T01", "   "], "needs a text"),
    (["reply", "th-missing", "text"], "no comment thread 'th-missing'"),
    (["resolve"], "resolve takes THREAD"),
    (["add", "T01"], "add takes TARGET TEXT"),
    (["list", "--target", "NOPE"], "no subtask or criterion 'NOPE'"),
    (["reply", "../project", "text"], "no comment thread"),
])
def test_bad_input_exits_2_naming_the_fix(project, capsys, argv, needle):
    code, out, err = run_cli(capsys, "comment", str(project), *argv)
    assert code == 2
    assert needle in err and "Traceback" not in err
    assert not (project / "comments").exists() or argv[0] != "add"


def test_resolving_twice_is_refused_and_leaves_the_file_as_it_was(project):
    thread = add_thread(project, "T01", "check the opening balance")
    resolve(project, thread.id)
    path = project / "comments" / f"{thread.id}.yaml"
    before = path.read_bytes()
    with pytest.raises(CommentError, match="already resolved"):
        resolve(project, thread.id)
    assert path.read_bytes() == before


def test_a_broken_thread_file_is_named_with_its_line(project, capsys):
    thread = add_thread(project, "T01", "first")
    path = project / "comments" / f"{thread.id}.yaml"
    path.write_text(path.read_text() + "messages: [\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "comment", str(project), "reply", thread.id, "second")
    assert code == 2
    assert f"comments/{thread.id}.yaml:" in err and "YAML syntax" in err
    code, out, _ = run_cli(capsys, "validate", str(project))
    assert code == 1 and f"comments/{thread.id}.yaml:" in out


def test_a_thread_without_messages_is_a_located_schema_error(project, capsys):
    (project / "comments").mkdir()
    (project / "comments" / "th-x.yaml").write_text(
        "id: th-x\ntarget: T01\nopened_by: Ann\nopened_at: 2026-12-01T10:00:00+00:00\nmessages: []\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(project))
    assert code == 1
    assert "comments/th-x.yaml:5:" in out and "messages" in out


def test_validate_warns_of_a_thread_whose_target_is_gone(project, capsys):
    thread = add_thread(project, "T01-C02", "is -6 right?")
    text = (project / "subtasks" / "T01" / "rubric.yaml").read_text(encoding="utf-8")
    (project / "subtasks" / "T01" / "rubric.yaml").write_text(text.replace("id: T01-C02", "id: T01-C22"),
                                                               encoding="utf-8")
    code, out, err = run_cli(capsys, "validate", str(project), "--format", "json")
    findings = yaml.safe_load(out)["findings"]
    dangling = [f for f in findings if f["code"] == "dangling-comment"]
    assert dangling == [{"file": f"comments/{thread.id}.yaml", "line": 2, "column": 9, "severity": "warning",
                         "code": "dangling-comment", "object_id": "T01-C02", "message": dangling[0]["message"]}]
    assert "'T01-C02'" in dangling[0]["message"]
    code, out, _ = run_cli(capsys, "validate", str(project))
    assert code == 0  # a warning: shown, the project still validates
    assert f"comments/{thread.id}.yaml:2:9: warning: thread {thread.id}" in out


def test_two_clones_adding_threads_on_one_criterion_never_conflict(project, tmp_path):
    remote = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "origin", "main")
    ann, bob = tmp_path / "ann", tmp_path / "bob"
    for clone, name in ((ann, "Ann Auditor"), (bob, "Bob Banker")):
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        _identify(clone, name, f"{name.split()[0].lower()}@example.com")
        git(clone, "config", "pull.rebase", "false")

    mine = add_thread(ann, "T03-C01", "factual support?")
    assert run_cli_ok(ann, "save", "-m", "Ann asks")
    git(ann, "push", "-q", "origin", "main")
    theirs = add_thread(bob, "T03-C01", "weight 6 or 8?")
    assert run_cli_ok(bob, "save", "-m", "Bob asks")
    git(bob, "pull", "-q", "--no-edit", "origin", "main")  # a merge commit, both threads in it
    assert git(bob, "diff", "--name-only", "--diff-filter=U") == ""
    reply(bob, mine.id, "see M04")
    assert run_cli_ok(bob, "save", "-m", "Bob answers")
    git(bob, "push", "-q", "origin", "main")
    git(ann, "pull", "-q", "--no-edit", "origin", "main")

    threads = {t.id: t for t in list_threads(ann, target="T03-C01")}
    assert set(threads) == {mine.id, theirs.id}
    assert [m.author for m in threads[mine.id].messages] == ["Ann Auditor", "Bob Banker"]
    assert threads[theirs.id].opened_by == "Bob Banker"


def run_cli_ok(folder: Path, *argv: str) -> bool:
    from studio.cli.main import main

    return main([argv[0], str(folder), *argv[1:]]) == 0


def test_a_written_thread_meets_its_json_schema_and_a_bad_one_does_not(project):
    import json

    import jsonschema

    schema = json.loads((SAMPLE.parents[1] / "schemas" / "comment.schema.json").read_text(encoding="utf-8"))
    thread = add_thread(project, "T01", "is M03 released in time?")
    reply(project, thread.id, "yes, before T01")
    resolve(project, thread.id)
    data = yaml.safe_load((project / "comments" / f"{thread.id}.yaml").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    del data["messages"][0]["text"]
    with pytest.raises(jsonschema.ValidationError, match="text"):
        jsonschema.validate(data, schema)


def test_a_resolution_in_one_clone_and_a_reply_in_another_merge(project, tmp_path):
    thread = add_thread(project, "T01", "is M03 released in time?")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "a question")
    remote = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(project, "push", "-q", str(remote), "main")
    ann, bob = tmp_path / "ann", tmp_path / "bob"
    for clone, name in ((ann, "Ann Auditor"), (bob, "Bob Banker")):
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        _identify(clone, name, "x@example.com")
        git(clone, "config", "pull.rebase", "false")
    resolve(ann, thread.id)
    assert run_cli_ok(ann, "save", "-m", "resolved")
    git(ann, "push", "-q", "origin", "main")
    reply(bob, thread.id, "yes, before T01")
    assert run_cli_ok(bob, "save", "-m", "answered")
    git(bob, "pull", "-q", "--no-edit", "origin", "main")
    (merged,) = list_threads(bob)
    assert merged.resolved_by == "Ann Auditor"
    assert [m.author for m in merged.messages] == ["Ann Auditor", "Bob Banker"]
