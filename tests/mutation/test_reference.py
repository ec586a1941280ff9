"""The reference package: each checkpoint's submission is the workspace after it, the final package is
assembled as a run's is, and a package that does not fit the project is refused with the file and the fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.mutation.reference import MutationError, load_reference
from studio.store.loader import load_project


def _package(project: Path):
    return load_reference(project, load_project(project).project)


def test_a_checkpoint_submission_is_the_workspace_after_it(referenced: Path) -> None:
    package = _package(referenced)
    t05 = package.submission_files("T05")
    # the outputs of T01..T05, each at its path; nothing from later subtasks
    assert "outputs/net_debt_baseline.xlsx" in t05 and "outputs/financing_structure_proposal.md" in t05
    assert "outputs/lender_presentation.md" not in t05
    assert t05["outputs/financing_model.xlsx"] == referenced / "evaluator/reference/T05/outputs/financing_model.xlsx"
    # T06 revises the model: its own version replaces T05's in its workspace
    t06 = package.submission_files("T06")
    assert t06["outputs/financing_model.xlsx"] == referenced / "evaluator/reference/T06/outputs/financing_model.xlsx"


def test_the_final_package_is_assembled_from_the_workspace_where_the_expert_gave_no_final_file(referenced: Path) -> None:
    root = referenced / "evaluator/reference"
    (root / "final/final/handover_note.md").unlink()
    package = _package(referenced)
    final = package.submission_files("final")
    # F6 is produced by T10:outputs/handover_note.md: the workspace's file after the last subtask
    assert final["final/handover_note.md"] == root / "T10/outputs/handover_note.md"
    assert final["final/financing_model.xlsx"] == root / "final/final/financing_model.xlsx"
    shutil.rmtree(root / "final")
    assert _package(referenced).submission_files("final")["final/financing_model.xlsx"] == \
        root / "T06/outputs/financing_model.xlsx"


def test_materialize_writes_exactly_the_submission(referenced: Path, tmp_path: Path) -> None:
    package = _package(referenced)
    target = package.materialize("T02", tmp_path / "out")
    written = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert written == sorted(package.submission_files("T02"))
    assert (target / "outputs/fleet_and_permit_findings.md").read_bytes() == \
        (referenced / "evaluator/reference/T02/outputs/fleet_and_permit_findings.md").read_bytes()


def test_no_package_says_where_to_put_one(tmp_path: Path) -> None:
    from tests.mutation.reference_package import sample_copy

    project = sample_copy(tmp_path / "bare")
    with pytest.raises(MutationError, match=r"no reference package: put the expert's own deliverables under "
                                            r"evaluator/reference/<SUBTASK>/"):
        _package(project)


def test_a_folder_that_is_no_scope_is_named_with_the_fix(referenced: Path) -> None:
    (referenced / "evaluator/reference/T99").mkdir()
    with pytest.raises(MutationError, match=r"T99: 'T99' is neither a subtask of the project's timeline .* nor "
                                            r"'final': rename the folder"):
        _package(referenced)


@pytest.mark.parametrize(("text", "where", "message"), [
    ("corrections:\n  - material: M99\n    what: EBITDA\n    from: 41.8\n    to: 38.9\n", ":2:15:",
     "no material M99 in materials.yaml"),
    ("corrections:\n  - material: M12\n    what: EBITDA\n    from: 38.9\n    to: 38.9\n", ":5:9:",
     "'from' and 'to' are both 38.9"),
    ("corrections:\n  - material: M12\n    what: EBITDA\n    to: 38.9\n", ":2:5:", "correction 1: missing required key 'from'"),
    ("corrections:\n  - material: M12\n    what: EBITDA\n    form: 41.8\n    to: 38.9\n", ":4:11:", "correction 1: unknown key 'form'"),
    ("corrections: [\n", ":1:", "YAML syntax"),
])
def test_a_bad_reference_yaml_names_file_line_and_fix(referenced: Path, text: str, where: str, message: str) -> None:
    path = referenced / "evaluator/reference/reference.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MutationError) as caught:
        _package(referenced)
    assert str(caught.value).startswith(f"{path}{where}"), str(caught.value)
    assert message in str(caught.value)


def test_corrections_are_read_as_written(referenced: Path) -> None:
    (correction,) = _package(referenced).corrections
    assert (correction.material, correction.what, correction.old, correction.new) == ("M12", "FY2025 EBITDA",
                                                                                       "41.8", "38.9")
