"""`dbstudio sync` between two real clones of one bare repository: edits of different criteria and
of different fields of one criterion merge; the same field is one recorded conflict, settled with
`dbstudio resolve`; comments, key order and Markdown survive; a push the remote refuses is merged
and sent again."""

from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

from studio.collab.driver import DRIVER
from tests.collab.conftest import Team, edit, identity
from tests.helpers import git

RUBRIC = "subtasks/T03/rubric.yaml"
C01_WEIGHT = "    weight: 7\n    review:\n      status: approved\n      reviewer: Daniel Okafor"
C02_TEXT = "The summary records the Venlo works estimate of EUR 1.8m"
INSTRUCTION = "subtasks/T03/instruction.md"


def weight_of(clone: Path, criterion: str) -> int:
    text = (clone / RUBRIC).read_text(encoding="utf-8")
    block = text.split(f"- id: {criterion}\n", 1)[1].split("\n  - id:", 1)[0]
    return int(re.search(r"^    weight: (-?\d+)", block, re.M).group(1))


def converge(team: Team) -> None:
    """Each clone syncs (the first twice); afterwards both hold the same project."""
    for clone in (team.ana, team.ben, team.ana):
        code, _, err = team.sync(clone)
        assert code == 0, err
    assert git(team.ana, "rev-parse", "HEAD") == git(team.ben, "rev-parse", "HEAD")


def both_weigh(team: Team, ana: int, ben: int) -> None:
    """Each expert saves a weight of their own for T03-C01 (Ana's not yet synced)."""
    for clone, weight in ((team.ana, ana), (team.ben, ben)):
        edit(clone, RUBRIC, C01_WEIGHT, C01_WEIGHT.replace("weight: 7", f"weight: {weight}"))
        team.save(clone, f"T03-C01 weighs {weight}")


def test_edits_of_different_criteria_merge_cleanly_and_both_clones_converge(team):
    edit(team.ana, RUBRIC, C01_WEIGHT, C01_WEIGHT.replace("weight: 7", "weight: 8"))
    team.save(team.ana, "Raise T03-C01")
    edit(team.ben, RUBRIC, C02_TEXT, C02_TEXT.replace("records", "states"))
    team.save(team.ben, "Reword T03-C02")
    assert team.sync(team.ana)[0] == 0
    code, out, err = team.sync(team.ben)
    assert code == 0, err
    assert "took 1 commit(s) from origin" in out and "sent 2 commit(s) to origin" in out
    assert not (team.ben / ".dbstudio" / "conflicts.json").exists()
    converge(team)
    for clone in (team.ana, team.ben):
        assert weight_of(clone, "T03-C01") == 8
        assert "The summary states the Venlo works" in (clone / RUBRIC).read_text(encoding="utf-8")
        assert team.cli("validate", str(clone))[0] == 0
    parents = git(team.ben, "log", "-1", "--format=%P", "HEAD").split()
    assert len(parents) == 2  # one merge commit, both experts' commits in it
    authors = set(git(team.ana, "log", "--format=%an").split())
    assert {"Ana", "Ben"} <= authors


def test_edits_of_different_fields_of_one_criterion_merge_cleanly(team):
    edit(team.ana, RUBRIC, C01_WEIGHT, C01_WEIGHT.replace("weight: 7", "weight: 9"))
    team.save(team.ana, "Weight")
    edit(team.ben, RUBRIC, C01_WEIGHT, C01_WEIGHT.replace("status: approved", "status: reviewed"))
    team.save(team.ben, "Status")
    assert team.sync(team.ana)[0] == 0
    code, out, err = team.sync(team.ben)
    assert code == 0, (out, err)
    merged = (team.ben / RUBRIC).read_text(encoding="utf-8")
    assert C01_WEIGHT.replace("weight: 7", "weight: 9").replace("status: approved", "status: reviewed") in merged
    converge(team)


