"""A client of any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

The API key comes from the environment or the OS keyring and lives only in the request headers:
whatever the server sends back (an answer, an error, a garbage body) has the key cut out before
anyone reads it, so no note, verdict, log or error message can carry it. The server is not trusted:
`--timeout` bounds the whole request (studio/judging/deadline.py), an answer larger than
MAX_ANSWER_BYTES or nested deeper than MAX_JSON_DEPTH is refused. HTTP 429 and 5xx answers are
retried with exponential backoff, honouring Retry-After; a timeout, another 4xx or an answer that is
no chat completion is an `AttemptFailed` the judge's protocol counts as one failed attempt.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Sequence
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from studio.api_keys import KEYRING_SERVICE, secret
from studio.judging.deadline import deadline_transport, within
from studio.judging.errors import JudgingError

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
# What the key is replaced with wherever the server echoed it.
KEY_SHOWN_AS = "[API key]"


class EndpointError(JudgingError):
    """The endpoint cannot be used at all (refused connection, rejected key, unknown model or path)."""


class AttemptFailed(JudgingError):
    """One request gave no usable answer (timeout, retries used up, a malformed reply); worth another attempt."""


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
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
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
        """The assistant's text for `messages`. EndpointError when the endpoint cannot serve at all,
        AttemptFailed when this request gave no answer (after retrying 429 and 5xx)."""
        body: dict[str, Any] = {"model": self.model, "messages": list(messages), "temperature": 0}
        if json_answer:
            body["response_format"] = {"type": "json_object"}
        try:
            return self.scrubbed(self._complete(body))
        except (AttemptFailed, EndpointError) as exc:
            raise type(exc)(self.scrubbed(str(exc))) from None

    def scrubbed(self, text: str) -> str:
        """`text` with the API key cut out (a server may echo the Authorization header anywhere)."""
        return text.replace(self._key, KEY_SHOWN_AS) if self._key else text

    def _complete(self, body: dict[str, Any]) -> str:
        retry = 0
        while True:
            response, text = self._post(body)
            status = response.status_code
            if status == 429 or status >= 500:
                if retry >= self.max_retries:
                    raise AttemptFailed(
                        f"{self.endpoint} answered HTTP {status} {retry + 1} times in a row "
                        f"(the last: {_detail(response, text)})"
                    )
                delay = retry_delay(response, retry, self.backoff_s, LONGEST_WAIT_S)
                if delay > LONGEST_WAIT_S:
                    raise AttemptFailed(
                        f"{self.endpoint} asks to wait {delay:.0f} s (HTTP {status}); judge again later"
                    )
                self._sleep(delay)
                retry += 1
                continue
            self._refuse(response, text)
            if status >= 400:
                raise AttemptFailed(f"{self.endpoint} answered HTTP {status}: {_detail(response, text)}")
            return self._content(text)

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
        status = response.status_code
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

    def _content(self, text: str) -> str:
        try:
            content = load_json(text)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise AttemptFailed(
                f"{self.endpoint} answered something that is no chat completion: {text[:200]!r}"
            ) from None
        if not isinstance(content, str):
            raise AttemptFailed(f"{self.endpoint} answered a chat completion without text content")
        return content


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
