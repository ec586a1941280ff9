"""A real Docker engine and the local test image for the trial-run tests (never skipped: no engine is a failure).

`scripts/test.sh` (and so `.ci/run`) starts an engine when none answers and builds the image; these
fixtures do the same when the tests are run on their own.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from studio.runs.engine import DockerEngine, EngineError
from tests.runs.private_engine import TEST_IMAGE_SCRIPT, PrivateEngine, dockerd, private_engine_running

TEST_IMAGE = "dbstudio/test-busybox:1"


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
            pytest.fail(
                f"{missing}\nThe trial-run tests need a Docker engine and, not being root, cannot start "
                "one: start it (sudo scripts/dockerd.sh start) and export DOCKER_HOST, or run scripts/test.sh"
            )
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
    built = subprocess.run(
        ["bash", str(TEST_IMAGE_SCRIPT)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "DOCKER_HOST": docker_engine.url(), "DBSTUDIO_TEST_IMAGE": TEST_IMAGE},
    )
    if built.returncode != 0:
        pytest.fail(f"scripts/test-image.sh could not build {TEST_IMAGE}:\n{built.stderr}")
    assert docker_engine.image_id(TEST_IMAGE) == built.stdout.strip()
    return TEST_IMAGE


@pytest.fixture(scope="session")
def private_engine() -> Iterator[PrivateEngine]:
    """An engine of the tests' own, for the tests that stop or restart one (tests/runs/private_engine.py)."""
    if os.geteuid() != 0:
        pytest.fail(
            "a private engine is started with scripts/dockerd.sh, which needs root: run the tests as root (as CI does)"
        )
    try:
        with private_engine_running() as engine:
            yield engine
    except RuntimeError as failed:
        pytest.fail(str(failed))