def test_the_same_field_is_one_recorded_conflict_the_file_still_loads_and_resolve_commits_the_merge(team):
    edit(team.ben, RUBRIC, C02_TEXT, C02_TEXT.replace("records", "states"))  # and a clean change beside it
    both_weigh(team, ana=8, ben=6)
    assert team.sync(team.ana)[0] == 0
    code, out, _ = team.sync(team.ben)
    assert code == 1 and "1 conflict(s)" in out and "nothing pushed" in out
    code, listed, _ = team.cli("conflicts", str(team.ben), "--format", "json")
    conflicts = json.loads(listed)
    assert code == 1 and [(c["file"], c["field"], c["base"], c["ours"], c["theirs"]) for c in conflicts] == [
        (RUBRIC, "criteria[T03-C01].weight", 7, 6, 8)]
    text = (team.ben / RUBRIC).read_text(encoding="utf-8")
    assert "<<<<<<<" not in text and weight_of(team.ben, "T03-C01") == 6  # ours kept while undecided
    assert "The summary states the Venlo works" in text  # the clean change is merged already
    assert team.cli("validate", str(team.ben))[0] == 0
    # a second sync before settling is refused with the way out
    code, _, err = team.sync(team.ben)
    assert code == 2 and "merge is in progress" in err and "resolve" in err
    # a conflict that does not exist is named with the ones that do
    code, _, err = team.cli("resolve", str(team.ben), RUBRIC, "criteria[T03-C09].weight", "--take", "ours")
    assert code == 2 and "criteria[T03-C01].weight" in err
    code, out, err = team.cli("resolve", str(team.ben), RUBRIC, "criteria[T03-C01].weight", "--take", "theirs")
    assert code == 0 and "merge committed" in out, err
    assert weight_of(team.ben, "T03-C01") == 8
    assert "criteria[T03-C01].weight: took theirs" in git(team.ben, "log", "-1", "--format=%B")
    assert git(team.ben, "status", "--porcelain") == ""
    assert team.cli("conflicts", str(team.ben))[0] == 0
    converge(team)
    assert weight_of(team.ana, "T03-C01") == 8
    assert "The summary states the Venlo works" in (team.ana / RUBRIC).read_text(encoding="utf-8")


def test_a_value_given_by_hand_settles_a_conflict(team):
    both_weigh(team, ana=8, ben=6)
    team.sync(team.ana)
    assert team.sync(team.ben)[0] == 1
    code, out, err = team.cli("resolve", str(team.ben), RUBRIC, "criteria[T03-C01].weight", "--value", "7")
    assert code == 0, err
    assert weight_of(team.ben, "T03-C01") == 7


def test_comments_and_key_order_survive_the_merge(team):
    commented = C01_WEIGHT.replace("    weight: 7\n", "    # agreed with the lender's counsel on 3 March\n    weight: 7  # not 8\n")
    edit(team.ana, RUBRIC, C01_WEIGHT, commented)
    team.save(team.ana, "Note why")
    edit(team.ben, RUBRIC, C02_TEXT, C02_TEXT.replace("records", "states"))
    team.save(team.ben, "Reword")
    team.sync(team.ana)
    assert team.sync(team.ben)[0] == 0
    merged = (team.ben / RUBRIC).read_text(encoding="utf-8")
    assert commented in merged and "The summary states the Venlo works" in merged
    keys = re.findall(r"^    ([a-z_]+):", merged, re.M)
    before = re.findall(r"^    ([a-z_]+):", (team.ana / RUBRIC).read_text(encoding="utf-8"), re.M)
    assert keys == before  # every criterion's keys in the order they were written


def test_markdown_merges_as_text_and_a_line_both_changed_is_one_text_conflict(team):
    lines = (team.ana / INSTRUCTION).read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) > 6
    first, last = lines[0], lines[-1]
    edit(team.ana, INSTRUCTION, first, first.rstrip("\n") + " (Ana)\n")
    team.save(team.ana, "Ana: first line")
    edit(team.ben, INSTRUCTION, last, last.rstrip("\n") + " (Ben)\n")
    team.save(team.ben, "Ben: last line")
    team.sync(team.ana)
    assert team.sync(team.ben)[0] == 0  # different lines: merged as text
    text = (team.ben / INSTRUCTION).read_text(encoding="utf-8")
    assert "(Ana)" in text and "(Ben)" in text
    converge(team)
    # the same line on both sides
    edit(team.ana, INSTRUCTION, "(Ana)", "(Ana, again)")
    team.save(team.ana, "Ana again")
    edit(team.ben, INSTRUCTION, "(Ana)", "(Ben's version)")
    team.save(team.ben, "Ben's version")
    team.sync(team.ana)
    code, out, _ = team.sync(team.ben)
    assert code == 1
    conflicts = json.loads(team.cli("conflicts", str(team.ben), "--format", "json")[1])
    assert [(c["file"], c["field"], c["kind"]) for c in conflicts] == [(INSTRUCTION, "(whole file)", "text")]
    assert "<<<<<<<" not in (team.ben / INSTRUCTION).read_text(encoding="utf-8")
    assert "(Ben's version)" in (team.ben / INSTRUCTION).read_text(encoding="utf-8")
    code, out, err = team.cli("resolve", str(team.ben), INSTRUCTION, "--take", "theirs")
    assert code == 0 and "merge committed" in out, err
    assert (team.ben / INSTRUCTION).read_text(encoding="utf-8") == (team.ana / INSTRUCTION).read_text(encoding="utf-8")


