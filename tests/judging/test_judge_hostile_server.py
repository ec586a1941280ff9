"""`dbstudio judge` against a loopback chat-completions server that misbehaves: it drip-feeds its
answer, nests it thousands deep, echoes the API key back, or writes an endless rationale. Each ends in
verdicts stored as missing with a note saying why (exit 1), never a crash (exit 70), a hang or the key
on disk."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from studio.cli.exit_codes import ExitCode
from studio.cli.main import main
from studio.judging.prompt import MAX_RATIONALE_CHARS
from studio.judging.verdict_store import VerdictStore
from tests.helpers import copy_blank, git, write
from tests.judging.chat_server import ChatServer, Reply, Request, completion, verdicts_json

KEY = "sk-hostile-server-secret-9d2b6e41"
T02 = ["T02-C01", "T02-C02", "T02-G01", "T02-N01"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_blank(tmp_path / "project")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "project")
    return root


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write(tmp_path / "sub", "outputs/report.md", "# Report\n").parent.parent


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)


def judge_with(project: Path, folder: Path, reply: Callable[[Request], Reply], *options: str) -> int:
    with ChatServer(reply) as server:
        return main(
            [
                "judge",
                str(project),
                "--submission",
                str(folder),
                "--scope",
                "T02",
                "--endpoint",
                server.url,
                "--model",
                "m",
                "--attempts",
                "1",
                *options,
            ]
        )


def notes(project: Path) -> dict[str, str | None]:
    return {v.criterion: v.note for v in VerdictStore(project).read("sub", "judge:m")}


def test_a_drip_fed_answer_ends_at_the_timeout_with_missing_verdicts(
    project: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def reply(request: Request) -> Reply:
        return Reply(body=completion(verdicts_json(request.ids)), drip_s=1.0)  # ~500 bytes: 8 minutes

    began = time.monotonic()
    code = judge_with(project, folder, reply, "--timeout", "2")
    took = time.monotonic() - began
    assert code == ExitCode.PROBLEMS, capsys.readouterr()
    # one batch request, then the four criteria one at a time in parallel: two timeouts end to end
    assert took < 12, took
    found = notes(project)
    assert sorted(found) == T02
    assert all("no whole answer within the request timeout of 2 s" in (note or "") for note in found.values())


@pytest.mark.parametrize(
    "body",
    [
        "[" * 200_000 + "]" * 200_000,  # the envelope itself
        '{"object": "chat.completion", "choices": ' + "[" * 50_000 + "]" * 50_000 + "}",
        completion('{"verdicts": ' + "[" * 50_000 + "]" * 50_000 + "}"),  # the assistant's JSON
    ],
)
def test_an_answer_nested_thousands_deep_is_a_missing_verdict_not_a_crash(
    project: Path, folder: Path, capsys: pytest.CaptureFixture[str], body: str | dict[str, object]
) -> None:
    code = judge_with(project, folder, lambda request: Reply(body=body))
    out, err = capsys.readouterr()
    assert code == ExitCode.PROBLEMS, out + err
    assert "Traceback" not in err and "missing (judge again to retry them)" in out
    assert all("the server's answer is too deep" in (note or "") for note in notes(project).values())


@pytest.mark.parametrize("shape", ["answer", "error", "garbage"])
def test_the_key_echoed_by_the_server_reaches_no_verdict_output_or_git_history(
    project: Path, folder: Path, capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    def reply(request: Request) -> Reply:
        header = request.headers["authorization"]
        if shape == "answer":  # a valid answer quoting the key in rationale and citations
            answer = json.loads(verdicts_json(request.ids))
            for entry in answer["verdicts"]:
                entry["rationale"] = f"the request said {header}"
                entry["evidence"] = [header]
            return Reply(body=completion(json.dumps(answer)))
        if shape == "error":
            return Reply(400, {"error": {"message": f"unknown header {header}", "type": "invalid_request_error"}})
        return Reply(200, f"<html><body>proxy error for {header}</body></html>")

    code = judge_with(project, folder, reply)
    out, err = capsys.readouterr()
    assert code == (ExitCode.OK if shape == "answer" else ExitCode.PROBLEMS), out + err
    assert KEY not in out + err
    stored = notes(project)
    assert sorted(stored) == T02 and all("[API key]" in (note or "") for note in stored.values())
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "verdicts")
    for path in (project / "verdicts").rglob("*"):
        assert not path.is_file() or KEY.encode() not in path.read_bytes(), path
    assert KEY not in git(project, "log", "-p", "--all")


def test_an_endless_rationale_is_stored_cut_with_how_much_was_cut(project: Path, folder: Path) -> None:
    rationale = "The report restates the figure. " * 40_000  # 1.28 million characters

    def reply(request: Request) -> Reply:
        answer = {"verdicts": [{"criterion": cid, "holds": True, "rationale": rationale} for cid in request.ids]}
        return Reply(body=completion(json.dumps(answer)))

    assert judge_with(project, folder, reply) == ExitCode.OK
    for note in notes(project).values():
        assert note is not None and note.startswith(rationale[:MAX_RATIONALE_CHARS])
        assert note.endswith(
            f"[rationale cut at {MAX_RATIONALE_CHARS:,} characters: "
            f"{len(rationale) - MAX_RATIONALE_CHARS:,} more not stored]"
        )
    assert all(path.stat().st_size < 40_000 for path in (project / "verdicts").rglob("*.yaml"))
