"""A client of any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

The API key comes from the environment or the OS keyring and lives only in the request headers:
whatever the server sends back (an answer, an error, a garbage body) has the key cut out before
anyone reads it, so no note, verdict, log or error message can carry it. The server is not trusted:
`--timeout` bounds the whole request (studio/judging/deadline.py), an answer larger than
MAX_ANSWER_BYTES or nested deeper than MAX_JSON_DEPTH is refused. HTTP 429 and 5xx answers are
retried with exponential backoff, honouring Retry-After; a timeout or an answer that is no chat
completion is an `AttemptFailed` the judge's protocol counts as one failed attempt.

An error no other attempt can fix is never retried, and the server's own message is kept: a request
the server refuses (context length exceeded, content it cannot take, any other 4xx) is a
`RequestRefused`; a setting it refuses for every request (an unsupported parameter or value) or an
exhausted quota is an `EndpointError`; a 500 whose error object says the same message twice in a row
(llama.cpp refusing an image it cannot read) is taken as deterministic and refused too. An answer cut at the token limit (`finish_reason: length`) is an
`AnswerCutOff`. Every answer comes back as a `Completion` with its usage, served model, fingerprint,
latency and HTTP attempts, which failures carry as well (`attempts`, `latency_s`).
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from studio.api_keys import KEYRING_SERVICE, secret
from studio.judging.deadline import deadline_transport, within
from studio.judging.errors import JudgingError
from studio.judging.request_shape import RequestShape

KEY_VARIABLE = "OPENAI_API_KEY"
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
MODEL_VARIABLE = "OPENAI_MODEL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
# A Retry-After longer than this is not waited for: the attempt fails and the protocol moves on.
LONGEST_WAIT_S = 120.0
# A chat completion of a batch of 8 verdicts is a few kilobytes; an answer past this is refused unread.
MAX_ANSWER_BYTES = 4 << 20
# An answer is nested 5 deep ({"choices": [{"message": ...}]}, {"verdicts": [{"evidence": [...]}]}).
MAX_JSON_DEPTH = 32
# What a served model's name or fingerprint may be (it names the rater and its verdict file).
_NAME = re.compile(r"[A-Za-z0-9._:/@+-]{1,200}")
# What the key is replaced with wherever the server echoed it.
KEY_SHOWN_AS = "[API key]"


# Error codes (OpenAI's `error.code` or `error.type`) that say a setting of every request is refused.
_SETTING_REFUSED = {"unsupported_parameter", "unsupported_value", "invalid_request_parameter"}
_QUOTA = {"insufficient_quota", "quota_exceeded", "billing_hard_limit_reached"}
# ...and the words of servers that give no such code (Anthropic's compatibility layer names the parameter).
_SETTING_WORDS = ("unsupported parameter", "unsupported value", "does not support the temperature",
                  "not supported with this model", "unrecognized request argument")
# How servers say the prompt does not fit: OpenAI's code, llama.cpp's type, vLLM's and others' words.
_CONTEXT_CODES = {"context_length_exceeded", "exceed_context_size_error", "string_above_max_length"}
_CONTEXT_WORDS = ("maximum context length", "context length", "context size", "context window", "too many tokens",
                  "prompt is too long")


class _Counted:
    """What a failed request cost: HTTP attempts made and seconds spent, for the cost record."""

    attempts: int = 0
    latency_s: float = 0.0


class EndpointError(_Counted, JudgingError):
    """The endpoint cannot be used at all (refused connection, rejected key, unknown model or path, a
    setting it refuses, no quota left)."""


class AttemptFailed(_Counted, JudgingError):
    """One request gave no usable answer (timeout, retries used up, a malformed reply); worth another attempt."""


class AnswerCutOff(AttemptFailed):
    """The answer stopped at the output token limit (finish_reason "length") before its end."""

    def __init__(self, message: str, completion: Completion):
        super().__init__(message)
        self.completion = completion


class RequestRefused(_Counted, JudgingError):
    """The server refused this request for a reason another attempt cannot change (or it was never
    sent: `sent` False when the prompt cannot fit the context window). `server_message` is the
    server's own words."""

    def __init__(self, message: str, server_message: str = "", *, sent: bool = True):
        super().__init__(message)
        self.server_message = server_message
        self.sent = sent


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of the prompt's, read from the provider's prompt cache
    reasoning_tokens: int = 0  # of the completion's, spent thinking (reasoning models)


