"""A submission's file is previewed only when it is the submission's own regular file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from studio.previews import PreviewError, file_in_tree
from tests.untrusted.hostile import device_node, host_secret


def test_only_the_submissions_own_regular_files_are_previewed(tmp_path: Path) -> None:
    secret = host_secret(tmp_path)
    project = tmp_path / "project"
    (project / "evaluator").mkdir(parents=True)
    (project / "evaluator" / "reference.md").write_text("EVALUATOR-ONLY\n")
    submission = project / "runs" / "r1" / "submissions" / "T01"
    submission.mkdir(parents=True)
    (submission / "memo.md").write_text("memo\n")
    (submission / "same.md").symlink_to("memo.md")
    (submission / "passwd").symlink_to(secret)
    (submission / "reference.md").symlink_to(project / "evaluator" / "reference.md")
    (submission / "loop").symlink_to("loop")
    device_node(submission / "zero.png")
    os.mkfifo(submission / "pipe.csv")
    assert file_in_tree(submission, "same.md") == submission.resolve() / "memo.md"
    for rel, problem in [
        ("passwd", "passwd is a link to a file outside the submission: not read"),
        ("reference.md", "reference.md is a link to a file outside the submission: not read"),
        ("loop", "loop is a loop of symbolic links: not read"),
        ("zero.png", "zero.png is a device node, not a regular file"),
        ("pipe.csv", "pipe.csv is a FIFO (named pipe), not a regular file"),
    ]:
        with pytest.raises(PreviewError) as refused:
            file_in_tree(submission, rel)
        assert refused.value.problem == problem and str(refused.value) == f"{rel}: {problem}"
