"""DockerEngine on real containers of the local test image: output, limits, network, time limit, cancel, errors."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import docker
import pytest

from studio.runs.engine import ContainerSpec, DockerEngine, EngineError, ImageMissing, Mount
from studio.runs.errors import RunError


def _labels() -> dict[str, str]:
    return {"org.dbstudio.test": uuid.uuid4().hex}


def _spec(image: str, command: list[str], **overrides: Any) -> ContainerSpec:
    values: dict[str, Any] = {
        "image": image,
        "command": command,
        "workdir": "/",
        "labels": _labels(),
        "timeout_s": 120.0,
    }
    values.update(overrides)
    return ContainerSpec(**values)


_clients: dict[str, docker.DockerClient] = {}


def _client(engine: DockerEngine) -> docker.DockerClient:
    """One client of the engine for the tests' own looks at it (a client per look left a socket open
    each time), closed when the module's tests end."""
    url = engine.url()
    if url not in _clients:
        _clients[url] = docker.DockerClient(base_url=url)
    return _clients[url]


@pytest.fixture(scope="module", autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    for client in _clients.values():
        client.close()
    _clients.clear()


def _containers(engine: DockerEngine, labels: dict[str, str]) -> list[Any]:
    filters = {"label": [f"{k}={v}" for k, v in labels.items()]}
    return _client(engine).containers.list(all=True, filters=filters)


def _when_running(engine: DockerEngine, labels: dict[str, str], action: Callable[[Any], None]) -> threading.Thread:
    """Calls `action(container)` on a thread once the labelled container runs (the engine.run call blocks)."""
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.1):
            running = [c for c in _containers(engine, labels) if c.status == "running"]
            if running:
                action(running[0])
                return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_exit_code_and_both_output_streams_reach_the_log(docker_engine, test_image, tmp_path):
    log = tmp_path / "logs" / "S1.log"
    # the engine sends the two streams apart: a pause between them makes their order in the log certain
    script = "echo to-stdout; sleep 0.3; echo to-stderr >&2; exit 3"
    result = docker_engine.run(_spec(test_image, ["sh", "-c", script]), log=log)
    assert result.exit_code == 3
    assert not result.timed_out and not result.cancelled
    assert log.read_text() == "to-stdout\nto-stderr\n"
    assert result.image_id == docker_engine.image_id(test_image)
    assert result.started <= result.ended
    assert _containers(docker_engine, _spec(test_image, []).labels) == []


def test_output_is_in_the_log_while_the_container_still_runs(docker_engine, test_image, tmp_path):
    """The container waits for a file the test writes only after it read the first line in the log: without
    streaming the container would wait until its time limit."""
    gate = tmp_path / "gate"
    gate.mkdir()
    log = tmp_path / "S1.log"
    script = "echo first; while [ ! -f /gate/go ]; do sleep 0.1; done; echo second"
    spec = _spec(test_image, ["sh", "-c", script], mounts=[Mount(gate, "/gate", read_only=True)], timeout_s=60.0)

    def release_when_first_line_is_logged() -> None:
        while not (log.is_file() and log.read_text().startswith("first\n")):
            threading.Event().wait(0.05)
        (gate / "go").write_text("")

    opener = threading.Thread(target=release_when_first_line_is_logged, daemon=True)
    opener.start()
    result = docker_engine.run(spec, log=log)
    opener.join(5)
    assert not result.timed_out
    assert result.exit_code == 0
    assert log.read_text() == "first\nsecond\n"


def test_python3_and_the_busybox_tools_work_in_the_test_image(docker_engine, test_image, tmp_path):
    log = tmp_path / "tools.log"
    script = (
        "python3 -c 'import re, json, pathlib, hashlib; print(1)' && echo abc > /tmp/f "
        "&& sha256sum /tmp/f && find /tmp -name f && sleep 0.1"
    )
    result = docker_engine.run(_spec(test_image, ["sh", "-c", script]), log=log)
    assert result.exit_code == 0, log.read_text()
    assert log.read_text().split() == [
        "1",
        "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb",
        "/tmp/f",
        "/tmp/f",
    ]