def test_a_push_the_remote_refuses_is_merged_and_sent_again(team, tmp_path):
    """Carla pushes between Ben's fetch and Ben's push (from Ben's pre-push hook, once)."""
    carla = tmp_path / "carla"
    git(tmp_path, "clone", "--quiet", str(team.origin), str(carla))
    identity(carla, "Carla")
    edit(carla, RUBRIC, C02_TEXT, C02_TEXT.replace("records", "gives"))
    git(carla, "commit", "--quiet", "-am", "Carla's wording")
    hook = team.ben / ".git" / "hooks" / "pre-push"
    flag = tmp_path / "carla-pushed"
    hook.write_text(f"#!/bin/sh\nif [ ! -e '{flag}' ]; then touch '{flag}'; git -C '{carla}' push --quiet origin main; fi\n")
    hook.chmod(0o755)
    edit(team.ben, RUBRIC, C01_WEIGHT, C01_WEIGHT.replace("weight: 7", "weight: 5"))
    team.save(team.ben, "Ben's weight")
    code, out, err = team.sync(team.ben)
    assert code == 0, (out, err)
    assert flag.exists() and "moved while syncing" in out
    remote_log = git(team.origin, "log", "--format=%s", "main")
    assert "Carla's wording" in remote_log and "Ben's weight" in remote_log
    assert "The summary gives the Venlo works" in (team.ben / RUBRIC).read_text(encoding="utf-8")
    assert weight_of(team.ben, "T03-C01") == 5


def test_a_binary_material_changed_on_both_sides_is_settled_by_taking_a_side(team):
    material = next(p for p in (team.ana / "materials").rglob("*") if p.suffix in (".xlsx", ".pdf", ".docx"))
    rel = material.relative_to(team.ana).as_posix()
    material.write_bytes(material.read_bytes() + b"\0ana")
    team.save(team.ana, "Ana's copy")
    (team.ben / rel).write_bytes((team.ben / rel).read_bytes() + b"\0ben")
    team.save(team.ben, "Ben's copy")
    team.sync(team.ana)
    assert team.sync(team.ben)[0] == 1
    conflicts = json.loads(team.cli("conflicts", str(team.ben), "--format", "json")[1])
    assert [(c["file"], c["kind"]) for c in conflicts] == [(rel, "file")]
    code, out, err = team.cli("resolve", str(team.ben), rel, "--take", "theirs")
    assert code == 0 and "merge committed" in out, err
    assert (team.ben / rel).read_bytes() == (team.ana / rel).read_bytes()


def test_abort_puts_the_clone_back_as_before_the_sync(team):
    both_weigh(team, ana=8, ben=6)
    head = git(team.ben, "rev-parse", "HEAD")
    team.sync(team.ana)
    assert team.sync(team.ben)[0] == 1
    code, _, err = team.cli("resolve", str(team.ben), "--abort")
    assert code == 0, err
    assert git(team.ben, "rev-parse", "HEAD") == head and git(team.ben, "status", "--porcelain") == ""
    assert team.cli("conflicts", str(team.ben))[0] == 0


def test_sync_refuses_unsaved_changes_a_missing_remote_and_an_unknown_one(team, tmp_path, capsys):
    edit(team.ben, RUBRIC, C02_TEXT, C02_TEXT.replace("records", "states"))
    code, _, err = team.sync(team.ben)
    assert code == 2 and "unsaved changes" in err and RUBRIC in err and "dbstudio save" in err
    code, _, err = team.cli("sync", str(team.ana), "--remote", "upstream")
    assert code == 2 and "no remote 'upstream'" in err and "remote PROJECT add upstream" in err
    git(team.ana, "remote", "remove", "origin")
    code, _, err = team.sync(team.ana)
    assert code == 2 and "no remote" in err and "dbstudio remote PROJECT add origin URL" in err
    code, _, err = team.cli("remote", str(team.ana), "add", "origin", str(tmp_path / "nowhere.git"))
    assert code == 0, err
    code, _, err = team.sync(team.ana)
    assert code == 2 and "could not fetch from origin" in err and "nowhere.git" in err
    code, _, err = team.cli("sync", str(tmp_path))
    assert code == 2 and "Traceback" not in err


