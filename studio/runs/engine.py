"""The local Docker engine, through the `docker` SDK: one container per harness step, its output
streamed to a log file as it comes, limits, a time limit, cancelling, and clear messages when the
engine or the image is missing or the engine goes away mid-run.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import docker
import docker.errors
import docker.types

from studio.runs.errors import RunError
from studio.untrusted.logs import CappedLog

DEFAULT_URL = "unix:///var/run/docker.sock"
# How often a waiting run looks at its time limit and at the cancel request.
POLL_SECONDS = 0.5
# After a kill, how long the container may take to be reported dead before we stop waiting.
KILL_GRACE_SECONDS = 20.0
# How long the log writer may lag behind the container's exit before its tail is given up.
LOG_DRAIN_SECONDS = 10.0
# The lines asked for when the log could not be read to its end in time (at most LOG_TAIL bytes kept).
TAIL_LINES = 2000

START_ENGINE = (
    "start it (as root: scripts/dockerd.sh start, which prints the address to export as "
    'DOCKER_HOST; see docs/runs.md, "Docker engine") or set DOCKER_HOST to a running engine'
)


class EngineError(RunError):
    """No Docker engine answers, it refused a request, or it went away during a run."""


class ImageMissing(RunError):
    """The run's image is not on the engine (images are built locally: no registry is used)."""


@dataclass(frozen=True)
class Mount:
    host: Path
    target: str
    read_only: bool


@dataclass(frozen=True)
class ContainerSpec:
    image: str
    command: list[str]
    workdir: str
    env: dict[str, str] = field(default_factory=dict)
    mounts: list[Mount] = field(default_factory=list)
    cpus: float = 2.0
    memory: str = "8g"
    network: bool = False
    timeout_s: float | None = None
    labels: dict[str, str] = field(default_factory=dict)
    # "uid:gid" of the host user, so what the container writes in the workspace stays the user's.
    user: str | None = None


@dataclass(frozen=True)
class ContainerResult:
    # The container's exit status as the engine reports it (137 after a kill); None if never known.
    exit_code: int | None
    timed_out: bool
    cancelled: bool
    started: datetime
    ended: datetime
    image_id: str


def _now() -> datetime:
    return datetime.now(UTC)


def _reason(error: BaseException) -> str:
    explanation = getattr(error, "explanation", None)
    return str(explanation or error).strip()


