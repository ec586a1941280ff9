"""The chat-completions client against a real HTTP server on loopback: answers, retries on 429 (with
Retry-After) and 5xx with exponential backoff, timeouts and malformed answers as failed attempts, and
clear errors for a refused key, a wrong address and a server that is not there."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import keyring
import keyring.backend
import pytest

from studio.judging.client import (
    MAX_ANSWER_BYTES,
    AnswerCutOff,
    AttemptFailed,
    ChatClient,
    EndpointError,
    RequestRefused,
    api_key,
    default_base_url,
    retry_delay,
)
from studio.judging.request_shape import RequestShape
from tests.judging.chat_server import ChatServer, Reply, Request, completion

KEY = "sk-test-client-0123456789"
ASK = [{"role": "user", "content": "hello"}]


@pytest.fixture
def sleeps() -> list[float]:
    return []


def client_for(server: ChatServer, sleeps: list[float], **options: object) -> ChatClient:
    settings: dict = {"timeout_s": 5.0, "max_retries": 3, "backoff_s": 0.5, "sleep": sleeps.append}
    settings.update(options)
    return ChatClient(server.url, "test-model", KEY, **settings)


def scripted(*replies: Reply) -> ChatServer:
    """A server answering with `replies` in turn, then a plain completion."""
    queue = list(replies)

    def reply(request: Request) -> Reply:
        return queue.pop(0) if queue else Reply(body=completion("done"))

    return ChatServer(reply)


@pytest.fixture
def server_factory() -> Iterator[list[ChatServer]]:
    started: list[ChatServer] = []
    yield started
    for server in started:
        server.stop()


def start(started: list[ChatServer], server: ChatServer) -> ChatServer:
    started.append(server.start())
    return server


def test_an_answer_is_the_assistants_text_and_the_request_carries_model_key_and_json_mode(
    server_factory: list[ChatServer], sleeps: list[float]
) -> None:
    server = start(server_factory, scripted(Reply(body=completion('{"verdicts": []}'))))
    with client_for(server, sleeps) as client:
        assert client.complete(ASK) == '{"verdicts": []}'
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == "test-model" and request.body["messages"] == ASK
    # no temperature unless one is set: reasoning models refuse any but the default
    assert request.body["response_format"] == {"type": "json_object"} and "temperature" not in request.body
    assert sleeps == []


def test_429_is_retried_after_the_seconds_retry_after_asks(
    server_factory: list[ChatServer], sleeps: list[float]
) -> None:
    server = start(
        server_factory,
        scripted(
            Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "7"}),
            Reply(429, {"error": "slow down"}, {"Retry-After": "3"}),
        ),
    )
    with client_for(server, sleeps) as client:
        assert client.complete(ASK) == "done"
    assert len(server.requests) == 3
    assert sleeps == [7.0, 3.0]


def test_5xx_is_retried_with_exponential_backoff(server_factory: list[ChatServer], sleeps: list[float]) -> None:
    server = start(server_factory, scripted(Reply(500, "boom"), Reply(502, "bad gateway"), Reply(503, "busy")))
    with client_for(server, sleeps, backoff_s=0.5) as client:
        assert client.complete(ASK) == "done"
    assert len(server.requests) == 4
    # 0.5, 1, 2 seconds, each with at most 10% jitter added
    for wait, base in zip(sleeps, [0.5, 1.0, 2.0], strict=True):
        assert base <= wait <= base * 1.1


def test_retries_end_in_a_failed_attempt(server_factory: list[ChatServer], sleeps: list[float]) -> None:
    server = start(server_factory, ChatServer(lambda request: Reply(503, "always down")))
    with client_for(server, sleeps, max_retries=2) as client, pytest.raises(AttemptFailed, match="HTTP 503 3 times"):
        client.complete(ASK)
    assert len(server.requests) == 3 and len(sleeps) == 2


def test_a_retry_after_beyond_the_longest_wait_fails_the_attempt_at_once(
    server_factory: list[ChatServer], sleeps: list[float]
) -> None:
    server = start(server_factory, scripted(Reply(429, "quota", {"Retry-After": "86400"})))
    with client_for(server, sleeps) as client, pytest.raises(AttemptFailed, match="wait 86400 s"):
        client.complete(ASK)
    assert sleeps == [] and len(server.requests) == 1


def test_retry_after_as_an_http_date() -> None:
    later = datetime.now(UTC) + timedelta(seconds=30)
    response = httpx.Response(429, headers={"Retry-After": format_datetime(later, usegmt=True)})
    assert 25 <= retry_delay(response, 0, 1.0, 120) <= 30
    assert 4.0 <= retry_delay(httpx.Response(503), 2, 1.0, 120) <= 4.4  # no header: backoff doubled twice


def test_a_timeout_is_a_failed_attempt(server_factory: list[ChatServer], sleeps: list[float]) -> None:
    server = start(server_factory, scripted(Reply(body=completion("late"), delay_s=10)))
    with client_for(server, sleeps, timeout_s=0.3) as client:
        with pytest.raises(AttemptFailed, match="request timeout"):
            client.complete(ASK)
        assert client.complete(ASK) == "done"  # the next request goes through


@pytest.mark.parametrize("body", ["not json at all", '{"choices": []}', '{"choices": [{"message": {}}]}'])
def test_an_answer_that_is_no_chat_completion_is_a_failed_attempt(
    server_factory: list[ChatServer], sleeps: list[float], body: str
) -> None:
    server = start(server_factory, scripted(Reply(body=body)))
    with client_for(server, sleeps) as client, pytest.raises(AttemptFailed, match="no chat completion"):
        client.complete(ASK)


def test_a_refused_key_names_the_endpoint_and_how_to_give_a_key(
    server_factory: list[ChatServer], sleeps: list[float]
) -> None:
    server = start(server_factory, scripted(Reply(401, {"error": {"message": "Incorrect API key provided"}})))
    with client_for(server, sleeps) as client, pytest.raises(EndpointError) as error:
        client.complete(ASK)
    message = str(error.value)
    assert server.url in message and "OPENAI_API_KEY" in message and "keyring set dbstudio" in message
    assert "Incorrect API key provided" in message and KEY not in message


def test_a_wrong_path_or_model_says_to_check_the_base_url_and_model(
    server_factory: list[ChatServer], sleeps: list[float]
) -> None:
    server = start(server_factory, ChatServer())
    client = ChatClient(server.url.removesuffix("/v1"), "no-such-model", KEY, sleep=sleeps.append)
    with client, pytest.raises(EndpointError) as error:
        client.complete(ASK)
    assert "HTTP 404" in str(error.value) and "--endpoint" in str(error.value) and "no-such-model" in str(error.value)


def test_a_server_that_is_not_there_says_to_start_it_or_fix_the_address(sleeps: list[float]) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the socket is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with ChatClient(url, "m", None, sleep=sleeps.append) as client, pytest.raises(EndpointError) as error:
        client.complete(ASK)
    assert f"{url}/chat/completions" in str(error.value) and "--endpoint" in str(error.value)


def test_no_key_sends_no_authorization_header(server_factory: list[ChatServer], sleeps: list[float]) -> None:
    server = start(server_factory, ChatServer())
    with ChatClient(server.url, "m", None, sleep=sleeps.append) as client:
        client.complete(ASK, json_answer=False)
    assert "authorization" not in server.requests[0].headers
    assert "response_format" not in server.requests[0].body


class MemoryKeyring(keyring.backend.KeyringBackend):
    """An OS keyring in memory: the real keyring API, no desktop service."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.secrets.pop((service, username), None)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


