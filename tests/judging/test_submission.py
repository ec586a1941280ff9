"""Submissions: a run's checkpoint or final package exported once from the checkpoint store into a cache
folder under the run folder; any folder under its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.judging.errors import JudgingError
from studio.judging.submission import submission_of_folder, submission_of_run
from tests.judging.projects import RUN_ID, make_run


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_a_checkpoint_is_exported_once_into_the_run_folder(project: Path, tmp_path: Path) -> None:
    run_dir = make_run(project, tmp_path)
    first = submission_of_run(run_dir, "T02")
    assert (first.id, first.scope) == (RUN_ID, "T02")
    assert first.folder.parent == run_dir / "submissions"
    assert (first.folder / "outputs/report.md").read_text() == "# Report after T02\n\nThe client's objective is a " \
        "refinancing.\n"
    marker = first.folder / "outputs" / "report.md"
    stamp = marker.stat().st_mtime_ns
    again = submission_of_run(run_dir, "T02")
    assert again == first and marker.stat().st_mtime_ns == stamp  # read from the cache, not exported again
    final = submission_of_run(run_dir, "final")
    assert sorted(p.relative_to(final.folder).as_posix() for p in final.folder.rglob("*") if p.is_file()) == [
        "final/report.md"]


def test_a_scope_the_run_has_not_reached_says_what_to_do(project: Path, tmp_path: Path) -> None:
    run_dir = make_run(project, tmp_path, done=("T01",), final=False)
    with pytest.raises(JudgingError, match="no final package yet .*resume it"):
        submission_of_run(run_dir, "final")
    with pytest.raises(JudgingError, match="no checkpoint of T02 .*pending"):
        submission_of_run(run_dir, "T02")
    with pytest.raises(JudgingError, match="has no subtask T07"):
        submission_of_run(run_dir, "T07")
    with pytest.raises(JudgingError, match="not a run folder"):
        submission_of_run(tmp_path, "T01")


def test_a_folder_is_a_submission_under_its_name(tmp_path: Path) -> None:
    (tmp_path / "vendor files").mkdir()
    submission = submission_of_folder(tmp_path / "vendor files", "final")
    assert (submission.id, submission.scope, submission.folder) == ("vendor files", "final", tmp_path / "vendor files")
    assert submission_of_folder(tmp_path / "vendor files", "T01", "v1").id == "v1"
    with pytest.raises(JudgingError, match="no such folder"):
        submission_of_folder(tmp_path / "absent", "T01")
