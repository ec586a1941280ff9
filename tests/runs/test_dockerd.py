"""scripts/dockerd.sh on a private engine of its own (never the one the other tests use): start, reuse,
restart with images kept, stop; and a run whose engine goes away mid-subtask says to resume."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import docker
import pytest

from studio.runs.engine import ContainerSpec, EngineError
from tests.runs.conftest import TEST_IMAGE
from tests.runs.private_engine import dockerd, without_engine_paths


def test_start_reuses_a_running_engine_and_restart_keeps_its_images(private_engine):
    again = dockerd("start", env=private_engine.env)
    assert again.returncode == 0
    assert again.stdout.strip() == private_engine.url
    assert "already answers" in again.stderr
    assert dockerd("status", env=private_engine.env).stdout.startswith(f"running: {private_engine.url}")

    before_pid = private_engine.pid()
    image_before = private_engine.connect().image_id(TEST_IMAGE)
    restarted = dockerd("restart", env=private_engine.env)
    assert restarted.returncode == 0, restarted.stderr
    assert private_engine.pid() != before_pid
    assert not Path(f"/proc/{before_pid}").exists()

    engine = private_engine.connect()
    assert engine.image_id(TEST_IMAGE) == image_before
    log = private_engine.folder / "after-restart.log"
    result = engine.run(
        ContainerSpec(image=TEST_IMAGE, command=["echo", "alive"], workdir="/", timeout_s=60.0), log=log
    )
    assert (result.exit_code, log.read_text()) == (0, "alive\n")


def test_an_engine_stopped_mid_run_is_reported_with_how_to_resume(private_engine, tmp_path):
    engine = private_engine.connect()
    labels = {"org.dbstudio.test": uuid.uuid4().hex}
    spec = ContainerSpec(
        image=TEST_IMAGE,
        command=["sh", "-c", 'trap "exit 143" TERM; echo up; while :; do sleep 1; done'],
        workdir="/",
        timeout_s=120.0,
        labels=labels,
    )
    stopped: list[str] = []

    def stop_when_running() -> None:
        client = docker.DockerClient(base_url=private_engine.url)
        while not stopped:
            if client.containers.list(filters={"label": f"org.dbstudio.test={labels['org.dbstudio.test']}"}):
                stopped.append(dockerd("stop", env=private_engine.env).stderr)
            threading.Event().wait(0.1)

    stopper = threading.Thread(target=stop_when_running, daemon=True)
    stopper.start()
    try:
        with pytest.raises(EngineError) as gone:
            engine.run(spec, log=tmp_path / "S1.log")
    finally:
        stopper.join(120)
        restarted = dockerd("start", env=private_engine.env)
    assert "engine stopped" in stopped[0]
    message = str(gone.value)
    assert f"The Docker engine at {private_engine.url} went away" in message
    assert "scripts/dockerd.sh start" in message and "dbstudio runs resume RUN" in message
    assert restarted.returncode == 0, restarted.stderr
    # the leftover of the interrupted step, if the engine kept it, is cleared by label as a resumed run does
    private_engine.connect().kill_labelled(labels)
    assert (
        docker.DockerClient(base_url=private_engine.url).containers.list(
            all=True, filters={"label": f"org.dbstudio.test={labels['org.dbstudio.test']}"}
        )
        == []
    )


def test_stop_removes_the_engines_own_bridge_and_never_touches_docker0(private_engine):
    had_docker0 = Path("/sys/class/net/docker0").exists()
    assert Path(f"/sys/class/net/{private_engine.bridge}").exists()
    stopped = dockerd("stop", env=private_engine.env)
    assert stopped.returncode == 0, stopped.stderr
    try:
        assert not Path(f"/sys/class/net/{private_engine.bridge}").exists()
        assert Path("/sys/class/net/docker0").exists() == had_docker0
        status = dockerd("status", env=private_engine.env)
        assert status.returncode == 3 and status.stdout.startswith("stopped")
    finally:
        assert dockerd("start", env=private_engine.env).returncode == 0


def test_a_second_engine_may_not_delete_the_first_ones_bridge(tmp_path):
    if not Path("/sys/class/net/docker0").exists():
        pytest.fail("this machine's engine has no docker0 bridge; the check needs one (CI's engine makes it)")
    env = {
        **without_engine_paths(),
        "DBSTUDIO_DOCKERD_DIR": str(tmp_path / "e"),
        "DBSTUDIO_DOCKERD_ARGS": "--bridge=none",
    }
    refused = dockerd("start", env=env)
    assert refused.returncode == 1
    assert "--bridge=none makes dockerd delete docker0" in refused.stderr
    assert not (tmp_path / "e" / "dockerd.pid").exists()
