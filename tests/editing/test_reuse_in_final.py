"""A checkpoint criterion judged again on the final package: `reuse_of` added to the final rubric,
covering the deliverables its files become, one undo step; refused for what cannot be reused."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.rubric import RenameError, reuse_in_final
from studio.editing.session import ProjectSession
from studio.validation.validate import validate_project
from tests.editing.edit_support import copy_sample, save_and_compare, snapshot
from tests.helpers import run_cli


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


def test_a_checkpoint_criterion_is_reused_on_the_deliverable_its_file_becomes(sample: Path) -> None:
    before = snapshot(sample)
    session = ProjectSession(sample)
    undo, _ = session.apply(reuse_in_final(session.documents, "T09-C01"))
    final = session.loaded.project.final_rubric.criteria[-1]
    assert (final.reuse_of, final.covers) == ("T09-C01", ["F5"])  # T09's checklist becomes F5
    scored = session.loaded.project.scored_as("final", final)
    assert scored is not None and scored.text == session.loaded.project.checkpoint_rubrics["T09"].criteria[0].text
    save_and_compare(session)
    assert validate_project(sample) == []
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before


@pytest.mark.parametrize(("criterion", "message"), [
    ("T06-C02", "already in the final rubric"),
    ("X-01", "it is a final criterion"),
    ("T99-C01", "no checkpoint criterion has the id 'T99-C01'"),
    ("T01-C01", "covers no file that becomes a final deliverable"),
])
def test_what_cannot_be_reused_is_refused(sample: Path, criterion: str, message: str) -> None:
    with pytest.raises(RenameError, match=message):
        reuse_in_final(ProjectSession(sample).documents, criterion)


def test_reuse_from_the_command_line_with_covers(sample: Path, capsys) -> None:
    code, out, _ = run_cli(capsys, "rubric", "reuse", str(sample), "T01-C01", "--covers", "F1")
    assert code == 0 and "final/rubric.yaml" in out
    assert "  - reuse_of: T01-C01\n    covers:\n      - F1\n" in (sample / "final/rubric.yaml").read_text()
