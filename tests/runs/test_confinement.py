"""What an untrusted agent can do in its container, on real Docker: not root, no capability, no
device node, no setuid-root file left on the host, no fork past the pids limit, a capped log, a
read-only root; and the created container's settings as the engine reports them."""

from __future__ import annotations

import os
import stat
import threading
import uuid
from pathlib import Path

import docker
import pytest

from studio.runs.confinement import ENGINE_LOG_MAX_FILES, ENGINE_LOG_MAX_SIZE
from studio.runs.engine import ContainerSpec, Mount
from studio.runs.errors import RunError
from studio.runs.ownership import TRIAL_GID, TRIAL_UID, ContainerUser, hand_over
from studio.runs.record import RunSettings, RunStatus, load_run
from studio.runs.runner import create_run, execute_run, store_of
from tests.runs.projects import three_subtask_project

ESCAPE_ATTEMPTS = """\
#!/bin/sh
mkdir -p outputs
id -u > outputs/uid.txt
if mknod outputs/disk b 8 0 2>/dev/null; then echo made; else echo refused; fi > outputs/mknod.txt
cp /bin/busybox outputs/rootshell
chown 0:0 outputs/rootshell 2>/dev/null && echo chowned > outputs/chown.txt
chmod 6755 outputs/rootshell
mkdir -p outputs/shared && chmod 3777 outputs/shared
ls -ln outputs/rootshell > outputs/inside.txt
grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status > outputs/status.txt
if touch /etc/written 2>/dev/null; then echo writable; else echo read-only; fi > outputs/root.txt
touch /tmp/scratch && echo yes > outputs/tmp.txt
"""


def _spec(image: str, command: list[str], **extra: object) -> ContainerSpec:
    settings: dict[str, object] = {
        "workdir": "/",
        "timeout_s": 120.0,
        "cpus": 1.0,
        "memory": "256m",
        "user": f"{TRIAL_UID}:{TRIAL_UID}",
        "labels": {"org.dbstudio.test": uuid.uuid4().hex},
    }
    settings.update(extra)
    return ContainerSpec(image=image, command=command, **settings)  # type: ignore[arg-type]


def test_an_agent_runs_as_non_root_and_leaves_no_device_or_setuid_file_on_the_host(tmp_path, test_image):
    project = three_subtask_project(tmp_path / "proj")
    harness = tmp_path / "escape.sh"
    harness.write_text(ESCAPE_ATTEMPTS, encoding="utf-8")
    run_dir = create_run(project, f"script:{harness}", test_image, RunSettings(), tmp_path / "runs")
    assert execute_run(run_dir).status == RunStatus.COMPLETED
    outputs = run_dir / "workspace" / "outputs"
    read = {
        name: (outputs / f"{name}.txt").read_text(encoding="utf-8").strip()
        for name in ("uid", "mknod", "inside", "status", "root", "tmp")
    }
    assert read["uid"] == str(TRIAL_UID)  # the CLI runs as root here: the agent does not
    assert read["mknod"] == "refused"
    assert not (outputs / "chown.txt").exists()
    assert read["inside"].startswith("-rwsr-sr-x")  # it did set the bits inside ...
    assert read["inside"].split()[2:4] == [str(TRIAL_UID), str(TRIAL_UID)]
    assert "CapEff:\t0000000000000000" in read["status"] and "CapPrm:\t0000000000000000" in read["status"]
    assert "NoNewPrivs:\t1" in read["status"]
    assert (read["root"], read["tmp"]) == ("read-only", "yes")
    # ... and none survives on the host; no device node either, anywhere in the run
    for path in run_dir.rglob("*"):
        info = path.lstat()
        assert not stat.S_ISBLK(info.st_mode) and not stat.S_ISCHR(info.st_mode), path
        assert not info.st_mode & (stat.S_ISUID | stat.S_ISGID), path
    shell = (outputs / "rootshell").lstat()
    assert shell.st_uid == TRIAL_UID and stat.S_IMODE(shell.st_mode) == 0o755
    assert stat.S_IMODE((outputs / "shared").lstat().st_mode) == 0o777
    # the run's folder is its owner's only, and the checkpoint reads back what the agent wrote
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o700
    store = store_of(run_dir)
    manifest = store.manifest(load_run(run_dir).subtask("T03").checkpoint or "")
    assert store.read_bytes(manifest, "outputs/uid.txt") == f"{TRIAL_UID}\n".encode()


def test_a_setuid_file_made_in_the_container_is_never_root_owned_on_the_host(docker_engine, test_image, tmp_path):
    # The engine alone (no take-back after it): the bit stays, but the owner is the container's user.
    workspace = tmp_path / "w"
    workspace.mkdir()
    hand_over(workspace, ContainerUser(TRIAL_UID, TRIAL_UID))
    script = "cp /bin/busybox su && chmod 4755 su; chown 0:0 su 2>/dev/null; echo chown $?; chmod 4755 su"
    log = tmp_path / "log"
    result = docker_engine.run(
        _spec(test_image, ["sh", "-c", script], workdir="/workspace", mounts=[Mount(workspace, "/workspace", False)]),
        log=log,
    )
    assert result.exit_code == 0 and log.read_text(encoding="utf-8") == "chown 1\n"  # refused
    info = (workspace / "su").lstat()
    assert info.st_mode & stat.S_ISUID and info.st_uid == TRIAL_UID