def test_network_is_off_unless_the_spec_allows_it(docker_engine, test_image, tmp_path):
    log = tmp_path / "net.log"
    off = docker_engine.run(_spec(test_image, ["ls", "/sys/class/net"]), log=log)
    assert off.exit_code == 0
    assert log.read_text().split() == ["lo"]
    on = docker_engine.run(_spec(test_image, ["ls", "/sys/class/net"], network=True), log=log)
    assert on.exit_code == 0
    assert "lo" in log.read_text().split() and len(log.read_text().split()) >= 2


def test_limits_labels_user_and_mounts_are_those_of_the_spec_and_cancel_kills(docker_engine, test_image, tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    workspace.chmod(0o777)  # writable by the container's user 1234
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "note.txt").write_text("read me\n")
    labels = _labels()
    spec = _spec(
        test_image,
        ["sh", "-c", "id -u; cat /tools/note.txt; echo made > out.txt; echo ready; sleep 60"],
        workdir="/workspace",
        cpus=1.5,
        memory="300m",
        labels=labels,
        user="1234:2345",
        env={"STUDIO_SUBTASK": "S1"},
        mounts=[Mount(workspace, "/workspace", read_only=False), Mount(tools, "/tools", read_only=True)],
    )
    seen: dict[str, Any] = {}
    cancel_now = threading.Event()

    log = tmp_path / "S1.log"

    def inspect(container: Any) -> None:
        seen.update(container.attrs)
        for _ in range(600):
            if log.is_file() and "ready" in log.read_text():
                break
            threading.Event().wait(0.05)
        cancel_now.set()

    watcher = _when_running(docker_engine, labels, inspect)
    result = docker_engine.run(spec, log=log, cancel=cancel_now.is_set)
    watcher.join(5)
    assert result.cancelled and not result.timed_out
    host = seen["HostConfig"]
    assert host["NanoCpus"] == 1_500_000_000
    assert host["Memory"] == 300 * 1024 * 1024
    assert host["NetworkMode"] == "none"
    assert labels.items() <= seen["Config"]["Labels"].items()
    assert seen["Config"]["User"] == "1234:2345"
    assert seen["Config"]["WorkingDir"] == "/workspace"
    assert "STUDIO_SUBTASK=S1" in seen["Config"]["Env"]
    assert {(m["Destination"], m["RW"]) for m in seen["Mounts"]} == {("/workspace", True), ("/tools", False)}
    assert (workspace / "out.txt").read_text() == "made\n"
    assert (workspace / "out.txt").stat().st_uid == 1234
    assert log.read_text() == "1234\nread me\nready\n"
    assert _containers(docker_engine, labels) == []


def test_a_read_only_mount_cannot_be_written(docker_engine, test_image, tmp_path):
    harness = tmp_path / "harness"
    harness.mkdir()
    log = tmp_path / "ro.log"
    spec = _spec(
        test_image,
        ["sh", "-c", "echo x > /studio/harness/new"],
        mounts=[Mount(harness, "/studio/harness", read_only=True)],
    )
    result = docker_engine.run(spec, log=log)
    assert result.exit_code != 0
    assert "Read-only file system" in log.read_text()
    assert not (harness / "new").exists()


def test_the_time_limit_kills_the_container_and_says_so(docker_engine, test_image, tmp_path):
    labels = _labels()
    result = docker_engine.run(
        _spec(test_image, ["sh", "-c", "echo started; sleep 60"], timeout_s=2.0, labels=labels),
        log=tmp_path / "slow.log",
    )
    assert result.timed_out and not result.cancelled
    assert result.exit_code == 137
    assert (tmp_path / "slow.log").read_text() == "started\n"
    assert _containers(docker_engine, labels) == []


def test_a_missing_image_says_to_build_it_locally(docker_engine, tmp_path):
    with pytest.raises(ImageMissing) as missing:
        docker_engine.run(_spec("dbstudio/no-such-image:0", ["true"]), log=tmp_path / "x.log")
    message = str(missing.value)
    assert "image dbstudio/no-such-image:0 is not on this engine" in message
    assert "docs/runs.md" in message and "No registry is used" in message
    assert isinstance(missing.value, RunError)
    assert not (tmp_path / "x.log").exists()


