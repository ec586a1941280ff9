"""Cross-reference checks over a whole project, each located at the offending YAML node."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.validation import Finding, validate_project
from tests.helpers import column_of, line_of, make_rich_project, read, replace_in, write


@pytest.fixture
def rich(tmp_path: Path) -> Path:
    """The rich variant of the blank template: T01, T02 (stage S1), T03 (stage S2)."""
    return make_rich_project(tmp_path / "rich")


def only(findings: list[Finding], code: str) -> Finding:
    matching = [f for f in findings if f.code == code]
    assert len(matching) == 1, "\n".join(f.render() + f"  [{f.code}]" for f in findings)
    return matching[0]


def test_rich_project_has_no_findings(rich: Path) -> None:
    assert validate_project(rich) == []


def test_cross_file_criterion_covering_one_deliverable(rich: Path) -> None:
    text = replace_in(
        rich,
        "final/rubric.yaml",
        "      - F1\n      - F2\n    target: cross-file",
        "      - F1\n    target: cross-file",
    )
    finding = only(validate_project(rich), "invalid")
    assert finding.file == "final/rubric.yaml"
    assert finding.line == line_of(text, "covers:", occurrence=3)  # X-01 is the third criterion
    assert "X-01" in finding.message and "at least two deliverables" in finding.message
    assert finding.object_id == "X-01"


def test_cross_file_criterion_listing_one_deliverable_twice(rich: Path) -> None:
    replace_in(
        rich,
        "final/rubric.yaml",
        "      - F1\n      - F2\n    target: cross-file",
        "      - F1\n      - F1\n    target: cross-file",
    )
    assert "at least two deliverables" in only(validate_project(rich), "invalid").message


def test_checkpoint_criterion_covering_another_subtasks_output(rich: Path) -> None:
    text = replace_in(
        rich,
        "subtasks/T02/rubric.yaml",
        "      - T02:outputs/model.xlsx\n    target: checkpoint\n    dimension: correctness\n    weight: 8",
        "      - T01:outputs/report.md\n    target: checkpoint\n    dimension: correctness\n    weight: 8",
    )
    finding = only(validate_project(rich), "unknown-ref")
    assert (finding.file, finding.line, finding.column) == (
        "subtasks/T02/rubric.yaml",
        line_of(text, "- T01:outputs/report.md"),
        column_of(text, "T01:outputs/report.md"),
    )
    assert "'T01:outputs/report.md' is not an output of T02" in finding.message


def test_requires_cycle(rich: Path) -> None:
    text = replace_in(
        rich, "subtasks/T02/rubric.yaml", "    weight: 8\n", "    weight: 8\n    requires:\n      - T02-C02\n"
    )
    finding = only(validate_project(rich), "requires-cycle")
    assert finding.file == "subtasks/T02/rubric.yaml"
    # Reported once, on the cycle's smallest id, at its `requires` key.
    assert finding.line == line_of(text, "requires:", occurrence=1)
    assert line_of(text, "- id: T02-C01") < finding.line < line_of(text, "- id: T02-C02")
    assert "T02-C01" in finding.message and "cycle" in finding.message


def test_longer_requires_cycle_in_final_rubric(rich: Path) -> None:
    text = replace_in(rich, "final/rubric.yaml", "    weight: 3\n", "    weight: 3\n    requires:\n      - PKG-01\n")
    text = replace_in(rich, "final/rubric.yaml", "    weight: 5\n", "    weight: 5\n    requires:\n      - X-01\n")
    text = replace_in(rich, "final/rubric.yaml", "      - T02-C01\n", "      - A-01\n")
    finding = only(validate_project(rich), "requires-cycle")
    assert finding.file == "final/rubric.yaml"
    assert "A-01" in finding.message
    assert finding.line == line_of(text, "requires:", occurrence=2)  # A-01's, after X-01's


def test_criterion_requiring_itself_or_an_unknown_criterion(rich: Path) -> None:
    text = replace_in(
        rich,
        "subtasks/T03/rubric.yaml",
        "    weight: 6\n",
        "    weight: 6\n    requires:\n      - T03-C01\n      - T03-C77\n",
    )
    findings = validate_project(rich)
    self_loop = only(findings, "requires-cycle")
    assert self_loop.line == line_of(text, "- T03-C01", occurrence=1) and "requires itself" in self_loop.message
    unknown = only(findings, "unknown-ref")
    assert unknown.line == line_of(text, "- T03-C77") and "'T03-C77'" in unknown.message


def test_reviewed_criterion_without_reviewer(rich: Path) -> None:
    text = replace_in(rich, "final/rubric.yaml", "      status: draft", "      status: reviewed")
    finding = only(validate_project(rich), "review-without-reviewer")
    assert (finding.file, finding.line, finding.column) == (
        "final/rubric.yaml",
        line_of(text, "status: reviewed"),
        column_of(text, "reviewed"),
    )
    assert "PKG-01" in finding.message and "reviewer" in finding.message


def test_approved_checkpoint_criterion_with_empty_reviewer(rich: Path) -> None:
    text = replace_in(rich, "subtasks/T02/rubric.yaml", "      reviewer: A. Expert\n", "      reviewer: ''\n")
    finding = only(validate_project(rich), "review-without-reviewer")
    assert (finding.file, finding.line) == ("subtasks/T02/rubric.yaml", line_of(text, "status: approved"))


def test_subtask_id_differing_from_its_folder(rich: Path) -> None:
    text = replace_in(rich, "subtasks/T03/subtask.yaml", "id: T03", "id: T3")
    finding = only(validate_project(rich), "id-mismatch")
    assert (finding.file, finding.line, finding.column) == (
        "subtasks/T03/subtask.yaml",
        line_of(text, "id: T3"),
        column_of(text, "T3"),
    )
    assert "'T3'" in finding.message and "'T03'" in finding.message


def test_material_input_released_after_the_subtask_using_it(rich: Path) -> None:
    text = replace_in(rich, "subtasks/T01/subtask.yaml", "  - M01\n", "  - M01\n  - M02\n")
    finding = only(validate_project(rich), "not-yet-released")
    assert (finding.file, finding.line) == ("subtasks/T01/subtask.yaml", line_of(text, "- M02"))
    assert "M02" in finding.message and "T02" in finding.message and "not available yet" in finding.message


def test_material_released_before_the_subtask_itself_is_available(rich: Path) -> None:
    # M02 is released just before T02, and T02 uses it: that is fine (the rich project is clean).
    assert "M02" in read(rich, "subtasks/T02/subtask.yaml")
    assert validate_project(rich) == []


def test_generated_material_from_an_artifact_produced_after_its_release(rich: Path) -> None:
    # M03 is released before T03 but generated from T03's own output.
    text = replace_in(rich, "materials.yaml", "- T02:outputs/model.xlsx", "- T03:outputs/memo.md")
    finding = only(validate_project(rich), "backwards-in-time")
    assert (finding.file, finding.line) == ("materials.yaml", line_of(text, "- T03:outputs/memo.md"))
    assert "T03" in finding.message and "M03" in finding.message


def test_generated_material_released_just_before_its_producer(rich: Path) -> None:
    # Released before T02 but generated from T02's own output: not produced yet.
    text = replace_in(rich, "materials.yaml", "      subtask: T03\n", "      subtask: T02\n")
    findings = validate_project(rich)
    finding = only(findings, "backwards-in-time")
    assert (finding.file, finding.line) == ("materials.yaml", line_of(text, "- T02:outputs/model.xlsx"))


def test_material_correcting_a_later_material(rich: Path) -> None:
    text = replace_in(
        rich,
        "materials.yaml",
        "    release:\n      at: start\n",
        "    release:\n      at: start\n    corrects:\n      - M02\n",
    )
    finding = only(validate_project(rich), "backwards-in-time")
    assert (finding.file, finding.line) == ("materials.yaml", line_of(text, "- M02"))
    assert "released later" in finding.message


def test_final_deliverable_produced_by_unknown_output(rich: Path) -> None:
    text = replace_in(
        rich, "project.yaml", "produced_by: T02:outputs/model.xlsx", "produced_by: T02:outputs/model.xlsm"
    )
    finding = only(validate_project(rich), "unknown-ref")
    assert (finding.file, finding.line, finding.column) == (
        "project.yaml",
        line_of(text, "model.xlsm"),
        column_of(text, "T02:outputs/model.xlsm"),
    )
    assert "F2" in finding.message and "not an output of any subtask" in finding.message


def test_checkpoint_rubric_with_no_positive_weight(rich: Path) -> None:
    text = write(
        rich,
        "subtasks/T03/rubric.yaml",
        """\
        # Only deductions and a gate: nothing to score against.
        criteria:
          - id: T03-N01
            text: The memo misstates the margin.
            covers:
              - T03:outputs/memo.md
            target: checkpoint
            dimension: correctness
            weight: -4
          - id: T03-G01
            text: The memo is missing.
            covers:
              - T03:outputs/memo.md
            target: checkpoint
            dimension: completeness
            weight: 0
            gate: true
        """,
    ).read_text(encoding="utf-8")
    finding = only(validate_project(rich), "no-positive-weight")
    assert (finding.file, finding.line, finding.column) == ("subtasks/T03/rubric.yaml", line_of(text, "criteria:"), 1)
    assert "checkpoint rubric of T03" in finding.message


def test_final_rubric_with_no_positive_weight_counts_reused_weights(blank_project: Path) -> None:
    # A final rubric of one reused criterion (T01-C01, weight 5) and a negative one is scorable...
    write(blank_project, "final/rubric.yaml", """\
        criteria:
          - reuse_of: T01-C01
            covers:
              - F1
          - id: PKG-01
            text: The package lacks a deliverable listed in the delivery contract.
            covers:
              - package
            target: package
            dimension: completeness
            weight: -5
        """)
    assert validate_project(blank_project) == []
    # ...but once the reused checkpoint criterion (the only positive one of T01) is negative too,
    # nothing positive is left in either rubric.
    replace_in(blank_project, "subtasks/T01/rubric.yaml", "weight: 5", "weight: -5")
    findings = validate_project(blank_project)
    files = sorted(f.file for f in findings if f.code == "no-positive-weight")
    assert files == ["final/rubric.yaml", "subtasks/T01/rubric.yaml"]


def test_requires_chain_longer_than_the_recursion_limit_and_two_separate_loops(rich: Path) -> None:
    # 2,000 criteria, each requiring the next: the old recursive search hit Python's recursion
    # limit here. The chain ends in a loop back to C0500, and C0001 <-> C0002 is a second loop.
    lines = ["criteria:"]
    for n in range(1, 2001):
        needed = 500 if n == 2000 else (1 if n == 2 else n + 1)
        lines += [f"  - id: T03-C{n:04d}", "    text: The memo states the recommendation.", "    covers:",
                  "      - T03:outputs/memo.md", "    target: checkpoint", "    dimension: completeness",
                  "    weight: 6", "    requires:", f"      - T03-C{needed:04d}"]
    write(rich, "subtasks/T03/rubric.yaml", "\n".join(lines) + "\n")
    cycles = [f for f in validate_project(rich) if f.code == "requires-cycle"]
    # One finding per loop, on its smallest id, at that criterion's `requires` key.
    assert [f.object_id for f in cycles] == ["T03-C0001", "T03-C0500"]
    assert [f.line for f in cycles] == [9, 9 + 9 * 499]