def test_the_key_comes_from_the_environment_before_the_keyring(
    monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert api_key() is None
    keyring.set_password("dbstudio", "OPENAI_API_KEY", "from-keyring")
    assert api_key() == "from-keyring"
    monkeypatch.setenv("OPENAI_API_KEY", "from-environment")
    assert api_key() == "from-environment"


def test_the_base_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert default_base_url() == "https://api.openai.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    assert default_base_url() == "http://localhost:8000/v1"


def test_the_timeout_bounds_the_whole_request_of_a_server_that_drip_feeds_its_answer(
    server_factory: list[ChatServer], sleeps: list[float]
) -> None:
    # one byte a second: each read is quick, so a per-read timeout would wait for all ~200 bytes
    server = start(server_factory, scripted(Reply(body=completion("a slow answer"), drip_s=1.0)))
    with client_for(server, sleeps, timeout_s=1.5) as client:
        began = time.monotonic()
        with pytest.raises(AttemptFailed, match=r"no whole answer within the request timeout of 1.5 s"):
            client.complete(ASK)
        took = time.monotonic() - began
        assert 1.4 <= took < 3.0, took
        assert client.complete(ASK) == "done"  # the pool is usable afterwards


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000 + "]" * 100_000,  # Python's parser would run out of stack
        json.dumps(completion("x")).replace('"x"', "[" * 40 + "]" * 40),
    ],
)
def test_an_answer_nested_too_deep_is_a_failed_attempt_not_a_crash(
    server_factory: list[ChatServer], sleeps: list[float], body: str
) -> None:
    server = start(server_factory, scripted(Reply(body=body)))
    with client_for(server, sleeps) as client, pytest.raises(AttemptFailed, match="the server's answer is too deep"):
        client.complete(ASK)