@dataclass(frozen=True)
class ToolCall:
    """One function call of an assistant message: `arguments` is the JSON text the model wrote (unchecked)."""

    id: str
    name: str
    arguments: str

    def message_part(self) -> dict[str, Any]:
        """The call as the assistant message sent back with the conversation carries it."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class Completion:
    content: str
    finish_reason: str | None = None
    served_model: str | None = None  # the model that answered, as the server names it
    fingerprint: str | None = None  # system_fingerprint: the backend configuration that answered
    usage: Usage = field(default_factory=Usage)
    usage_reported: bool = False
    latency_s: float = 0.0
    attempts: int = 1  # HTTP requests made for it (retries of 429 and 5xx included)
    tool_calls: tuple[ToolCall, ...] = ()  # the functions the model calls instead of answering


def api_key() -> str | None:
    """OPENAI_API_KEY from the environment, else from the OS keyring (service "dbstudio"); None if in
    neither."""
    return secret(KEY_VARIABLE)


def default_base_url() -> str:
    return os.environ.get(BASE_URL_VARIABLE) or DEFAULT_BASE_URL


def default_model() -> str:
    return os.environ.get(MODEL_VARIABLE) or DEFAULT_MODEL


def retry_delay(response: httpx.Response, retry: int, backoff_s: float, longest_s: float) -> float:
    """Seconds to wait before retry number `retry` (0-based): the server's Retry-After (seconds or an
    HTTP date) when it gives one, else `backoff_s` doubled per retry, with a little jitter."""
    header = response.headers.get("retry-after")
    if header:
        try:
            return max(0.0, float(header))
        except ValueError:
            try:
                return max(0.0, parsedate_to_datetime(header).timestamp() - time.time())
            except (TypeError, ValueError, IndexError):
                pass
    return min(longest_s, backoff_s * (2**retry)) * (1 + random.random() / 10)


class ChatClient:
    """Chat completions over one pooled, thread-safe httpx client; use it from several threads at once."""

    def __init__(
        self,
        base_url: str,
        model: str,
        key: str | None,
        *,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        connections: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        shape: RequestShape | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        # Without a shape: no temperature (reasoning models refuse any but the default), JSON mode.
        self.shape = shape if shape is not None else RequestShape()
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._sleep = sleep
        self.timeout_s = timeout_s
        self._key = key or ""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        limits = httpx.Limits(max_connections=max(1, connections))
        self._http = httpx.Client(
            headers=headers, timeout=httpx.Timeout(timeout_s), transport=deadline_transport(limits)
        )

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(self, messages: Sequence[dict[str, Any]], *, json_answer: bool = True) -> str:
        """The assistant's text for `messages` (see `chat`)."""
        return self.chat(messages, json_answer=json_answer).content

    def chat(self, messages: Sequence[dict[str, Any]], *, json_answer: bool = True,
             tools: Sequence[dict[str, Any]] | None = None, tool_choice: str | None = None) -> Completion:
        """The answer to `messages`, with what it cost. EndpointError when the endpoint cannot serve at
        all, RequestRefused when it refuses this request for good, AttemptFailed when this request gave
        no answer (after retrying 429 and 5xx), AnswerCutOff when the answer hit the token limit. With
        `tools` (function tools), the answer may be `tool_calls` instead of text, unless `tool_choice`
        is "none"."""
        body = self.shape.body(self.model, messages, json_answer, tools, tool_choice)
        started = time.monotonic()
        counter = [0]
        try:
            completion = self._complete(body, counter)
        except (AttemptFailed, EndpointError, RequestRefused) as exc:
            if isinstance(exc, AnswerCutOff):
                raised: Any = exc
                exc.args = (self.scrubbed(str(exc)),)
            elif isinstance(exc, RequestRefused):
                raised = RequestRefused(self.scrubbed(str(exc)), self.scrubbed(exc.server_message), sent=exc.sent)
            else:
                raised = type(exc)(self.scrubbed(str(exc)))
            raised.attempts, raised.latency_s = counter[0], time.monotonic() - started
            raise raised from None
        calls = tuple(ToolCall(self.scrubbed(call.id), self.scrubbed(call.name), self.scrubbed(call.arguments))
                      for call in completion.tool_calls)
        return Completion(
            self.scrubbed(completion.content), completion.finish_reason, self._keyless(completion.served_model),
            self._keyless(completion.fingerprint), completion.usage, completion.usage_reported,
            time.monotonic() - started, counter[0], calls,
        )

    def _keyless(self, name: str | None) -> str | None:
        """A name the server sent, unless it carries the key (it would name a file, and reach git)."""
        return None if name is None or self._key and self._key in name else name

    def scrubbed(self, text: str) -> str:
        """`text` with the API key cut out (a server may echo the Authorization header anywhere)."""
        return text.replace(self._key, KEY_SHOWN_AS) if self._key else text

    def _complete(self, body: dict[str, Any], counter: list[int]) -> Completion:
        retry = 0
        last_500 = None
        while True:
            counter[0] += 1
            response, text = self._post(body)
            status = response.status_code
            self._refuse(response, text)
            if status == 429 or status >= 500:
                detail = _detail(response, text)
                # the server's own error object, twice the same: what it decided, not an accident
                stated = status == 500 and _error_message(text)
                if stated and detail == last_500:
                    raise RequestRefused(
                        f"{self.endpoint} refused the request: HTTP 500 twice with the same message, so "
                        f"another attempt would get it again: {detail}", detail
                    )
                last_500 = detail if stated else None
                if retry >= self.max_retries:
                    raise AttemptFailed(
                        f"{self.endpoint} answered HTTP {status} {retry + 1} times in a row "
                        f"(the last: {detail})"
                    )
                delay = retry_delay(response, retry, self.backoff_s, LONGEST_WAIT_S)
                if delay > LONGEST_WAIT_S:
                    raise AttemptFailed(
                        f"{self.endpoint} asks to wait {delay:.0f} s (HTTP {status}); judge again later"
                    )
                self._sleep(delay)
                retry += 1
                continue
            if status == 408:  # the server's own timeout: transient
                raise AttemptFailed(f"{self.endpoint} answered HTTP 408: {_detail(response, text)}")
            if status >= 400:
                detail = _detail(response, text)
                if _is_context_overflow(response, text, detail):
                    raise RequestRefused(
                        f"the prompt does not fit the model's context window ({self.endpoint} answered HTTP "
                        f"{status}: {detail}); judge with fewer criteria per request (--batch), a model with a "
                        "larger context, or less evidence", detail
                    )
                raise RequestRefused(f"{self.endpoint} refused the request (HTTP {status}): {detail}", detail)
            return self._completion(text)

    def _post(self, body: dict[str, Any]) -> tuple[httpx.Response, str]:
        """The response and its body as text, the whole request within the timeout."""
        try:
            with within(self.timeout_s), self._http.stream("POST", self.endpoint, json=body) as response:
                return response, self._body(response)
        except httpx.TimeoutException as exc:
            raise AttemptFailed(
                f"{self.endpoint} gave no whole answer within the request timeout of "
                f"{self.timeout_s:g} s ({type(exc).__name__}); raise it with --timeout"
            ) from None
        except httpx.ConnectError as exc:
            raise EndpointError(
                f"cannot connect to {self.endpoint} ({exc}): start the server, or give the right "
                "address with --endpoint or OPENAI_BASE_URL"
            ) from None
        except httpx.HTTPError as exc:  # the connection broke mid-answer: another attempt may get through
            raise AttemptFailed(f"{self.endpoint}: {type(exc).__name__}: {exc}") from None

    def _body(self, response: httpx.Response) -> str:
        received = bytearray()
        for chunk in response.iter_bytes():
            received += chunk
            if len(received) > MAX_ANSWER_BYTES:
                raise AttemptFailed(
                    f"the server's answer is too large (more than {MAX_ANSWER_BYTES:,} bytes): "
                    f"{self.endpoint} is no chat-completions server, or a broken one"
                )
        return received.decode(response.encoding or "utf-8", errors="replace")

    def _refuse(self, response: httpx.Response, text: str) -> None:
        """EndpointError for an answer that says no request to this endpoint can succeed."""
        status = response.status_code
        if status < 400:
            return
        code = _error_code(text)
        # a rate limit (429 too) passes; an exhausted quota or billing limit does not
        if code in _QUOTA or "exceeded your current quota" in _detail(response, text).lower():
            raise EndpointError(
                f"{self.endpoint} has no quota left for this key (HTTP {status}: {_detail(response, text)}): "
                "add credit or raise the limit with the provider, then judge again"
            )
        if status == 400 and (code in _SETTING_REFUSED
                              or any(words in _detail(response, text).lower() for words in _SETTING_WORDS)):
            raise EndpointError(
                f"{self.endpoint} refuses a setting of the judge's requests for model '{self.model}' "
                f"(HTTP 400: {_detail(response, text)}): change it in the judge profile or its flags "
                "(docs/judging.md lists what each preset sends)"
            )
        if status in (401, 403):
            raise EndpointError(
                f"{self.endpoint} refused the API key (HTTP {status}: {_detail(response, text)}): set "
                f"{KEY_VARIABLE}, or store it with `keyring set {KEYRING_SERVICE} {KEY_VARIABLE}`"
            )
        if status == 404:
            raise EndpointError(
                f"{self.endpoint} answered HTTP 404 ({_detail(response, text)}): check the base URL "
                f"(--endpoint or {BASE_URL_VARIABLE}, usually ending in /v1) and the model name "
                f"'{self.model}' (--model)"
            )

    def _completion(self, text: str) -> Completion:
        try:
            data = load_json(text)
            choice = data["choices"][0]
            message = choice["message"]
            # beside tool calls the content is null, or absent (some servers); without them it must be there
            content = message.get("content") if "tool_calls" in message else message["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise AttemptFailed(
                f"{self.endpoint} answered something that is no chat completion: {text[:200]!r}"
            ) from None
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        served = data.get("model")
        fingerprint = data.get("system_fingerprint")
        usage, reported = _usage(data.get("usage"))
        calls = _tool_calls(message.get("tool_calls") if isinstance(message, dict) else None)
        completion = Completion(
            content if isinstance(content, str) else "", finish if isinstance(finish, str) else None,
            _name(served), _name(fingerprint), usage, reported, tool_calls=calls,
        )
        if finish == "length":
            limit = self.shape.max_output_tokens
            cap = f" of {limit:,} (--max-output-tokens)" if limit else " the server sets (give --max-output-tokens)"
            raise AnswerCutOff(
                f"the answer was cut off at the output token limit{cap} after {usage.completion_tokens:,} "
                "tokens (finish_reason \"length\"); raise the limit or judge fewer criteria per request",
                completion,
            )
        if not isinstance(content, str) and not calls:
            raise AttemptFailed(f"{self.endpoint} answered a chat completion without text content")
        return completion


