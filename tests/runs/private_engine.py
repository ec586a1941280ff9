"""A Docker engine of the tests' own, started with scripts/dockerd.sh under a temporary folder (its
own data-root, exec-root, pidfile, socket and bridge), for the tests that stop or restart an engine:
they pass whether or not another engine runs on the machine, and never touch it."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from studio.runs.engine import DockerEngine

ROOT = Path(__file__).resolve().parents[2]
DOCKERD_SCRIPT = ROOT / "scripts" / "dockerd.sh"
TEST_IMAGE_SCRIPT = ROOT / "scripts" / "test-image.sh"


def dockerd(*args: str, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(DOCKERD_SCRIPT), *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def without_engine_paths() -> dict[str, str]:
    """The environment minus paths that point dockerd.sh at another engine (set on a machine whose
    engine was started by hand), so an engine of a test's own folder is really its own."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("DBSTUDIO_DOCKERD_") or key == "DBSTUDIO_DOCKERD_ARGS"
    }


class PrivateEngine:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.bridge = "dbsd" + uuid.uuid4().hex[:6]
        # its own bridge and no firewall rules: the machine's other engine keeps docker0 and iptables
        self.env = {
            **without_engine_paths(),
            "DBSTUDIO_DOCKERD_DIR": str(folder),
            "DBSTUDIO_DOCKERD_BRIDGE": f"{self.bridge} 10.213.{random.randint(1, 250)}.1/24",
        }
        self.env.pop("DBSTUDIO_DOCKERD_ARGS", None)
        self.url = f"unix://{folder}/docker.sock"
        self.env["DOCKER_HOST"] = self.url

    def pid(self) -> int:
        return int((self.folder / "dockerd.pid").read_text().strip())

    def connect(self) -> DockerEngine:
        previous = os.environ.get("DOCKER_HOST")
        os.environ["DOCKER_HOST"] = self.url
        try:
            return DockerEngine.connect()
        finally:
            if previous is None:
                del os.environ["DOCKER_HOST"]
            else:
                os.environ["DOCKER_HOST"] = previous

    def build_test_image(self) -> str:
        built = subprocess.run(
            ["bash", str(TEST_IMAGE_SCRIPT)], capture_output=True, text=True, timeout=600, env=self.env
        )
        if built.returncode != 0:
            raise RuntimeError(f"scripts/test-image.sh on the private engine failed:\n{built.stderr}")
        return built.stdout.strip()


@contextmanager
def private_engine_running() -> Iterator[PrivateEngine]:
    """Start an engine under a new folder in /tmp (short: the socket's path has a length limit), with the
    test image built on it; stop it and delete the folder afterwards."""
    engine = PrivateEngine(Path(tempfile.mkdtemp(prefix="dbsd-", dir="/tmp")))
    try:
        started = dockerd("start", env=engine.env)
        if started.returncode != 0 or started.stdout.strip() != engine.url:
            raise RuntimeError(f"scripts/dockerd.sh could not start a private engine:\n{started.stderr}")
        engine.build_test_image()
        yield engine
    finally:
        dockerd("stop", env=engine.env)
        shutil.rmtree(engine.folder, ignore_errors=True)