class DockerEngine:
    """A connected engine. Every failure a user can fix is an EngineError or ImageMissing."""

    def __init__(self, client: Any, url: str) -> None:
        self._client = client
        self._url = url

    @classmethod
    def connect(cls) -> DockerEngine:
        url = os.environ.get("DOCKER_HOST") or DEFAULT_URL
        client = None
        try:
            client = docker.from_env()
            client.ping()
        except (docker.errors.DockerException, OSError) as error:
            if client is not None:
                client.close()
            raise EngineError(f"No Docker engine at {url}: {START_ENGINE}. ({_reason(error)})") from error
        return cls(client, url)

    def url(self) -> str:
        return self._url

    def close(self) -> None:
        """Close the engine's connection pool (an engine connected for one call is closed after it)."""
        self._client.close()

    def __enter__(self) -> DockerEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def image_id(self, image: str) -> str:
        try:
            return str(self._client.images.get(image).id)
        except docker.errors.ImageNotFound as error:
            raise ImageMissing(
                f'image {image} is not on this engine ({self._url}): build it locally (docs/runs.md, "Images": '
                f"a Dockerfile FROM a local base, then docker build -t {image} .; the tests' image is made by "
                f"scripts/test-image.sh). No registry is used, so it is never pulled."
            ) from error
        except (docker.errors.DockerException, OSError) as error:
            raise self._gone(error, f"looking up image {image}") from error

    def run(self, spec: ContainerSpec, *, log: Path, cancel: Callable[[], bool] | None = None) -> ContainerResult:
        """Runs `spec` to its end, its output written to `log` as it comes; the container is always removed."""
        image_id = self.image_id(spec.image)
        container = self._create(spec)
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_bytes(b"")  # the last attempt's output only, and a file to tail from the start
        started = _now()
        writer: threading.Thread | None = None
        try:
            try:
                container.start()
                # The request is made here, on this thread; the thread only reads the answer.
                stream = container.logs(stream=True, follow=True)
            except (docker.errors.DockerException, OSError) as error:
                raise self._gone(error, f"starting a container of {spec.image}") from error
            capped = CappedLog(log)
            writer = threading.Thread(target=_write_log, args=(stream, capped), name="container-log", daemon=True)
            writer.start()
            exit_code, timed_out, cancelled = self._wait(container, spec, cancel)
            ended = _now()
        finally:
            if writer is not None:
                writer.join(LOG_DRAIN_SECONDS)
                if (
                    writer.is_alive()
                ):  # more output than the stream gave in time: the end, where the error is, matters most
                    _fetch_tail(container, capped)
            self._remove(container)
        return ContainerResult(
            exit_code=exit_code,
            timed_out=timed_out,
            cancelled=cancelled,
            started=started,
            ended=ended,
            image_id=image_id,
        )

    def count_labelled(self, labels: dict[str, str]) -> int:
        """How many containers, running or not, carry all of `labels`."""
        try:
            return len(self._client.containers.list(all=True, filters=self._label_filter(labels)))
        except (docker.errors.DockerException, OSError) as error:
            raise self._gone(error, "listing a run's containers") from error

    @staticmethod
    def _label_filter(labels: dict[str, str]) -> dict[str, list[str]]:
        # an empty filter matches every container on the engine: killing "the run's leftovers" with it
        # would kill everyone else's containers too
        if not labels:
            raise ValueError("a label filter needs at least one label")
        return {"label": [f"{key}={value}" for key, value in sorted(labels.items())]}

    def kill_labelled(self, labels: dict[str, str]) -> int:
        """Kills and removes the containers carrying all of `labels` (leftovers of an interrupted run)."""
        try:
            leftovers = self._client.containers.list(all=True, filters=self._label_filter(labels))
        except (docker.errors.DockerException, OSError) as error:
            raise self._gone(error, "listing a run's containers") from error
        for container in leftovers:
            self._remove(container)
        return len(leftovers)

    def _create(self, spec: ContainerSpec) -> Any:
        mounts = [
            docker.types.Mount(target=m.target, source=str(Path(m.host).resolve()), type="bind", read_only=m.read_only)
            for m in spec.mounts
        ]
        options: dict[str, Any] = {}
        if not spec.network:
            options["network_mode"] = "none"
        try:
            return self._client.containers.create(
                spec.image,
                spec.command,
                working_dir=spec.workdir,
                environment=dict(spec.env),
                mounts=mounts,
                nano_cpus=round(spec.cpus * 1e9),
                mem_limit=spec.memory,
                labels=dict(spec.labels),
                user=spec.user or "",
                detach=True,
                **options,
            )
        except docker.errors.ImageNotFound:
            raise self._image_missing(spec.image) from None
        except docker.errors.APIError as error:
            if error.is_client_error():
                raise EngineError(
                    f"The Docker engine refused the container for {spec.image}: {_reason(error)}. "
                    "Check the run's limits (cpus, memory) and that its folders exist."
                ) from error
            raise self._gone(error, f"creating a container of {spec.image}") from error
        except docker.errors.DockerException as error:  # the SDK's own check of the settings, before any request
            raise EngineError(
                f"The settings of the container for {spec.image} are invalid: {_reason(error)}. "
                "Check the run's limits (cpus, memory such as 8g)."
            ) from error
        except OSError as error:
            raise self._gone(error, f"creating a container of {spec.image}") from error

    def _image_missing(self, image: str) -> ImageMissing:
        try:
            self.image_id(image)
        except ImageMissing as missing:
            return missing
        return ImageMissing(f"image {image} vanished from the engine ({self._url}) while the run started it")

    def _wait(
        self, container: Any, spec: ContainerSpec, cancel: Callable[[], bool] | None
    ) -> tuple[int | None, bool, bool]:
        deadline = None if spec.timeout_s is None else time.monotonic() + spec.timeout_s
        while True:
            step = POLL_SECONDS if deadline is None else max(0.0, min(POLL_SECONDS, deadline - time.monotonic()))
            status = self._wait_once(container, step)
            if status is not None:
                # A dockerd shutting down closes its API first, then stops the containers: a failed
                # container and a silent engine mean the engine went away, not that the harness failed.
                if status != 0 and not self._answers():
                    raise self._gone(RuntimeError(f"the container ended with {status}"), "running a container")
                return status, False, False
            if cancel is not None and cancel():
                return self._kill(container), False, True
            if deadline is not None and time.monotonic() >= deadline:
                return self._kill(container), True, False

    def _wait_once(self, container: Any, seconds: float) -> int | None:
        """The exit code when the container ended within `seconds`, else None."""
        try:
            # The engine answers a wait only when the container has ended; a read timeout means "still running".
            outcome = container.wait(timeout=max(seconds, 0.01))
            return int(outcome.get("StatusCode", -1))
        except docker.errors.NotFound as error:
            raise EngineError(
                f"The container of this step disappeared from the engine ({self._url}) while it ran "
                "(removed by someone else?): continue the run with `dbstudio runs resume RUN`, "
                "which reruns this subtask from the previous checkpoint."
            ) from error
        except (docker.errors.DockerException, OSError) as error:
            if self._answers():
                return None
            raise self._gone(error, "waiting for a container") from error

    def _kill(self, container: Any) -> int | None:
        try:
            container.kill()
        except docker.errors.APIError as error:
            # 409: it ended on its own between the last look and the kill.
            if error.status_code != 409:
                raise self._gone(error, "stopping a container") from error
        except (docker.errors.DockerException, OSError) as error:
            raise self._gone(error, "stopping a container") from error
        deadline = time.monotonic() + KILL_GRACE_SECONDS
        while time.monotonic() < deadline:
            status = self._wait_once(container, 1.0)
            if status is not None:
                return status
        return None

    def _remove(self, container: Any) -> None:
        try:
            container.remove(force=True)
        except (docker.errors.DockerException, OSError):
            # An engine that went away takes its containers with it on restart (and a resumed run kills
            # leftovers by label): the error that matters is the one already on its way up.
            pass

    def _answers(self) -> bool:
        try:
            self._client.ping()
            return True
        except (docker.errors.DockerException, OSError):
            return False

    def _gone(self, error: BaseException, doing: str) -> EngineError:
        if self._answers():
            return EngineError(f"The Docker engine at {self._url} failed while {doing}: {_reason(error)}")
        return EngineError(
            f"The Docker engine at {self._url} went away while {doing} ({_reason(error)}). Start it again "
            "(scripts/dockerd.sh start) and continue with `dbstudio runs resume RUN`: completed checkpoints "
            "are kept and the interrupted subtask is rerun from the previous one."
        )


def _write_log(stream: Iterator[bytes], log: CappedLog) -> None:
    """Appends the container's output to `log` chunk by chunk, flushed, so a viewer can tail it live
    (head and tail only past studio.untrusted.LOG_LIMIT)."""
    try:
        for chunk in stream:
            log.write(chunk)
    except (docker.errors.DockerException, OSError, ValueError):
        # The engine went away: the waiting side reports it; what arrived so far stays in the log.
        pass
    finally:
        log.close()


def _fetch_tail(container: Any, log: CappedLog) -> None:
    """End the log with the container's last lines, asked of the engine directly."""
    try:
        tail = container.logs(stdout=True, stderr=True, stream=False, tail=TAIL_LINES)
    except (docker.errors.DockerException, OSError):
        return
    log.replace_tail(
        [tail],
        f"output cut here after {log.total:,} bytes: the container wrote more than could be "
        f"read in {LOG_DRAIN_SECONDS:.0f} s after it ended; its last {TAIL_LINES:,} lines follow",
    )