def _tool_calls(raw: Any) -> tuple[ToolCall, ...]:
    """The function calls of an assistant message, as OpenAI documents them: [{id, type: "function",
    function: {name, arguments}}]; an entry of another shape is left out (the model's turn then has
    fewer calls, never a crash). The arguments stay the text the model wrote, checked by the tool."""
    if not isinstance(raw, list):
        return ()
    calls = []
    for entry in raw:
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(function, dict) or entry.get("type", "function") != "function":
            continue
        name, arguments, call_id = function.get("name"), function.get("arguments"), entry.get("id")
        if isinstance(name, str) and isinstance(call_id, str):
            calls.append(ToolCall(call_id[:200], name[:200], arguments if isinstance(arguments, str) else ""))
    return tuple(calls)


def _name(value: Any) -> str | None:
    """A model name or fingerprint the server sent, when it can name a rater and a file: one short
    run of letters, digits and . _ : / @ + - (the server is not trusted with what reaches a file)."""
    if isinstance(value, str) and _NAME.fullmatch(value) and any(char.isalnum() for char in value):
        return value
    return None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _usage(raw: Any) -> tuple[Usage, bool]:
    """The response's `usage` (OpenAI's fields; llama.cpp and vLLM send the same), and whether it was there."""
    if not isinstance(raw, dict):
        return Usage(), False
    prompt_details = raw.get("prompt_tokens_details")
    completion_details = raw.get("completion_tokens_details")
    return Usage(
        _count(raw.get("prompt_tokens")),
        _count(raw.get("completion_tokens")),
        _count(prompt_details.get("cached_tokens")) if isinstance(prompt_details, dict) else 0,
        _count(completion_details.get("reasoning_tokens")) if isinstance(completion_details, dict) else 0,
    ), True


