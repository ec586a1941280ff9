"""A deadline for a whole HTTP request: connecting, sending, the headers and every byte of the body.

httpx's timeouts bound each socket operation, so a server that drip-feeds its answer (a byte a
second) keeps a request alive for ever. Here every socket operation of a request made inside
`within(seconds)` is given at most the time left until the request's deadline, and fails as a
timeout once it has passed. The deadline is kept per thread: a sync httpx client does all of a
request's socket work in the thread that sent it, so the judge's parallel batches each keep their own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

_local = threading.local()


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Every request this thread makes inside the block ends by `seconds` from now, or times out."""
    earlier = getattr(_local, "deadline", None)
    _local.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.deadline = earlier


def _time_left(timeout: float | None, error: type[httpcore.TimeoutException]) -> float | None:
    """The timeout of one socket operation: httpx's own, cut to what is left of the request's deadline."""
    deadline = getattr(_local, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the whole request took longer than its deadline")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _time_left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _time_left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        tls = self._stream.start_tls(ssl_context, server_hostname, _time_left(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._backend.connect_tcp(
            host, port, _time_left(timeout, httpcore.ConnectTimeout), local_address, socket_options
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        stream = self._backend.connect_unix_socket(path, _time_left(timeout, httpcore.ConnectTimeout), socket_options)
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def deadline_transport(limits: httpx.Limits) -> httpx.HTTPTransport:
    """httpx's own transport with its socket work under `within`'s deadline. httpx has no public way to
    give its connection pool a network backend, so the pool's is wrapped in place; the judge's tests
    (a server sending one byte a second) fail loudly if a later httpx moves it."""
    transport = httpx.HTTPTransport(limits=limits)
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if not isinstance(backend, httpcore.NetworkBackend):
        raise RuntimeError("this httpx keeps its connection pool elsewhere: studio/judging/deadline.py needs updating")
    pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]
    return transport
