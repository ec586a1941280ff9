"""Honest failures against loopback servers answering as llama.cpp, vLLM and OpenAI document: an error
no other attempt can fix stops its request after one try with the server's own message, on the terminal
and in the stored verdicts; a prompt that cannot fit the context window is never sent; an answer cut at
the token limit is reported as cut off; a 500 repeating its error object is not retried uselessly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.judging.client import EndpointError
from studio.judging.costs import read_costs
from studio.judging.judge import JudgeSettings, judge_submission
from studio.judging.submission import Submission, submission_of_folder
from studio.judging.verdict_store import VerdictStore
from tests.judging.chat_server import ApiRules, ChatServer, Reply, Request, api_error, completion, verdicts_json
from tests.judging.projects import SCOPE, judged_project, load, submission_folder

MODEL = "local-model"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return judged_project(tmp_path / "project", 20)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return submission_folder(tmp_path / "sub-A")


@pytest.fixture
def submission(folder: Path) -> Submission:
    return submission_of_folder(folder, SCOPE)


@pytest.fixture
def servers() -> Iterator[Callable[[Callable[[Request], Reply]], ChatServer]]:
    started: list[ChatServer] = []

    def make(reply: Callable[[Request], Reply]) -> ChatServer:
        server = ChatServer(reply).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-failures-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)


def settings(server: ChatServer, **options: object) -> JudgeSettings:
    values: dict = {"timeout_s": 10.0, "backoff_s": 0.01, "model": MODEL, "batch": 20, "parallel": 1}
    values.update(options)
    return JudgeSettings(base_url=server.url, **values)


def notes(project: Path, rater: str = f"judge:{MODEL}") -> dict[str, str | None]:
    return {v.criterion: v.note for v in VerdictStore(project).read("sub-A", rater) if v.verdict == "missing"}


@pytest.mark.parametrize(("overflow", "words"), [
    ("llama.cpp", "the request exceeds the available context size, try increasing it"),
    ("vllm", "This model's maximum context length is 600 tokens"),
    ("openai", "This model's maximum context length is 600 tokens"),
])
def test_a_prompt_over_the_servers_context_is_sent_once_and_its_message_shown(
        project: Path, folder: Path, servers: Callable[..., ChatServer], capsys: pytest.CaptureFixture[str],
        overflow: str, words: str) -> None:
    server = servers(ApiRules("local", overflow=overflow, context_tokens=600).reply)
    code = main(["judge", str(project), "--submission", str(folder), "--scope", SCOPE, "--endpoint", server.url,
                 "--model", MODEL, "--batch", "20"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert len(server.requests) == 1  # neither a second attempt nor 20 single criteria
    assert words in err and "refused by the server, not retried" in err
    stored = notes(project)
    assert len(stored) == 20 and all(words in (note or "") and "context window" in (note or "")
                                     for note in stored.values())


def test_a_prompt_that_cannot_fit_the_context_window_is_never_sent(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    server = servers(ApiRules("local").reply)
    summary = judge_submission(load(project), submission, settings(server, context_window=300, max_output_tokens=100),
                               VerdictStore(project))
    assert server.requests == [] and summary.requests == 0 and summary.missing == 20
    assert all("not sent: the prompt of about" in (note or "") and "context window of 300 tokens" in (note or "")
               for note in notes(project).values())
    (cost,) = read_costs(project)
    assert [(r.outcome, r.attempts) for r in cost.requests] == [("not sent", 0)]
    assert cost.totals().not_sent == 1 and cost.totals().requests == 0


def test_the_command_line_says_a_prompt_kept_back_was_never_sent(
        project: Path, folder: Path, servers: Callable[..., ChatServer], capsys: pytest.CaptureFixture[str]) -> None:
    server = servers(ApiRules("local").reply)
    code = main(["judge", str(project), "--submission", str(folder), "--scope", SCOPE, "--endpoint", server.url,
                 "--model", MODEL, "--context-window", "300", "--max-output-tokens", "100"])
    out, err = capsys.readouterr()
    assert code == 1 and server.requests == []
    assert "kept back: not sent: the prompt of about" in err and "refused by the server" not in err


def test_an_answer_cut_at_the_token_limit_is_reported_cut_off(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    server = servers(ApiRules("local").reply)
    summary = judge_submission(load(project), submission, settings(server, max_output_tokens=10),
                               VerdictStore(project))
    # the batch once (the same request would be cut at the same limit), then each criterion alone, once
    assert len(server.requests) == 21 and summary.missing == 20
    assert all(request.body["max_tokens"] == 10 for request in server.requests)
    for note in notes(project).values():
        assert "cut off at the output token limit of 10 (--max-output-tokens)" in (note or "")
        assert "not a JSON object" not in (note or "")
    (cost,) = read_costs(project)
    assert {r.outcome for r in cost.requests} == {"cut off"}
    assert all(r.completion_tokens == 10 for r in cost.requests)


def test_an_exhausted_quota_stops_the_judging_after_one_request(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    message = "You exceeded your current quota, please check your plan and billing details."
    server = servers(lambda request: api_error(429, message, "insufficient_quota", code="insufficient_quota"))
    with pytest.raises(EndpointError) as error:
        judge_submission(load(project), submission, settings(server, batch=8, parallel=2), VerdictStore(project))
    assert message in str(error.value) and "no quota left" in str(error.value)
    assert len(server.requests) <= 2  # the two sent at once; nothing after


def test_a_500_repeating_its_error_object_is_asked_twice_not_a_hundred_times(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    # llama.cpp given an image its model cannot read answers the same 500 every time
    reason = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
    server = servers(lambda request: Reply(500, {"error": {"code": 500, "message": reason, "type": "server_error"}}))
    summary = judge_submission(load(project), submission, settings(server, max_retries_http=5), VerdictStore(project))
    assert len(server.requests) == 2 and summary.missing == 20 and summary.refusals
    assert all(reason in (note or "") for note in notes(project).values())


def test_unsupported_content_is_refused_once(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    message = "Invalid content type. image_url is only supported by certain models."
    server = servers(lambda request: api_error(400, message, param="messages", code=None))
    summary = judge_submission(load(project), submission, settings(server), VerdictStore(project))
    assert len(server.requests) == 1 and summary.refusals and message in summary.refusals[0]


def test_a_transient_500_keeps_its_retries(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    # different messages each time: the server is struggling, not deciding
    def reply(request: Request) -> Reply:
        if request.number <= 2:
            return Reply(500, {"error": {"message": f"worker {request.number} crashed"}})
        return Reply(body=completion(verdicts_json(request.ids)))

    server = servers(reply)
    summary = judge_submission(load(project), submission, settings(server), VerdictStore(project))
    assert summary.judged == 20 and len(server.requests) == 3
    (cost,) = read_costs(project)
    assert [(r.outcome, r.attempts) for r in cost.requests] == [("answered", 3)]
