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


def completion(content: str) -> dict[str, Any]:
    """A chat-completions response carrying `content` as the assistant's message."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }


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