def test_no_engine_at_docker_host_says_how_to_start_one(monkeypatch, tmp_path):
    url = f"unix://{tmp_path}/no-engine.sock"
    monkeypatch.setenv("DOCKER_HOST", url)
    with pytest.raises(EngineError) as missing:
        DockerEngine.connect()
    message = str(missing.value)
    assert message.startswith(f"No Docker engine at {url}: start it")
    assert "scripts/dockerd.sh start" in message and "set DOCKER_HOST" in message


def test_leftover_containers_of_a_run_are_killed_by_label(docker_engine, test_image):
    labels = _labels()
    client = _client(docker_engine)
    for _ in range(2):
        client.containers.run(test_image, ["sleep", "60"], detach=True, labels=labels, network_mode="none")
    other = client.containers.run(test_image, ["sleep", "60"], detach=True, labels=_labels(), network_mode="none")
    try:
        assert docker_engine.kill_labelled(labels) == 2
        assert _containers(docker_engine, labels) == []
        other.reload()
        assert other.status == "running"
    finally:
        other.remove(force=True)


def test_an_empty_label_set_never_kills_every_container(docker_engine, test_image):
    client = _client(docker_engine)
    bystander = client.containers.run(test_image, ["sleep", "60"], detach=True, labels=_labels(), network_mode="none")
    try:
        with pytest.raises(ValueError, match="at least one label"):
            docker_engine.kill_labelled({})
        with pytest.raises(ValueError, match="at least one label"):
            docker_engine.count_labelled({})
        bystander.reload()
        assert bystander.status == "running"
    finally:
        bystander.remove(force=True)


def test_invalid_settings_give_a_clear_error(docker_engine, test_image, tmp_path):
    with pytest.raises(EngineError, match=r"settings of the container .* are invalid: .*memory \(lots\)"):
        docker_engine.run(_spec(test_image, ["true"], memory="lots"), log=tmp_path / "x.log")
    with pytest.raises(EngineError, match="The Docker engine refused the container"):
        docker_engine.run(
            _spec(test_image, ["true"], mounts=[Mount(tmp_path / "absent", "/x", read_only=True)]),
            log=tmp_path / "x.log",
        )


def test_the_user_of_the_spec_defaults_to_the_image_user(docker_engine, test_image, tmp_path):
    log = tmp_path / "id.log"
    result = docker_engine.run(_spec(test_image, ["id", "-u"]), log=log)
    assert result.exit_code == 0
    assert log.read_text().strip() == "0"


def test_a_container_removed_between_the_list_and_the_next_call_does_not_fail_the_listing(
    docker_engine, test_image, monkeypatch
):
    labels = _labels()
    client = _client(docker_engine)
    for _ in range(3):
        client.containers.run(test_image, ["sleep", "60"], detach=True, labels=labels, network_mode="none")
    # every client's list call, the engine's own included (the SDK's APIClient mixes it in from here)
    list_containers = docker.api.container.ContainerApiMixin.containers
    vanished: list[str] = []

    def list_then_remove_one(api: Any, *args: Any, **kwargs: Any) -> Any:
        # the engine answers the list, then (a step ending, a cancel) one of them is removed at once
        listed = list_containers(api, *args, **kwargs)
        if listed and not vanished:
            vanished.append(listed[0]["Id"])
            api.remove_container(listed[0]["Id"], force=True)
        return listed

    monkeypatch.setattr(docker.api.container.ContainerApiMixin, "containers", list_then_remove_one)
    try:
        assert docker_engine.count_labelled(labels) == 3  # as listed; one is gone since
        vanished.clear()
        assert docker_engine.kill_labelled(labels) == 2  # as listed; one is removed under it
        assert len(vanished) == 1
    finally:
        monkeypatch.undo()
        left = _containers(docker_engine, labels)
        for container in left:
            container.remove(force=True)
    assert left == []
