"""A real Docker engine and the local test image for the trial-run tests (never skipped: no engine is a failure).

`scripts/test.sh` (and so `.ci/run`) starts an engine when none answers and builds the image; these
fixtures do the same when the tests are run on their own.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from studio.runs.engine import DockerEngine, EngineError

ROOT = Path(__file__).resolve().parents[2]
DOCKERD_SCRIPT = ROOT / "scripts" / "dockerd.sh"
TEST_IMAGE_SCRIPT = ROOT / "scripts" / "test-image.sh"
TEST_IMAGE = "dbstudio/test-busybox:1"


def dockerd(*args: str, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(DOCKERD_SCRIPT), *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


@pytest.fixture(scope="session")
def docker_engine() -> Iterator[DockerEngine]:
    engine = _connect_or_start()
    yield engine
    engine.close()


def _connect_or_start() -> DockerEngine:
    try:
        return DockerEngine.connect()
    except EngineError as missing:
        if os.geteuid() != 0:
            pytest.fail(f"{missing}\nThe trial-run tests need a Docker engine and, not being root, cannot start "
                        "one: start it (sudo scripts/dockerd.sh start) and export DOCKER_HOST, or run scripts/test.sh")
        started = dockerd("start")
        if started.returncode != 0:
            pytest.fail(f"{missing}\nscripts/dockerd.sh start failed:\n{started.stderr}")
        os.environ["DOCKER_HOST"] = started.stdout.strip()
        try:
            return DockerEngine.connect()
        except EngineError as still_missing:
            pytest.fail(f"scripts/dockerd.sh started an engine but it does not answer: {still_missing}")


@pytest.fixture(scope="session")
def test_image(docker_engine: DockerEngine) -> str:
    """The tag of the local test image (busybox + python3), built by scripts/test-image.sh when missing."""
    built = subprocess.run(["bash", str(TEST_IMAGE_SCRIPT)], capture_output=True, text=True, timeout=600,
                           env={**os.environ, "DOCKER_HOST": docker_engine.url(), "DBSTUDIO_TEST_IMAGE": TEST_IMAGE})
    if built.returncode != 0:
        pytest.fail(f"scripts/test-image.sh could not build {TEST_IMAGE}:\n{built.stderr}")
    assert docker_engine.image_id(TEST_IMAGE) == built.stdout.strip()
    return TEST_IMAGE


@pytest.fixture(scope="session")
def restart_dockerd(docker_engine: DockerEngine) -> Callable[[], None]:
    """Restarts the engine the tests use with `scripts/dockerd.sh restart` (SIGTERM, then start on the same
    folders). Refuses, as a test failure, an engine that scripts/dockerd.sh does not manage: point
    DBSTUDIO_DOCKERD_DIR (or its dockerd.env, or DBSTUDIO_DOCKERD_SOCKET/_PIDFILE/_DATA_ROOT/_EXEC_ROOT) at it."""

    def restart() -> None:
        managed = dockerd("socket").stdout.strip()
        if managed != docker_engine.url():
            pytest.fail(f"the tests' engine {docker_engine.url()} is not the one scripts/dockerd.sh manages "
                        f"({managed}): set DBSTUDIO_DOCKERD_DIR, or DBSTUDIO_DOCKERD_SOCKET, _PIDFILE, _DATA_ROOT "
                        "and _EXEC_ROOT, to that engine's paths (docs/runs.md, \"Docker engine\")")
        restarted = dockerd("restart")
        if restarted.returncode != 0:
            pytest.fail(f"scripts/dockerd.sh restart failed:\n{restarted.stderr}")

    return restart
