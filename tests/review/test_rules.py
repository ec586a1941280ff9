"""Each review rule: a project that violates it, and one that does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.review import review_project
from studio.store.workspace import sample_project
from studio.store.yamlfile import YamlDocument
from studio.validation import Severity
from tests.helpers import make_rich_project, read, replace_in, write


def clean_project(tmp_path: Path) -> Path:
    """The rich test project, amended until review finds no errors and no warnings."""
    root = make_rich_project(tmp_path / "proj")
    write(root, "subtasks/T02/instruction.md",
          "# T02\n\nBuild outputs/model.xlsx from the term sheet (M02), M01 and your outputs/report.md.\n")
    write(root, "subtasks/T03/instruction.md",
          "# T03\n\nWrite outputs/memo.md for the credit committee from M01, M03 and outputs/model.xlsx.\n")
    replace_in(
        root,
        "subtasks/T02/rubric.yaml",
        "    requires:\n      - T02-C01\n",
        "    requires:\n      - T02-C01\n    propagates:\n      - M02\n",
    )
    replace_in(
        root,
        "final/rubric.yaml",
        "    requires:\n      - T02-C01\n",
        "    requires:\n      - T02-C01\n    propagates:\n      - M02\n",
    )
    for rel in (
        "subtasks/T01/rubric.yaml",
        "subtasks/T02/rubric.yaml",
        "subtasks/T03/rubric.yaml",
        "final/rubric.yaml",
    ):
        document = YamlDocument.load(root / rel)
        for criterion in document.data["criteria"]:
            if "reuse_of" not in criterion:
                criterion["review"] = {"status": "approved", "reviewer": "A. Expert"}
        document.save()
    return root


def rules(root: Path, severity: Severity | None = None) -> dict[str, list]:
    found: dict[str, list] = {}
    for f in review_project(root).findings:
        if severity is None or f.severity is severity:
            found.setdefault(f.code, []).append(f)
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return clean_project(tmp_path)


def test_clean_project_has_no_errors_or_warnings(project: Path):
    found = rules(project)
    assert {code for code, items in found.items() if items[0].severity is not Severity.INFO} == set()
    assert "weights.share" in found  # the information is always there


def test_sample_project_reviews_clean_of_errors(capsys):
    assert main(["review", str(sample_project())]) == 0
    assert "0 errors" in capsys.readouterr().err


# -- alignment ------------------------------------------------------------------------------


def test_output_without_criterion(project: Path):
    replace_in(
        project,
        "subtasks/T03/subtask.yaml",
        "  - path: outputs/memo.md\n",
        "  - path: outputs/memo.md\n  - path: outputs/annex.md\n",
    )
    (hit,) = rules(project)["alignment.output-uncovered"]
    assert (hit.file, hit.line, hit.severity) == ("subtasks/T03/subtask.yaml", 8, Severity.ERROR)
    assert "outputs/annex.md" in hit.message


def test_criterion_on_a_file_the_instruction_never_asks_for(project: Path):
    write(project, "subtasks/T03/instruction.md", "# T03\n\nWrite the memo.\n")
    (hit,) = rules(project)["alignment.criterion-not-asked"]
    assert hit.file == "subtasks/T03/rubric.yaml" and hit.object_id == "T03-C01"
    assert hit.line == 4  # the covers key of T03-C01


def test_criterion_covering_nothing(project: Path):
    replace_in(project, "subtasks/T03/rubric.yaml", "    covers:\n      - T03:outputs/memo.md\n", "")
    (hit,) = rules(project)["alignment.criterion-covers-nothing"]
    assert hit.severity is Severity.WARNING and hit.object_id == "T03-C01"


def test_deliverable_without_artifact_quality(project: Path):
    replace_in(project, "final/rubric.yaml", "  - reuse_of: T02-C01\n    covers:\n      - F2\n", "")
    (hit,) = rules(project)["alignment.deliverable-without-quality"]
    assert hit.file == "project.yaml" and hit.object_id == "F2"


def test_no_cross_file_and_no_package_criteria(project: Path):
    text = read(project, "final/rubric.yaml")
    head, x01 = text.split("  - id: X-01", 1)
    rest = x01[x01.index("  - id: A-01") :]
    rest = rest[: rest.index("  - id: PKG-01")]
    write(project, "final/rubric.yaml", head + rest)
    found = rules(project, Severity.ERROR)
    assert "alignment.no-cross-file" in found and "alignment.no-package" in found


# -- information availability --------------------------------------------------------------


def test_instruction_names_a_material_not_yet_released(project: Path):
    write(
        project,
        "subtasks/T01/instruction.md",
        "# T01\n\nUsing M01, write `outputs/report.md`.\n\nCompare with term-sheet.md as well.\n",
    )
    (hit,) = rules(project)["availability.named-before-release"]
    assert (hit.file, hit.line, hit.column) == ("subtasks/T01/instruction.md", 5, 14)
    assert "M02" in hit.message and "before T02" in hit.message


def test_criterion_and_brief_name_a_material_not_yet_released(project: Path):
    replace_in(project, "subtasks/T01/rubric.yaml", "text: The report states", "text: Citing M02, the report states")
    write(project, "brief.md", "# Brief\n\nThe lenders' M02 arrives later.\n")
    hits = rules(project)["availability.named-before-release"]
    assert {h.file for h in hits} == {"subtasks/T01/rubric.yaml", "brief.md"}


def test_materials_named_at_or_after_release_are_fine(project: Path):
    write(project, "subtasks/T03/instruction.md", "# T03\n\nWrite outputs/memo.md using M01, M02 and M03.\n")
    assert "availability.named-before-release" not in rules(project)


# -- leaks ----------------------------------------------------------------------------------

REFERENCE = (
    "# Reference\n\nThe correct margin after the restatement is the top tier because opening leverage "
    "rises above the threshold agreed with the lenders in the term sheet.\n"
)


def test_reference_listed_as_input(project: Path):
    replace_in(project, "subtasks/T03/subtask.yaml", "  - M03\n", "  - M03\n  - R1\n")
    (hit,) = rules(project)["leak.reference-as-input"]
    assert hit.file == "subtasks/T03/subtask.yaml" and hit.line == 6


def test_reference_copied_into_materials(project: Path):
    write(project, "materials/notes/copy.md", read(project, "evaluator/answer-T02.md"))
    (hit,) = rules(project)["leak.reference-in-materials"]
    assert hit.file == "materials/notes/copy.md" and hit.object_id == "R1"


def test_reference_file_named_in_an_instruction(project: Path):
    write(project, "subtasks/T03/instruction.md", "# T03\n\nWrite outputs/memo.md; see evaluator/answer-T02.md.\n")
    assert rules(project)["leak.reference-named"][0].file == "subtasks/T03/instruction.md"


def test_reference_quoted_at_length_but_short_overlap_is_fine(project: Path):
    write(project, "evaluator/answer-T02.md", REFERENCE)
    write(
        project,
        "materials/term-sheet.md",
        "# Term sheet\n\nMargin grid: the top tier applies when opening leverage rises.\n",
    )
    assert "leak.reference-quoted" not in rules(project)  # 5 shared words is a shared fact, not a quote
    write(
        project,
        "materials/term-sheet.md",
        "# Term sheet\n\nNote: the correct margin after the restatement is the top tier because opening "
        "leverage rises above the threshold.\n",
    )
    (hit,) = rules(project)["leak.reference-quoted"]
    assert hit.file == "materials/term-sheet.md" and hit.line == 3 and "17 consecutive words" in hit.message


# -- propagation ----------------------------------------------------------------------------


def test_correction_without_a_later_check(project: Path):
    for rel in ("subtasks/T02/rubric.yaml", "final/rubric.yaml"):
        replace_in(project, rel, "    propagates:\n      - M02\n", "")
    (hit,) = rules(project)["propagation.correction-unchecked"]
    assert (hit.file, hit.line, hit.object_id) == ("materials.yaml", 18, "M02")


def test_correction_checked_but_not_on_every_dependent_deliverable(project: Path):
    replace_in(project, "final/rubric.yaml", "    propagates:\n      - M02\n", "")
    hits = rules(project)["propagation.deliverable-unchecked"]
    assert sorted(h.message.split()[2] for h in hits) == ["F1", "F2"]
    assert all(h.severity is Severity.WARNING for h in hits)


def test_a_criterion_naming_the_correction_counts_as_a_check(project: Path):
    for rel in ("subtasks/T02/rubric.yaml", "final/rubric.yaml"):
        replace_in(project, rel, "    propagates:\n      - M02\n", "")
    replace_in(
        project,
        "subtasks/T02/rubric.yaml",
        "text: The model uses the term sheet's margin.",
        "text: The model uses the margin of M02.",
    )
    assert "propagation.correction-unchecked" not in rules(project)


# -- weights --------------------------------------------------------------------------------


def test_rubric_without_positive_weight(project: Path):
    replace_in(project, "subtasks/T03/rubric.yaml", "weight: 6", "weight: -6")
    (hit,) = rules(project)["weights.no-positive"]
    assert hit.file == "subtasks/T03/rubric.yaml" and hit.severity is Severity.ERROR


def test_draft_criteria_are_listed(project: Path):
    replace_in(
        project,
        "subtasks/T03/rubric.yaml",
        "      status: approved\n      reviewer: A. Expert\n",
        "      status: draft\n",
    )
    (hit,) = rules(project)["weights.draft"]
    assert hit.object_id == "T03-C01" and hit.severity is Severity.WARNING


def test_weight_shares_checkpoint_and_final_apart(project: Path):
    report = review_project(project)
    shares = report.weight_shares
    # Checkpoint rubrics, each scored on its own: T01 (T01-C01 5 completeness), T02 (T02-C01 8 and
    # T02-C02 4, both correctness), T03 (T03-C01 6 completeness): each dimension's mean share of a
    # rubric's W+ is completeness (1 + 0 + 1) / 3, correctness (0 + 1 + 0) / 3.
    assert (shares.checkpoint.positive_weight, shares.checkpoint.rubrics) == (23, 3)
    assert shares.checkpoint.by_dimension == {"completeness": round(2 / 3, 4), "correctness": round(1 / 3, 4)}
    # Final rubric, scored as one: reused T01-C01 5 + T02-C01 8 and A-01 3 (artifact 16), X-01 7, PKG-01 5 -> 28;
    # no checkpoint weight is pooled in.
    assert (shares.final.positive_weight, shares.final.rubrics) == (28, 1)
    assert shares.final.by_target == {"artifact": round(16 / 28, 4), "cross-file": round(7 / 28, 4),
                                      "package": round(5 / 28, 4)}
    assert shares.final.by_dimension == {"completeness": round(10 / 28, 4), "consistency": round(7 / 28, 4),
                                         "correctness": round(8 / 28, 4), "professionalism": round(3 / 28, 4)}
    messages = [f.message for f in report.findings if f.code == "weights.share"]
    assert len(messages) == 2
    assert "checkpoint rubrics (3, positive weight 23" in messages[0] and "completeness 66.7%" in messages[0]
    assert "final rubric (positive weight 28" in messages[1] and "artifact 57.1%" in messages[1]
    assert "checkpoint" not in messages[1].split(":", 1)[1]  # the final shares name no checkpoint target


# -- dependency map -------------------------------------------------------------------------


def test_handoff_from_an_output_nobody_produces(project: Path):
    replace_in(project, "dependencies.yaml", "  - from: T02:outputs/model.xlsx", "  - from: T02:outputs/ghost.xlsx")
    (hit,) = rules(project)["dependencies.unproduced"]
    assert hit.file == "dependencies.yaml" and hit.line == 6


def test_backwards_handoff_and_cycle(project: Path):
    write(
        project,
        "dependencies.yaml",
        """\
