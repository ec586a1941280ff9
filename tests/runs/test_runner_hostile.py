"""Runs whose agent attacks the host through the workspace it controls, through real containers:
links planted where the next releases go, an endless log, a sparse file far over the limits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from studio.runs.errors import RunError
from studio.runs.record import RunSettings, RunStatus, SubtaskStatus, load_run
from studio.runs.runner import create_run, execute_run, store_of
from studio.untrusted import LOG_LIMIT
from tests.runs.harnesses import write_harness
from tests.runs.projects import SECRET_REFERENCE, three_subtask_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return three_subtask_project(tmp_path / "proj")


def test_links_the_agent_plants_where_releases_go_are_replaced_never_written_through(project, tmp_path, test_image):
    host_folder = tmp_path / "host-folder"
    host_folder.mkdir()
    (host_folder / "keep.txt").write_text("a host file\n")
    evaluator = project / "evaluator" / "reference-notes.md"
    runs = tmp_path / "runs"
    # The workspace is runs/<run>/workspace: four levels up from materials/ is tmp_path, where the project is.
    to_evaluator = "../../../../proj/evaluator/reference-notes.md"
    assert (runs / "r" / "workspace" / "materials" / to_evaluator).resolve() == evaluator.resolve()
    harness = write_harness(
        tmp_path / "agent.sh",
        listing=False,
        t02=f"ln -s {to_evaluator} materials/cover-template.md",  # T03's release would overwrite the reference
    )
    # After its T01 work the agent swaps materials/ for a link to a host folder (absolute, as the host sees it).
    text = harness.read_text().replace(
        'head -1 "$STUDIO_INSTRUCTION"',
        f'[ "$STUDIO_SUBTASK" = T01 ] && rm -rf materials && ln -s {host_folder} materials\n'
        'head -1 "$STUDIO_INSTRUCTION"',
    )
    harness.write_text(text)
    run_dir = create_run(project, f"script:{harness}", test_image, RunSettings(), runs)
    record = execute_run(run_dir)

    assert record.status == RunStatus.COMPLETED, record.message
    assert sorted(p.name for p in host_folder.iterdir()) == ["keep.txt"]  # nothing released into the host folder
    assert evaluator.read_text() == SECRET_REFERENCE  # the project's reference is untouched
    t01, t02, t03 = load_run(run_dir).subtasks
    assert t01.repairs == []
    assert t02.repairs == [f"materials in the workspace was a symbolic link to {host_folder}: replaced by a folder"]
    assert t03.repairs == [
        f"materials/cover-template.md in the workspace was a symbolic link to {to_evaluator}: "
        "replaced by the released file"
    ]
    store = store_of(run_dir)
    second = store.manifest(t02.checkpoint or "")
    assert (
        store.read_bytes(second, "materials/client-correction.md")
        == (project / "materials" / "client-correction.md").read_bytes()
    )
    assert second.entries["materials/M03.md"].kind == "file"  # the generated release went in the real folder too
    third = store.manifest(t03.checkpoint or "")
    assert (
        store.read_bytes(third, "materials/cover-template.md")
        == (project / "materials" / "cover-template.md").read_bytes()
    )
    assert b"Cover note" in store.read_bytes(third, "outputs/cover.md")


def test_a_huge_log_keeps_its_last_lines_where_the_error_is(project, tmp_path, test_image):
    harness = tmp_path / "noisy.py"
    harness.write_text(
        "#!/usr/bin/env python3\nimport sys\nsys.stdout.write('first line\\n')\n"
        "sys.stdout.write(('x' * 99 + '\\n') * 1_500_000)\n"  # 150 MB, more than can be read in time
        "sys.stdout.write('Traceback: THE ERROR IS HERE\\n')\nsys.exit(3)\n"
    )
    run_dir = create_run(project, f"script:{harness}", test_image, RunSettings(), tmp_path / "runs")
    with pytest.raises(RunError, match="exited with code 3 in T01: read its log"):
        execute_run(run_dir)
    log = (run_dir / "logs" / "T01.log").read_bytes()
    assert log.startswith(b"first line\n") and log.endswith(b"Traceback: THE ERROR IS HERE\n")
    assert len(log) <= LOG_LIMIT + 1000 and b"[dbstudio: " in log and b"cut here" in log


def test_a_sparse_file_over_the_limit_fails_the_subtask_before_the_store_grows(project, tmp_path, test_image):
    harness = write_harness(tmp_path / "agent.sh", listing=False)
    text = harness.read_text().replace(
        'head -1 "$STUDIO_INSTRUCTION"',
        "python3 -c \"open('outputs/huge.bin', 'wb').truncate(10 << 30)\"\nhead -1 \"$STUDIO_INSTRUCTION\"",
    )
    harness.write_text(text)
    run_dir = create_run(project, f"script:{harness}", test_image, RunSettings(), tmp_path / "runs")
    with pytest.raises(RunError) as stopped:
        execute_run(run_dir)
    record = load_run(run_dir)
    assert record.status == RunStatus.FAILED and record.subtasks[0].status == SubtaskStatus.FAILED
    assert record.subtasks[0].checkpoint is None
    assert (
        "outputs/huge.bin is 10,737,418,240 bytes (10.0 GiB), over the limit of 536,870,912 bytes (512.0 MiB) "
        "per file of the workspace (studio.untrusted.FILE_LIMIT)"
    ) in str(stopped.value)
    assert record.message == str(stopped.value) and "dbstudio runs resume" in record.message
    store_bytes = sum(os.lstat(p).st_blocks * 512 for p in (tmp_path / "runs" / "store").rglob("*"))
    assert store_bytes < 1 << 20
