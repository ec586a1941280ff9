"""A run whose disk fills up, on a real small file system (a tmpfs with a size, mounted as the runs
folder): a clear message naming the folder and the space left, exit 2, and a record that says so."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.runs.record import RunStatus, list_runs
from tests.runs.projects import three_subtask_project

REPO = Path(__file__).resolve().parents[2]
# The agent writes 3 MB into a workspace on a 4 MB disk; storing its checkpoint needs 3 MB more.
FILL = "#!/bin/sh\nmkdir -p outputs\nhead -c 3000000 /dev/zero > outputs/big.bin\n"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "runs"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def test_a_full_disk_says_where_and_how_much_is_free(tmp_path, small_disk, test_image):
    project = three_subtask_project(tmp_path / "proj")
    harness = tmp_path / "fill.sh"
    harness.write_text(FILL, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "studio.cli.main",
            "run",
            str(project),
            "--harness",
            f"script:{harness}",
            "--image",
            test_image,
            "--runs-dir",
            str(small_disk),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert f"No space left on the disk of {small_disk} while storing the checkpoint of T01" in done.stderr
    assert " MB free there" in done.stderr and "--runs-dir DIR" in done.stderr
    assert "dbstudio runs resume" in done.stderr
    [(_, record)] = list_runs(small_disk)
    assert record.status == RunStatus.FAILED
    assert record.message is not None and record.message.startswith(f"No space left on the disk of {small_disk}")
    assert "stopped by the user" not in record.message
    assert not record.subtask("T01").done