def _error_field(text: str, *names: str) -> str:
    """The first of `names` that the answer's error object gives as text, in OpenAI's shape
    {"error": {"message", "type", "param", "code"}}; "" when the answer is not in that shape."""
    try:
        data = load_json(text)
    except (ValueError, AttemptFailed):
        return ""
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return ""
    for name in names:
        value = error.get(name)
        if value:
            return str(value) if name != "message" or isinstance(value, str) else ""
    return ""


def _error_code(text: str) -> str:
    """The error's `code`, else its `type`."""
    return _error_field(text, "code", "type")


def _error_message(text: str) -> str:
    """error.message, "" when it has none."""
    return _error_field(text, "message")


def _is_context_overflow(response: httpx.Response, text: str, detail: str) -> bool:
    if _error_code(text) in _CONTEXT_CODES:
        return True
    lowered = detail.lower()
    return response.status_code in (400, 413) and any(words in lowered for words in _CONTEXT_WORDS)


def load_json(text: str) -> Any:
    """JSON from the judge's server, which is not trusted: ValueError when it is no JSON, AttemptFailed
    when it nests deeper than MAX_JSON_DEPTH (where Python's parser would run out of stack)."""
    try:
        data = json.loads(text)
    except RecursionError:
        data = None
    else:
        if _depth_within(data, MAX_JSON_DEPTH):
            return data
    raise AttemptFailed(
        f"the server's answer is too deep (JSON nested more than {MAX_JSON_DEPTH} levels; a chat "
        "completion is a few levels deep)"
    )


def _depth_within(data: Any, limit: int) -> bool:
    """Whether `data` nests at most `limit` lists and objects deep (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return True


def _detail(response: httpx.Response, text: str) -> str:
    """The server's error message, short; never the request (which carries the key)."""
    try:
        data = load_json(text)
        error = data.get("error") if isinstance(data, dict) else None
        message = error.get("message") if isinstance(error, dict) else error
        if message:
            return str(message)[:300]
    except (ValueError, AttemptFailed):
        pass
    return text[:300] or response.reason_phrase
