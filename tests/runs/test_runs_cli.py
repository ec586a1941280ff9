"""`dbstudio run` and `dbstudio runs ...` end to end on real containers."""

from __future__ import annotations

import tarfile

import pytest

from studio.runs.record import load_run
from tests.helpers import run_cli
from tests.runs.harnesses import write_harness
from tests.runs.projects import three_subtask_project


@pytest.fixture(scope="module")
def cli_project(tmp_path_factory):
    """A 3-subtask project, its script harness and a runs folder, shared by the tests below."""
    base = tmp_path_factory.mktemp("cli-run")
    project = three_subtask_project(base / "proj")
    harness = write_harness(base / "agent.sh", listing=False)
    return project, harness, base / "runs"


def test_run_prints_progress_and_the_runs_commands_read_it(cli_project, capsys, tmp_path, test_image):
    project, harness, runs = cli_project
    code, out, err = run_cli(
        capsys,
        "run",
        str(project),
        "--harness",
        f"script:{harness}",
        "--image",
        test_image,
        "--runs-dir",
        str(runs),
        "--cpus",
        "1",
        "--memory",
        "512m",
        "--system",
        "scripted",
        "--model",
        "none-1",
        "--harness-version",
        "0.9",
    )
    assert code == 0, err
    run_id = out.splitlines()[0].split()[1]
    for line in (
        "[0/3] T01 started",
        "[1/3] T01 checkpoint",
        "[1/3] T02 generated release written: M03",
        "[3/3] T03 checkpoint",
        f"run {run_id}: completed",
    ):
        assert line in out, line
    record = load_run(runs / run_id)
    assert record.settings.cpus == 1 and record.settings.memory == "512m"
    assert (record.system.id, record.system.model, record.system.harness_version) == ("scripted", "none-1", "0.9")

    code, out, _ = run_cli(capsys, "runs", "list", str(project), "--runs-dir", str(runs))
    assert code == 0 and run_id in out and "completed" in out and " 3/3" in out

    code, out, _ = run_cli(capsys, "runs", "show", run_id[:15], "--runs-dir", str(runs))
    assert code == 0
    assert f"run {run_id}: completed, 3/3 subtasks" in out
    assert "1 CPUs, 512m memory, network off, 1024 pids, root file system read-only" in out
    assert "system scripted; model none-1; harness version 0.9" in out
    assert "final package" in out and "missing" not in out

    folder = tmp_path / "t02"
    code, out, _ = run_cli(capsys, "runs", "export", run_id, "T02", str(folder), "--runs-dir", str(runs))
    assert code == 0
    assert (folder / "outputs/report.md").read_text(encoding="utf-8").startswith("# Draft report")
    archive = tmp_path / "final.tar.gz"
    code, _, _ = run_cli(capsys, "runs", "export", str(runs / run_id), "final", str(archive))
    assert code == 0
    with tarfile.open(archive) as tar:
        names = [m.name.removeprefix("./") for m in tar.getmembers() if m.isfile()]
        report = tar.extractfile([m for m in tar.getmembers() if m.name.endswith("final/report.md")][0])
        assert report is not None and report.read() == (folder / "outputs/report.md").read_bytes()
    assert names == ["final/report.md"]
    # an existing archive is replaced only when asked
    archive.write_bytes(b"mine")
    code, _, err = run_cli(capsys, "runs", "export", str(runs / run_id), "final", str(archive))
    assert code == 2 and f"{archive} already exists: give --force to replace it" in err
    assert archive.read_bytes() == b"mine"
    code, _, _ = run_cli(capsys, "runs", "export", str(runs / run_id), "final", str(archive), "--force")
    assert code == 0 and tarfile.is_tarfile(archive)

    code, out, _ = run_cli(capsys, "runs", "resume", run_id, "--runs-dir", str(runs))
    assert code == 0
    assert f"run {run_id} is complete (3/3 subtasks, final package {record.final[:12]})" in out
    assert "nothing to resume" in out and f"dbstudio runs show {run_id}" in out and "dbstudio run " in out

    code, out, _ = run_cli(capsys, "runs", "diff", run_id, "T01", "T02", "--runs-dir", str(runs))
    assert code == 0
    assert "A materials/M03.md" in out and "D outputs/notes.txt" in out and "M outputs/report.md" in out
    assert "+## Revision" in out


def test_runs_commands_name_what_is_wrong(cli_project, capsys, tmp_path, test_image, monkeypatch):
    project, harness, runs = cli_project
    for extra, message in ((["--system", "no such/id"], "--system 'no such/id': not a system id"),
                           (["--model", "m"], "--model and --harness-version describe a --system")):
        code, _, err = run_cli(capsys, "run", str(project), "--harness", f"script:{harness}", "--image", test_image,
                               "--runs-dir", str(tmp_path / "no-runs"), *extra)
        assert code == 2 and message in err, err
        assert not (tmp_path / "no-runs").exists()
    code, _, err = run_cli(capsys, "runs", "show", "20990101", "--runs-dir", str(runs))
    assert code == 2 and "no run 20990101" in err and "runs list" in err
    code, _, err = run_cli(capsys, "runs", "export", "x", "T01", "--runs-dir", str(runs))
    assert code == 2 and "give RUN SUBTASK|final OUT" in err
    code, _, err = run_cli(
        capsys,
        "run",
        str(project),
        "--harness",
        f"script:{harness}",
        "--image",
        "dbstudio/no-such-image:1",
        "--runs-dir",
        str(tmp_path / "r"),
    )
    assert code == 2 and "dbstudio/no-such-image:1" in err and "docs/runs.md" in err
    code, _, err = run_cli(
        capsys,
        "run",
        str(project),
        "--harness",
        f"script:{tmp_path}/missing.sh",
        "--image",
        test_image,
        "--runs-dir",
        str(tmp_path / "r"),
    )
    assert code == 2 and "missing.sh" in err
    code, _, err = run_cli(
        capsys,
        "run",
        str(project),
        "--harness",
        f"script:{harness}",
        "--image",
        test_image,
        "--runs-dir",
        str(tmp_path / "r"),
        "--user",
        "0:0",
    )
    assert code == 2 and "would run the untrusted agent as root" in err
    code, _, err = run_cli(
        capsys,
        "run",
        str(project),
        "--harness",
        f"script:{harness}",
        "--image",
        test_image,
        "--runs-dir",
        str(tmp_path / "r"),
        "--pids-limit",
        "3",
    )
    assert code == 2 and "--pids-limit: Input should be greater than or equal to 16" in err
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    code, _, err = run_cli(
        capsys,
        "run",
        str(project),
        "--harness",
        f"script:{harness}",
        "--image",
        test_image,
        "--runs-dir",
        str(tmp_path / "r"),
    )
    assert code == 2 and "No Docker engine" in err and "DOCKER_HOST" in err
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())
