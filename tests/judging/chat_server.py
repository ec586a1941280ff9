"""A real chat-completions server on loopback for the judge's tests and bench, scripted per test.

Each request is handed to `reply(request)`, which returns a `Reply`: an HTTP status, a body (a
dict sent as JSON, or raw text), headers, an optional delay before answering, and optionally a
pause between bytes (a server drip-feeding its answer: headers at once, then the body a byte at a
time, with the Content-Length of the whole body, as any HTTP/1.1 server may send it). The default
answers that every criterion the prompt asks about holds. The server records every request and
the most requests it served at once; `stop()` releases any request still waiting.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_IDS = re.compile(r"one entry for each of (.+)\.\s*$")
# No test request is held longer than this, whatever the script says.
LONGEST_DELAY_S = 30.0


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    number: int  # 1-based, in arrival order

    @property
    def user_text(self) -> str:
        content = self.body["messages"][-1]["content"]
        if isinstance(content, list):
            return "".join(part.get("text", "") for part in content if part.get("type") == "text")
        return str(content)

    @property
    def ids(self) -> list[str]:
        """The criterion ids the prompt asks about, in order."""
        match = _IDS.search(self.user_text)
        return [part.strip() for part in match.group(1).split(",")] if match else []


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] | str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drip_s: float = 0.0  # seconds between the body's bytes; 0 sends the body in one write


def completion(content: str, model: str | None = None, usage: dict[str, Any] | None = None,
               finish_reason: str = "stop", fingerprint: str | None = None) -> dict[str, Any]:
    """A chat-completions response carrying `content` as the assistant's message. The model that
    answered is `model`, else (as vLLM and llama.cpp do) the one the request named: the server fills it in."""
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
    }
    if usage is not None:
        body["usage"] = usage
    if fingerprint is not None:
        body["system_fingerprint"] = fingerprint
    return body


def verdicts_json(ids: list[str], verdict: str | Callable[[str], str] = "pass") -> str:
    """An answer giving each criterion the stored verdict `verdict` ("pass": its statement holds)."""
    decide = verdict if callable(verdict) else (lambda _cid: verdict)
    return json.dumps(
        {
            "verdicts": [
                {
                    "criterion": cid,
                    "holds": decide(cid) == "pass",
                    "rationale": f"because of {cid}",
                    "evidence": ["outputs/report.md#L1"],
                }
                for cid in ids
            ]
        }
    )


def answer_all(request: Request) -> Reply:
    return Reply(body=completion(verdicts_json(request.ids)))


class ChatServer:
    def __init__(self, reply: Callable[[Request], Reply] = answer_all, latency_s: float = 0.0) -> None:
        self.reply = reply
        self.latency_s = latency_s
        self.requests: list[Request] = []
        self.max_concurrent = 0
        self._active = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # headers and body go out in two writes: without this, Nagle's algorithm holds the body
                # until the client's delayed ACK (~40 ms), which would swamp a 200 ms latency
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                server._serve(self)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.05,), name="chat-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", "0"))
        raw = handler.rfile.read(length)
        with self._lock:
            self._active += 1
            self.max_concurrent = max(self.max_concurrent, self._active)
            request = Request(
                handler.path,
                {k.lower(): v for k, v in handler.headers.items()},
                json.loads(raw or b"{}"),
                len(self.requests) + 1,
            )
            self.requests.append(request)
        try:
            if handler.path != "/v1/chat/completions":
                reply = Reply(404, {"error": {"message": f"no route {handler.path}"}})
            else:
                reply = self.reply(request)
            self._stopping.wait(min(LONGEST_DELAY_S, self.latency_s + reply.delay_s))
            if isinstance(reply.body, dict) and "model" in reply.body and reply.body["model"] is None:
                reply.body = {**reply.body, "model": request.body.get("model")}
            body = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
            data = body.encode("utf-8")
            try:
                handler.send_response(reply.status)
                handler.send_header("Content-Type", "application/json")
                handler.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    handler.send_header(name, value)
                handler.end_headers()
                if reply.drip_s > 0:
                    self._drip(handler, data, reply.drip_s)
                else:
                    handler.wfile.write(data)
            except OSError:  # the client gave up (its timeout) before the answer
                pass
        finally:
            with self._lock:
                self._active -= 1

    def _drip(self, handler: BaseHTTPRequestHandler, data: bytes, pause_s: float) -> None:
        for index in range(len(data)):
            handler.wfile.write(data[index : index + 1])
            handler.wfile.flush()
            if self._stopping.wait(pause_s):
                return


# -- servers that keep an API's documented request rules --------------------------------------------


def api_error(status: int, message: str, kind: str = "invalid_request_error", param: str | None = None,
              code: str | None = None) -> Reply:
    """An error in OpenAI's documented shape {"error": {"message", "type", "param", "code"}}."""
    return Reply(status, {"error": {"message": message, "type": kind, "param": param, "code": code}})