def test_an_error_body_nested_too_deep_is_shown_as_text(server_factory: list[ChatServer], sleeps: list[float]) -> None:
    server = start(server_factory, scripted(Reply(400, "[" * 100_000)))
    with client_for(server, sleeps) as client, pytest.raises(RequestRefused, match=r"HTTP 400\): \[\[\["):
        client.complete(ASK)


def test_an_answer_too_large_is_refused_unread(server_factory: list[ChatServer], sleeps: list[float]) -> None:
    server = start(server_factory, scripted(Reply(body=completion("x" * (MAX_ANSWER_BYTES + 10)))))
    with client_for(server, sleeps) as client, pytest.raises(AttemptFailed, match="the server's answer is too large"):
        client.complete(ASK)


def echo_key(status: int, shape: str) -> ChatServer:
    """A server that quotes the request's Authorization header back: in an answer, an error or garbage."""

    def reply(request: Request) -> Reply:
        header = request.headers["authorization"]
        if shape == "answer":
            return Reply(body=completion(f"you sent {header}"))
        if shape == "error":
            return Reply(status, {"error": {"message": f"bad header {header}"}})
        return Reply(status, f"<html>garbage {header}</html>")

    return ChatServer(reply)


@pytest.mark.parametrize(
    ("status", "shape"),
    [(200, "answer"), (400, "error"), (200, "garbage"), (401, "error"), (404, "garbage"), (500, "garbage")],
)
def test_the_key_echoed_by_the_server_is_cut_out_of_answers_and_errors(
    server_factory: list[ChatServer], sleeps: list[float], status: int, shape: str
) -> None:
    server = start(server_factory, echo_key(status, shape))
    with client_for(server, sleeps, max_retries=0) as client:
        try:
            shown = client.complete(ASK)
        except (AttemptFailed, EndpointError, RequestRefused) as error:
            shown = str(error) + getattr(error, "server_message", "")
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"  # the key did travel
    assert KEY not in shown and "Bearer [API key]" in shown


def test_an_answer_brings_its_usage_served_model_fingerprint_and_attempts(
        server_factory: list[ChatServer], sleeps: list[float]) -> None:
    usage = {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280,
             "prompt_tokens_details": {"cached_tokens": 1024}, "completion_tokens_details": {"reasoning_tokens": 64}}
    server = start(server_factory, scripted(
        Reply(503, "busy", {"Retry-After": "0"}),
        Reply(body=completion("{}", "gpt-5-mini-2025-08-07", usage, fingerprint="fp_1"))))
    with client_for(server, sleeps) as client:
        answer = client.chat(ASK)
    assert (answer.served_model, answer.fingerprint, answer.attempts, answer.usage_reported) == (
        "gpt-5-mini-2025-08-07", "fp_1", 2, True)
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens, answer.usage.cached_tokens,
            answer.usage.reasoning_tokens) == (1200, 80, 1024, 64)
    assert answer.latency_s > 0


@pytest.mark.parametrize("served", ["two words", "x" * 300, "line\nbreak", 42, "---"])
def test_a_served_model_name_that_cannot_name_a_file_is_not_taken(
        server_factory: list[ChatServer], sleeps: list[float], served: object) -> None:
    body = completion("{}")
    body["model"] = served
    server = start(server_factory, scripted(Reply(body=body)))
    with client_for(server, sleeps) as client:
        assert client.chat(ASK).served_model is None


