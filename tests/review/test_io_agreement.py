"""Instructions, inputs and handoffs agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.main import main
from studio.store.workspace import sample_project
from studio.validation import Severity
from tests.helpers import line_of, read, replace_in
from tests.review.sample_copy import append, copy_sample, findings

# The four handoffs the issue found missing: T08 and T09 work on these files.
ADDED_HANDOFFS = [
    ("T06:outputs/assumptions_memo.md", "T08"),
    ("T03:outputs/open_issues_register.md", "T08"),
    ("T06:outputs/financing_model.xlsx", "T09"),
    ("T08:outputs/lender_qa_responses.md", "T09"),
]


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


def _drop_handoff(root: Path, artifact: str, to: str) -> None:
    text = read(root, "dependencies.yaml")
    start = text.index(f"  - from: {artifact}\n    to: {to}\n")
    end = text.find("\n  - from:", start + 1)
    (root / "dependencies.yaml").write_text(text[:start] + (text[end + 1:] if end >= 0 else ""), encoding="utf-8")


def test_the_sample_agrees(sample: Path):
    assert findings(sample, "inputs.") == []
    assert main(["review", str(sample_project())]) == 0


def test_issue_case_t08_and_t09_without_their_handoffs(sample: Path):
    for artifact, to in ADDED_HANDOFFS:
        _drop_handoff(sample, artifact, to)
    found = findings(sample, "inputs.output-without-handoff")
    assert all(f.severity is Severity.ERROR for f in found)
    assert sorted((f.object_id, f.file) for f in found) == [
        ("T08", "subtasks/T08/instruction.md"), ("T08", "subtasks/T08/instruction.md"),
        ("T09", "subtasks/T09/instruction.md"), ("T09", "subtasks/T09/instruction.md")]
    messages = " ".join(f.message for f in found)
    for artifact, to in ADDED_HANDOFFS:
        assert f"'from: {artifact}' with 'to: {to}'" in messages  # the fix, from the latest producer
    t08 = read(sample, "subtasks/T08/instruction.md")
    register = [f for f in found if "open_issues_register" in f.message]
    assert register[0].line == line_of(t08, "outputs/open_issues_register.md")


def test_a_released_material_missing_from_inputs_is_an_error(sample: Path):
    append(sample, "subtasks/T04/instruction.md", "\nCheck the quarterly EBITDA in M02 again.\n")
    [finding] = findings(sample, "inputs.material-not-listed")
    assert finding.severity is Severity.ERROR
    assert finding.file == "subtasks/T04/instruction.md" and "M02" in finding.message


def test_a_material_not_yet_released_is_left_to_availability(sample: Path):
    append(sample, "subtasks/T04/instruction.md", "\nWait for M12.\n")
    assert findings(sample, "inputs.material-not-listed") == []
    assert [f.code for f in findings(sample, "availability.")] == ["availability.named-before-release"]


def test_an_input_the_instruction_never_names_is_a_warning(sample: Path):
    replace_in(sample, "subtasks/T05/subtask.yaml", "  - M03\n", "  - M03\n  - M04\n")
    [finding] = findings(sample, "inputs.input-unmentioned")
    assert finding.severity is Severity.WARNING
    assert finding.file == "subtasks/T05/subtask.yaml" and "M04" in finding.message
    assert finding.line == line_of(read(sample, "subtasks/T05/subtask.yaml"), "- M04")


def test_a_handoff_the_instruction_never_names_is_a_warning(sample: Path):
    append(sample, "dependencies.yaml", "  - from: T02:outputs/fleet_and_permit_findings.md\n    to: T06\n"
           "    carries: The owned-fleet value.\n")
    [finding] = findings(sample, "inputs.handoff-unmentioned")
    assert finding.severity is Severity.WARNING
    assert finding.file == "dependencies.yaml" and finding.object_id == "T06"
    assert "T02:outputs/fleet_and_permit_findings.md" in finding.message


def test_an_output_named_by_file_name_alone_counts(sample: Path):
    _drop_handoff(sample, "T06:outputs/financing_model.xlsx", "T09")
    replace_in(sample, "subtasks/T09/instruction.md", "`outputs/financing_model.xlsx`",
               "the model financing_model.xlsx")
    [finding] = findings(sample, "inputs.output-without-handoff")
    assert "outputs/financing_model.xlsx" in finding.message and finding.object_id == "T09"