def test_a_new_project_and_every_synced_clone_merge_with_the_driver(team, tmp_path):
    code, _, err = team.cli("new", str(tmp_path / "fresh"), "--id", "fresh", "--title", "Fresh", "--template", "finance-transaction")
    assert code == 0, err
    assert f"*.yaml merge={DRIVER}" in (tmp_path / "fresh" / ".gitattributes").read_text()
    assert "merge-driver" in git(tmp_path / "fresh", "config", f"merge.{DRIVER}.driver")
    assert git(tmp_path / "fresh", "status", "--porcelain") == ""  # committed with the project
    assert team.sync(team.ben)[0] == 0
    assert "merge-driver" in git(team.ben, "config", f"merge.{DRIVER}.driver")
    assert ".gitattributes" in git(team.ben, "ls-files")


def test_a_settled_merge_that_does_not_validate_is_not_committed_until_fixed_and_finished(team):
    both_weigh(team, ana=8, ben=6)
    team.sync(team.ana)
    assert team.sync(team.ben)[0] == 1
    head = git(team.ben, "rev-parse", "HEAD")
    code, _, err = team.cli("resolve", str(team.ben), RUBRIC, "criteria[T03-C01].weight", "--value", "99")
    assert code == 1 and f"{RUBRIC}:" in err and "--finish" in err
    assert git(team.ben, "rev-parse", "HEAD") == head  # nothing committed
    code, _, err = team.cli("resolve", str(team.ben), "--finish")
    assert code == 1 and "weight" in err  # still broken
    edit(team.ben, RUBRIC, "weight: 99", "weight: 5")
    code, out, err = team.cli("resolve", str(team.ben), "--finish")
    assert code == 0 and "merge committed" in out, err
    assert len(git(team.ben, "log", "-1", "--format=%P").split()) == 2 and weight_of(team.ben, "T03-C01") == 5
    assert "criteria[T03-C01].weight: set by hand" in git(team.ben, "log", "-1", "--format=%B")


class _LoginWanted(BaseHTTPRequestHandler):
    """A git host over http that answers every request with a demand for a login (a private repository)."""

    def do_GET(self) -> None:  # noqa: N802 (the http.server naming)
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="experts"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


def test_a_remote_that_wants_a_login_no_helper_has_fails_at_once_naming_the_users_own_credentials(team, monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LoginWanted)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        for variable in ("GIT_ASKPASS", "SSH_ASKPASS"):
            monkeypatch.delenv(variable, raising=False)
        url = f"http://127.0.0.1:{server.server_address[1]}/experts/kestrel.git"
        git(team.ben, "remote", "set-url", "origin", url)
        started = time.monotonic()
        code, _, err = team.sync(team.ben)
        assert time.monotonic() - started < 30  # no prompt waited on
        assert code == 2 and "could not log in to origin" in err and url in err
        assert "ssh agent" in err and "credential helper" in err and "never stores" in err
    finally:
        server.shutdown()
        server.server_close()


def test_two_replies_to_one_comment_thread_made_at_once_are_both_kept(team):
    code, out, err = team.cli("comment", str(team.ana), "add", "T03-C02", "Factual support for the EUR 1.8m?")
    assert code == 0, err
    team.save(team.ana, "A question on T03-C02")
    team.sync(team.ana)
    assert team.sync(team.ben)[0] == 0
    thread = json.loads(team.cli("comment", str(team.ben), "list", "--format", "json")[1])[0]["id"]
    assert team.cli("comment", str(team.ana), "reply", thread, "The works estimate, page 3.")[0] == 0
    team.save(team.ana, "Ana replies")
    assert team.cli("comment", str(team.ben), "reply", thread, "And the capex budget excludes it.")[0] == 0
    team.save(team.ben, "Ben replies")
    team.sync(team.ana)
    code, out, err = team.sync(team.ben)
    assert code == 0, (out, err)
    converge(team)
    for clone in (team.ana, team.ben):
        listed = json.loads(team.cli("comment", str(clone), "list", "--format", "json")[1])
        texts = [message["text"] for message in listed[0]["messages"]]
        assert texts == ["Factual support for the EUR 1.8m?", "And the capex budget excludes it.",
                         "The works estimate, page 3."]  # Ben merged: his reply first, then Ana's
        assert team.cli("validate", str(clone))[0] == 0
