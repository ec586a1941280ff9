"""The local Docker engine, through the `docker` SDK: one container per harness step, its output
streamed to a log file as it comes (within studio.untrusted.LOG_LIMIT), limits, least privilege
(confinement.py), a time limit, cancelling, and clear messages when the engine or the image is
missing or the engine goes away mid-run.
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

from studio.runs.confinement import DEFAULT_PIDS_LIMIT, create_options
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
# Past one engine log file's size the stream may have ended early: its last END_BYTES are compared with
# the engine's last ROTATION_CHECK_LINES lines.
ENGINE_LOG_ROTATES_AT = 10 * 1024 * 1024
END_BYTES = 64 * 1024
ROTATION_CHECK_LINES = 20

START_ENGINE = (
    "start it (as root: scripts/dockerd.sh start, which prints the address to export as "
    'DOCKER_HOST; see docs/runs.md, "Docker engine") or set DOCKER_HOST to a running engine'
)


RERUN = "continue the run with `dbstudio runs resume RUN`, which reruns this subtask from the previous checkpoint."


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
    # "uid:gid", never root for an agent (ownership.container_user): what it writes stays the user's.
    user: str | None = None
    # Least privilege (confinement.py): every capability is dropped but these, which a harness may add back.
    capabilities: tuple[str, ...] = ()
    read_only_root: bool = True
    pids_limit: int = DEFAULT_PIDS_LIMIT


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
        # the engine's own deadline (confinement.deadline_check) counts from here, a little before ours
        deadline_epoch = None if spec.timeout_s is None else time.time() + spec.timeout_s
        container = self._create(spec, deadline_epoch)
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_bytes(b"")  # the last attempt's output only, and a file to tail from the start
        started = _now()
        writer: threading.Thread | None = None
        try:
            try:
                container.start()
                # The request is made here, on this thread; the thread only reads the answer.
                stream = container.logs(stream=True, follow=True)
            except docker.errors.APIError as error:
                if error.status_code in (404, 409) and self._answers():  # killed or removed as it started
                    raise EngineError(
                        f"The container of this step was stopped or removed as it started "
                        f"({_reason(error)}; by someone else?): {RERUN}"
                    ) from error
                raise self._gone(error, f"starting a container of {spec.image}") from error
            except (docker.errors.DockerException, OSError) as error:
                raise self._gone(error, f"starting a container of {spec.image}") from error
            capped = CappedLog(log)
            end = bytearray()
            writer = threading.Thread(target=_write_log, args=(stream, capped, end), name="container-log", daemon=True)
            writer.start()
            exit_code, timed_out, cancelled = self._wait(container, spec, cancel)
            ended = _now()
        finally:
            if writer is not None:
                writer.join(LOG_DRAIN_SECONDS)
                _end_log(container, capped, writer, end)  # the end, where the error is, matters most
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
        return len(self._labelled(labels))

    def _labelled(self, labels: dict[str, str]) -> list[Any]:
        # sparse: the list as the engine gave it, without inspecting each container in turn (a container
        # removed between the list and its inspect, e.g. a step ending, failed the whole listing)
        try:
            return list(self._client.containers.list(all=True, sparse=True, filters=self._label_filter(labels)))
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
        leftovers = self._labelled(labels)
        for container in leftovers:
            self._remove(container)
        return len(leftovers)

    def _create(self, spec: ContainerSpec, deadline_epoch: float | None) -> Any:
        mounts = [
            docker.types.Mount(target=m.target, source=str(Path(m.host).resolve()), type="bind", read_only=m.read_only)
            for m in spec.mounts
        ]
        options = create_options(
            capabilities=spec.capabilities,
            read_only_root=spec.read_only_root,
            pids_limit=spec.pids_limit,
            deadline_epoch=deadline_epoch,
        )
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
                if deadline is not None and time.monotonic() >= deadline:
                    return status, True, False  # the engine's own deadline check stopped it
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
                f"(removed by someone else?): {RERUN}"
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
        # A connection cut mid-request (an OSError: requests' errors are) is the engine going away even
        # when it answers again by now: a restart can be that quick.
        if self._answers() and not isinstance(error, OSError):
            return EngineError(f"The Docker engine at {self._url} failed while {doing}: {_reason(error)}")
        return EngineError(
            f"The Docker engine at {self._url} went away (or restarted) while {doing} ({_reason(error)}). Start it again "
            "(scripts/dockerd.sh start) and continue with `dbstudio runs resume RUN`: completed checkpoints "
            "are kept and the interrupted subtask is rerun from the previous one."
        )


def _write_log(stream: Iterator[bytes], log: CappedLog, end: bytearray) -> None:
    """Appends the container's output to `log` chunk by chunk, flushed, so a viewer can tail it live
    (head and tail only past studio.untrusted.LOG_LIMIT); `end` keeps the last END_BYTES read. The log
    is closed by the caller, who may still end it with the engine's own tail."""
    try:
        for chunk in stream:
            log.write(chunk)
            end += chunk
            del end[:-END_BYTES]
    except (docker.errors.DockerException, OSError, ValueError):
        # The engine went away: the waiting side reports it; what arrived so far stays in the log.
        pass


def _end_log(container: Any, log: CappedLog, writer: threading.Thread, end: bytearray) -> None:
    """Close the log, ending it with the engine's last lines when the stream did not reach them: it is
    still going (more output than could be read in time), or the engine rotated its log file under
    the stream (confinement's max-size), which ends a following stream early, before the end."""
    if writer.is_alive():
        _fetch_tail(
            container, log, f"the container wrote more than could be read in {LOG_DRAIN_SECONDS:.0f} s after it ended"
        )
    elif log.total > ENGINE_LOG_ROTATES_AT:
        last = _engine_tail(container, ROTATION_CHECK_LINES)
        if last is not None and not bytes(end).endswith(last[-END_BYTES:]):
            _fetch_tail(container, log, "the engine rotated its log file while it was read, which ended the stream")
    log.close()


def _engine_tail(container: Any, lines: int) -> bytes | None:
    try:
        return bytes(container.logs(stdout=True, stderr=True, stream=False, tail=lines))
    except (docker.errors.DockerException, OSError):
        return None


def _fetch_tail(container: Any, log: CappedLog, why: str) -> None:
    """End the log with the container's last lines, asked of the engine directly."""
    tail = _engine_tail(container, TAIL_LINES)
    if tail is None:
        return
    log.replace_tail([tail], f"output cut here after {log.total:,} bytes: {why}; its last {TAIL_LINES:,} lines follow")
