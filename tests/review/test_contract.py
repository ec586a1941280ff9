"""Contract traceability, checkpoint-only checks of corrections, reused criteria inheriting
`propagates`, and rule families that skip when a file they read did not load: each rule on a copy
of the sample, violated and clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.main import main
from studio.review import review_project
from studio.validation import Severity, validate_project
from tests.helpers import line_of, read, replace_in, write
from tests.review.sample_copy import copy_sample

FINAL = "final/rubric.yaml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


def findings(root: Path, rule: str) -> list:
    return [f for f in review_project(root).findings if f.code == rule]


def remove_criterion(root: Path, head: str) -> None:
    """Delete the final criterion whose entry starts with `head` ("  - id: X-04")."""
    text = read(root, FINAL)
    start = text.index(head + "\n")
    following = [at for marker in ("\n  - id: ", "\n  - reuse_of: ") if (at := text.find(marker, start + 1)) != -1]
    end = min(following) + 1 if following else len(text)
    write(root, FINAL, text[:start] + text[end:])


def test_the_sample_traces_every_acceptance_item_and_guards_every_external_deliverable(sample: Path):
    report = review_project(sample)
    assert report.count(Severity.ERROR) == 0
    codes = {f.code for f in report.findings}
    assert not codes & {"contract.acceptance-untested", "contract.external-unguarded", "propagation.checkpoint-only",
                        "propagation.deliverable-unchecked"}
    assert not any(code.endswith(".skipped") for code in codes)


# -- contract.acceptance-untested -----------------------------------------------------------


def test_deleting_five_final_criteria_that_check_acceptance_items_now_gives_errors(sample: Path):
    # The case: the cross-file and package checks of acceptance items deleted left the
    # review at 0 errors. AC5 is still tested by A-05; AC3, AC4 and AC6 lose every test.
    for head in ("  - id: X-04", "  - id: X-05", "  - id: X-06", "  - id: P-02", "  - id: P-03"):
        remove_criterion(sample, head)
    hits = findings(sample, "contract.acceptance-untested")
    assert [h.object_id for h in hits] == ["AC3", "AC4", "AC6"]
    project_yaml = read(sample, "project.yaml")
    for hit in hits:
        assert hit.severity is Severity.ERROR and hit.file == "project.yaml"
        assert hit.line == line_of(project_yaml, f"- id: {hit.object_id}")
        assert f"acceptance item {hit.object_id} is tested by no final criterion" in hit.message
        assert f"tests: [{hit.object_id}]" in hit.message
    assert main(["review", str(sample)]) == 1


def test_an_item_whose_tests_are_all_dropped_is_untested(sample: Path):
    text = read(sample, FINAL)
    assert text.count("    tests:\n      - AC2\n") == 3
    write(sample, FINAL, text.replace("    tests:\n      - AC2\n", ""))
    (hit,) = findings(sample, "contract.acceptance-untested")
    assert hit.object_id == "AC2"


def test_a_checkpoint_criterion_cannot_test_an_acceptance_item(sample: Path):
    # Acceptance is judged on the final package: a checkpoint criterion's `tests` is a validation error.
    replace_in(sample, "subtasks/T09/rubric.yaml", "    propagates:\n      - M12\n",
               "    propagates:\n      - M12\n    tests:\n      - AC1\n")
    (hit,) = [f for f in validate_project(sample) if f.code == "misplaced-tests"]
    assert hit.file == "subtasks/T09/rubric.yaml" and hit.object_id == "T09-C05"
    assert "only final criteria test acceptance items" in hit.message


def test_a_reused_entry_in_the_final_rubric_can_test_an_item(sample: Path):
    # X-04 alone tests AC3 (Venlo); the reuse of T09-C02 (the Venlo item on the final checklist) takes over.
    remove_criterion(sample, "  - id: X-04")
    assert [h.object_id for h in findings(sample, "contract.acceptance-untested")] == ["AC3"]
    replace_in(sample, FINAL, "  - reuse_of: T09-C02\n    covers:\n      - F5\n",
               "  - reuse_of: T09-C02\n    covers:\n      - F5\n    tests:\n      - AC3\n")
    assert findings(sample, "contract.acceptance-untested") == []


# -- contract.external-unguarded ------------------------------------------------------------


def test_external_deliverables_without_a_confidentiality_item_are_warned(sample: Path):
    replace_in(sample, "project.yaml", "      confidentiality: true\n", "")
    hits = findings(sample, "contract.external-unguarded")
    assert [h.object_id for h in hits] == ["F1", "F3", "F4", "F5"]  # F2 and F6 stay internal
    project_yaml = read(sample, "project.yaml")
    assert hits[0].line == line_of(project_yaml, "circulation: external")
    assert all(h.severity is Severity.WARNING for h in hits)
    assert "confidentiality: true" in hits[0].message and "circulation: external" in hits[0].message


def test_a_deliverable_is_guarded_by_a_criterion_covering_it_or_the_package(sample: Path):
    # Without P-02 (the package), only A-05 on F4 tests AC5: the other external files are open.
    remove_criterion(sample, "  - id: P-02")
    hits = findings(sample, "contract.external-unguarded")
    assert [h.object_id for h in hits] == ["F1", "F3", "F5"]
    assert "test AC5" in hits[0].message
    replace_in(sample, "project.yaml", "      circulation: external\n", "      circulation: internal\n")  # F1
    assert [h.object_id for h in findings(sample, "contract.external-unguarded")] == ["F3", "F5"]


# -- propagation: reused criteria inherit `propagates` --------------------------------------


def test_a_reused_criterion_checks_the_correction_its_original_checks(sample: Path):
    # T10-C02 (propagates M12) is reused on F6: F6 is checked for the restatement.
    assert findings(sample, "propagation.deliverable-unchecked") == []
    remove_criterion(sample, "  - reuse_of: T10-C02")
    (hit,) = findings(sample, "propagation.deliverable-unchecked")
    assert hit.object_id == "M12" and "final deliverable F6" in hit.message


# -- propagation.checkpoint-only ------------------------------------------------------------


def test_a_correction_checked_only_at_the_checkpoint_is_warned(sample: Path):
    remove_criterion(sample, "  - reuse_of: T09-C05")
    (hit,) = findings(sample, "propagation.checkpoint-only")
    rubric = read(sample, "subtasks/T09/rubric.yaml")
    assert (hit.file, hit.object_id, hit.severity) == ("subtasks/T09/rubric.yaml", "T09-C05", Severity.WARNING)
    assert hit.line == line_of(rubric, "propagates:", 1)  # T09-C05 is the rubric's only propagation check
    assert "final deliverable F5" in hit.message and "reuse_of: T09-C05" in hit.message


def test_a_final_criterion_checking_the_correction_on_the_file_clears_it(sample: Path):
    remove_criterion(sample, "  - reuse_of: T09-C05")
    replace_in(sample, FINAL, "    tests:\n      - AC4\n", "    tests:\n      - AC4\n    propagates:\n      - M12\n")
    # X-05 covers F4, F5 and F6 and now checks M12 too.
    assert findings(sample, "propagation.checkpoint-only") == []


def test_a_checkpoint_criterion_naming_the_correction_in_its_text_counts(sample: Path):
    remove_criterion(sample, "  - reuse_of: T09-C05")
    replace_in(sample, "subtasks/T09/rubric.yaml", "    propagates:\n      - M12\n", "")
    replace_in(sample, "subtasks/T09/rubric.yaml", "must be prepared on restated EBITDA",
               "must be prepared on the EBITDA restated in M12")
    (hit,) = findings(sample, "propagation.checkpoint-only")
    assert hit.object_id == "T09-C05"
    assert hit.line == line_of(read(sample, "subtasks/T09/rubric.yaml"), "covers:", 5)


# -- a file that fails its schema -----------------------------------------------------------


def test_a_rubric_that_fails_its_schema_skips_the_families_that_read_it(sample: Path):
    replace_in(sample, FINAL, "    weight: 9\n    propagates:\n      - M12\n", "    weight: 11\n    propagates:\n"
               "      - M12\n")
    report = review_project(sample)
    errors = [f for f in report.findings if f.severity is Severity.ERROR]
    # Only the schema error: no "deliverable without quality", "no package criterion", "acceptance
    # item untested" or "correction unchecked" about the rest of a project whose final rubric did not load.
    assert [(f.code, f.file) for f in errors] == [("validate.schema", FINAL)]
    skipped = sorted(f.code for f in report.findings if f.code.endswith(".skipped"))
    assert skipped == ["alignment.skipped", "availability.skipped", "contract.skipped", "facts.skipped",
                       "propagation.skipped", "weights.skipped"]
    for finding in report.findings:
        if finding.code.endswith(".skipped"):
            assert finding.severity is Severity.INFO and finding.file == FINAL
            assert "could not be read" in finding.message
    # Families that do not read rubrics still run.
    assert any(f.code == "dependencies.unused-output" for f in report.findings)


def test_a_subtask_file_that_fails_its_schema_names_it(sample: Path):
    replace_in(sample, "subtasks/T04/subtask.yaml", "time_limit_minutes:", "time_limit_minutez:")
    report = review_project(sample)
    skipped = [f for f in report.findings if f.code.endswith(".skipped")]
    assert skipped and all(f.file == "subtasks/T04/subtask.yaml" for f in skipped)
    assert "contract.skipped" not in {f.code for f in skipped}  # contract reads project.yaml and rubrics only
    errors = {f.code for f in report.findings if f.severity is Severity.ERROR}
    assert "validate.schema" in errors and all(code.startswith("validate.") for code in errors)


# -- weights.share: checkpoint and final apart ------------------------------------------------


def test_the_sample_weight_shares_are_reported_per_kind_of_rubric(sample: Path):
    from studio.store.loader import load_project

    project = load_project(sample).project
    final_positive = 0
    for criterion in project.final_rubric.criteria:
        scored = project.checkpoint_criterion(criterion.reuse_of)[1] if criterion.reuse_of else criterion
        final_positive += max(scored.weight or 0, 0)
    checkpoint_positive = sum(max(c.weight or 0, 0) for r in project.checkpoint_rubrics.values() for c in r.criteria)
    shares = review_project(sample).weight_shares
    assert shares.final.positive_weight == final_positive == 143
    assert (shares.checkpoint.positive_weight, shares.checkpoint.rubrics) == (checkpoint_positive, 10)
    assert "checkpoint" not in shares.final.by_target
    assert sum(shares.final.by_target.values()) == pytest.approx(1.0, abs=1e-3)
    assert sum(shares.checkpoint.by_dimension.values()) == pytest.approx(1.0, abs=1e-3)
    # A new weight for a checkpoint criterion no final criterion reuses leaves the final shares as they were.
    text = read(sample, "subtasks/T09/rubric.yaml")
    at = text.index("    weight: ", text.index("  - id: T09-C06"))
    write(sample, "subtasks/T09/rubric.yaml", text[:at] + "    weight: 1\n" + text[text.index("\n", at) + 1:])
    after = review_project(sample).weight_shares
    assert after.final == shares.final and after.checkpoint != shares.checkpoint