@dataclass
class ApiRules:
    """What one API accepts, as its documentation says; `reply` answers like it.

    `served_model`: the name the server answers under (OpenAI names the dated snapshot). The server
    counts a prompt's tokens as one per three characters of text (a real tokenizer is finer than the
    judge's estimate of four), and an answer's as one per four characters."""

    name: str
    refuses_temperature: bool = False  # OpenAI reasoning models, the newest Claude models
    refuses_max_tokens: bool = False  # OpenAI reasoning models: max_completion_tokens only
    refuses_reasoning_effort: bool = False  # OpenAI's non-reasoning models
    reasoning_efforts: tuple[str, ...] = ("minimal", "low", "medium", "high")
    json_schema: bool = True  # accepts response_format json_schema
    context_tokens: int = 128_000
    overflow: str = "openai"  # how it says a prompt is too long: openai, vllm, llama.cpp, or truncate (Ollama)
    served_model: str | None = None
    fingerprint: str | None = "fp_test"
    cached_tokens: int = 0  # reported as read from the prompt cache, on every request after the first
    verdict: str = "pass"

    def reply(self, request: Request) -> Reply:
        body = request.body
        if self.refuses_temperature and "temperature" in body and body["temperature"] != 1:
            if self.name == "anthropic":
                return Reply(400, {"type": "error", "error": {
                    "type": "invalid_request_error",
                    "message": "temperature: this model does not support the temperature parameter"}})
            return api_error(400, f"Unsupported value: 'temperature' does not support {body['temperature']} with "
                             "this model. Only the default (1) value is supported.", param="temperature",
                             code="unsupported_value")
        if self.refuses_max_tokens and "max_tokens" in body:
            return api_error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                             "'max_completion_tokens' instead.", param="max_tokens", code="unsupported_parameter")
        effort = body.get("reasoning_effort")
        if effort is not None and self.refuses_reasoning_effort:
            return api_error(400, "Unrecognized request argument supplied: reasoning_effort",
                             param="reasoning_effort", code="unsupported_parameter")
        if effort is not None and not self.refuses_reasoning_effort and effort not in self.reasoning_efforts:
            return api_error(400, f"Invalid value: '{effort}'. Supported values are: "
                             f"{', '.join(repr(e) for e in self.reasoning_efforts)}.", param="reasoning_effort",
                             code="invalid_value")
        form = (body.get("response_format") or {}).get("type")
        if form == "json_schema" and not self.json_schema:
            return api_error(400, "response_format json_schema is not supported", param="response_format")
        prompt_tokens = sum(len(json.dumps(m.get("content", ""))) for m in body["messages"]) // 3
        cap = body.get("max_completion_tokens", body.get("max_tokens"))
        if prompt_tokens + (cap or 0) > self.context_tokens and self.overflow != "truncate":
            return self._overflow(prompt_tokens, cap or 0)
        content = verdicts_json(request.ids, self.verdict)
        completion_tokens = len(content) // 4
        finish = "stop"
        if cap is not None and completion_tokens > cap:
            content, completion_tokens, finish = content[: cap * 4], cap, "length"
        cached = self.cached_tokens if request.number > 1 else 0
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": 7 if effort else 0},
        }
        return Reply(body=completion(content, self.served_model, usage, finish, self.fingerprint))

    def _overflow(self, prompt_tokens: int, cap: int) -> Reply:
        if self.overflow == "llama.cpp":
            return Reply(400, {"error": {"code": 400, "message": "the request exceeds the available context size, "
                                         "try increasing it", "type": "exceed_context_size_error",
                                         "n_prompt_tokens": prompt_tokens, "n_ctx": self.context_tokens}})
        if self.overflow == "vllm":
            return Reply(400, {"object": "error", "message": f"This model's maximum context length is "
                               f"{self.context_tokens} tokens. However, you requested {prompt_tokens + cap} tokens. "
                               "Please reduce the length of the messages or completion.",
                               "type": "BadRequestError", "param": None, "code": 400})
        return api_error(400, f"This model's maximum context length is {self.context_tokens} tokens. However, your "
                         f"messages resulted in {prompt_tokens} tokens. Please reduce the length of the messages.",
                         param="messages", code="context_length_exceeded")


# Each preset of studio/judging/profiles.py and the API it is made for.
API_OF_PRESET: dict[str, ApiRules] = {
    "openai-reasoning": ApiRules("openai-reasoning", refuses_temperature=True, refuses_max_tokens=True,
                                 served_model="gpt-5-mini-2025-08-07", cached_tokens=1024, context_tokens=400_000),
    "openai": ApiRules("openai", refuses_reasoning_effort=True, served_model="gpt-4.1-mini-2025-04-14",
                       cached_tokens=1024),
    "anthropic": ApiRules("anthropic", refuses_temperature=True, json_schema=False, fingerprint=None,
                          context_tokens=200_000),
    "gemini": ApiRules("gemini", reasoning_efforts=("none", "low", "medium", "high"), fingerprint=None),
    "vllm": ApiRules("vllm", overflow="vllm", context_tokens=32_768),
    "ollama": ApiRules("ollama", overflow="truncate", context_tokens=4096, fingerprint="fp_ollama"),
    "llama-cpp": ApiRules("llama-cpp", overflow="llama.cpp", context_tokens=8192, fingerprint=None),
}