handoffs:
  - from: T02:outputs/model.xlsx
    to: T03
  - from: T03:outputs/memo.md
    to: T02
""",
    )
    found = rules(project)
    assert found["dependencies.backwards"][0].line == 5
    assert "T02 -> T03 -> T02" in found["dependencies.cycle"][0].message


def test_unused_output_is_information_only(project: Path):
    found = rules(project)
    assert [h.object_id for h in found["dependencies.unused-output"]] == ["T03"]
    assert found["dependencies.unused-output"][0].severity is Severity.INFO


# -- command line ---------------------------------------------------------------------------


def test_review_cli_exit_codes_and_json(project: Path, capsys):
    assert main(["review", str(project), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["error"] == 0
    assert data["weight_shares"]["checkpoint"]["positive_weight"] == 23
    assert data["weight_shares"]["final"]["positive_weight"] == 28
    write(project, "subtasks/T03/instruction.md", "# T03\n\nWrite the memo.\n")
    assert main(["review", str(project)]) == 1
    out = capsys.readouterr().out
    assert "subtasks/T03/rubric.yaml:4:5: error [alignment.criterion-not-asked]" in out
    assert main(["review", str(project / "nope")]) == 2


def test_review_of_an_invalid_project_reports_instead_of_crashing(project: Path, capsys):
    write(project, "stages.yaml", "stages: [unclosed\n")
    assert main(["review", str(project)]) == 1
    captured = capsys.readouterr()
    assert "validate.yaml-syntax" in captured.out and "Traceback" not in captured.err