def test_the_created_container_drops_capabilities_and_caps_pids_and_log(docker_engine, test_image, tmp_path):
    spec = _spec(test_image, ["sleep", "30"], pids_limit=77, capabilities=("NET_BIND_SERVICE",), timeout_s=60.0)
    seen: dict[str, object] = {}
    client = docker.from_env()

    def inspect_when_created() -> None:
        while not seen:
            found = client.containers.list(
                all=True, filters={"label": f"org.dbstudio.test={spec.labels['org.dbstudio.test']}"}
            )
            if found:
                seen.update(client.api.inspect_container(found[0].id))
                client.api.kill(found[0].id)
            threading.Event().wait(0.1)

    watcher = threading.Thread(target=inspect_when_created, daemon=True)
    watcher.start()
    try:
        docker_engine.run(spec, log=tmp_path / "log")
        watcher.join(30)
    finally:
        client.close()
    host = seen["HostConfig"]
    assert isinstance(host, dict)
    assert host["CapDrop"] == ["ALL"] and host["CapAdd"] == ["NET_BIND_SERVICE"]
    assert host["SecurityOpt"] == ["no-new-privileges"]
    assert host["PidsLimit"] == 77
    assert host["LogConfig"] == {"Type": "json-file", "Config": {"max-file": "3", "max-size": "10m"}}
    assert host["ReadonlyRootfs"] is True and "/tmp" in host["Tmpfs"]
    assert host["Init"] is True and host["NetworkMode"] == "none"
    config = seen["Config"]
    assert isinstance(config, dict)
    assert config["User"] == f"{TRIAL_UID}:{TRIAL_UID}"
    assert "kill -KILL -1" in config["Healthcheck"]["Test"][1]


FORK_BOMB = """\
import os, time
forked = 0
try:
    while forked < 300:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        forked += 1
except OSError as refused:
    print("refused", refused.errno)
print("forked", forked)
"""


def test_a_fork_bomb_stops_at_the_pids_limit(docker_engine, test_image, tmp_path):
    log = tmp_path / "log"
    result = docker_engine.run(_spec(test_image, ["python3", "-c", FORK_BOMB], pids_limit=40), log=log)
    assert result.exit_code == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "refused 11"  # EAGAIN: the engine's limit, not the loop's end
    forked = int(lines[1].split()[1])
    assert 30 <= forked < 40  # 40 with docker-init and the bomb itself


def test_the_engine_keeps_no_more_of_the_output_than_its_log_cap(docker_engine, test_image, tmp_path):
    # 12 MB of short lines is about 60 MB in the engine's json-file log (a JSON object per line) without
    # a cap; with it, the log and its rotated files hold at most max-file x max-size.
    script = "yes 0123456789abcdef | head -c 12000000; echo written; sleep 60"
    spec = _spec(test_image, ["sh", "-c", script])
    log = tmp_path / "log"
    sizes: list[int] = []
    client = docker.from_env()

    def measure_when_written() -> None:
        while not sizes:
            if log.exists() and log.read_bytes().endswith(b"written\n"):
                [found] = client.containers.list(
                    filters={"label": f"org.dbstudio.test={spec.labels['org.dbstudio.test']}"}
                )
                path = Path(client.api.inspect_container(found.id)["LogPath"])
                sizes.extend(kept.stat().st_size for kept in path.parent.glob(path.name + "*"))
                client.api.kill(found.id)
            threading.Event().wait(0.2)

    watcher = threading.Thread(target=measure_when_written, daemon=True)
    watcher.start()
    try:
        docker_engine.run(spec, log=log)
        watcher.join(30)
    finally:
        client.close()
    assert ENGINE_LOG_MAX_SIZE == "10m"
    assert 2 <= len(sizes) <= ENGINE_LOG_MAX_FILES  # it did rotate
    assert sum(sizes) <= ENGINE_LOG_MAX_FILES * 10 * 1024 * 1024 + 64 * 1024


def test_a_non_root_cli_runs_its_containers_as_itself(monkeypatch: pytest.MonkeyPatch):
    from studio.runs.ownership import container_user

    monkeypatch.setattr(os, "geteuid", lambda: 1234)
    monkeypatch.setattr(os, "getegid", lambda: 99)
    assert container_user() == ContainerUser(1234, 99)
    assert container_user("1234:99") == ContainerUser(1234, 99)
    with pytest.raises(RunError, match="--user 2000:2000 needs dbstudio to run as root"):
        container_user("2000:2000")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert container_user() == ContainerUser(TRIAL_UID, TRIAL_GID)
    assert container_user("2000:2000") == ContainerUser(2000, 2000)
    for refused in ("0:0", "root", "1000"):
        with pytest.raises(RunError):
            container_user(refused)