def test_a_served_model_or_fingerprint_carrying_the_key_is_dropped(server_factory: list[ChatServer],
                                                                   sleeps: list[float]) -> None:
    # the served model names the rater and its verdict file: the key must not reach a file name or git
    server = start(server_factory, scripted(Reply(body=completion("{}", f"m-{KEY}", fingerprint=KEY))))
    with client_for(server, sleeps) as client:
        answer = client.chat(ASK)
    assert answer.served_model is None and answer.fingerprint is None


def test_an_answer_without_usage_says_so(server_factory: list[ChatServer], sleeps: list[float]) -> None:
    server = start(server_factory, scripted(Reply(body=completion("{}"))))
    with client_for(server, sleeps) as client:
        answer = client.chat(ASK)
    assert answer.usage_reported is False and answer.usage.prompt_tokens == 0


def test_a_cut_off_answer_is_reported_as_cut_off(server_factory: list[ChatServer], sleeps: list[float]) -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 256}
    server = start(server_factory, scripted(Reply(body=completion('{"verdicts": [{"crit', None, usage, "length"))))
    with client_for(server, sleeps, shape=RequestShape(max_output_tokens=256)) as client, \
            pytest.raises(AnswerCutOff, match=r"cut off at the output token limit of 256 .* after 256 tokens") as error:
        client.chat(ASK)
    assert error.value.completion.usage.completion_tokens == 256 and len(server.requests) == 1


@pytest.mark.parametrize(("shape", "sent", "absent"), [
    (RequestShape(), {"response_format": {"type": "json_object"}}, {"temperature", "max_tokens", "reasoning_effort"}),
    (RequestShape(temperature=0.0, max_output_tokens=100),
     {"temperature": 0.0, "max_tokens": 100}, {"max_completion_tokens"}),
    (RequestShape(reasoning_effort="high", max_output_tokens=9000, output_tokens_parameter="max_completion_tokens",
                  structured_output="none"),
     {"reasoning_effort": "high", "max_completion_tokens": 9000}, {"temperature", "max_tokens", "response_format"}),
])
def test_the_request_sends_what_its_shape_sets_and_nothing_else(
        server_factory: list[ChatServer], sleeps: list[float], shape: RequestShape, sent: dict, absent: set) -> None:
    server = start(server_factory, scripted())
    with client_for(server, sleeps, shape=shape) as client:
        client.chat(ASK)
    body = server.requests[0].body
    assert {key: body[key] for key in sent} == sent and not absent & set(body)


def test_a_strict_json_schema_is_sent_where_the_shape_asks(server_factory: list[ChatServer],
                                                          sleeps: list[float]) -> None:
    server = start(server_factory, scripted())
    with client_for(server, sleeps, shape=RequestShape(structured_output="json_schema")) as client:
        client.chat(ASK)
    form = server.requests[0].body["response_format"]
    assert form["type"] == "json_schema" and form["json_schema"]["strict"] is True
    schema = form["json_schema"]["schema"]
    assert schema["required"] == ["verdicts"] and schema["additionalProperties"] is False


@pytest.mark.parametrize(("reply", "error", "words"), [
    (Reply(400, {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model.",
                           "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}),
     EndpointError, "Unsupported parameter: 'max_tokens'"),
    (Reply(429, {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                           "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}),
     EndpointError, "no quota left"),
    (Reply(400, {"error": {"message": "This model's maximum context length is 8192 tokens.", "type":
                           "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
     RequestRefused, "does not fit the model's context window"),
    (Reply(422, {"error": {"message": "bad image"}}), RequestRefused, "HTTP 422"),
])
def test_a_permanent_error_is_raised_after_one_request(server_factory: list[ChatServer], sleeps: list[float],
                                                       reply: Reply, error: type, words: str) -> None:
    server = start(server_factory, scripted(reply))
    with client_for(server, sleeps) as client, pytest.raises(error, match=words) as raised:
        client.chat(ASK)
    assert len(server.requests) == 1 and sleeps == [] and raised.value.attempts == 1
