"""Acceptance items: ids, the plain-text form of older projects (refused, with the fix), and the
`tests` of final criteria; `dbstudio migrate` numbering older items in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.main import main
from studio.validation import validate_project
from tests.helpers import line_of, read, replace_in, write
from tests.review.sample_copy import copy_sample

FINAL = "final/rubric.yaml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


def plain_acceptance(root: Path) -> str:
    """Rewrite the sample's acceptance items in the old form, one plain text per item; return the new text."""
    text = read(root, "project.yaml")
    lines = []
    for line in text.splitlines(keepends=True):
        if line.startswith("    - id: AC") or line.startswith("      confidentiality:"):
            continue
        if line.startswith("      text: ") and "acceptance:" in "".join(lines):
            line = "    - " + line[len("      text: "):]
        lines.append(line)
    write(root, "project.yaml", "".join(lines))
    return "".join(lines)


def test_the_sample_validates(sample: Path):
    assert validate_project(sample) == []


def test_a_plain_text_acceptance_item_is_refused_with_the_fix(sample: Path):
    text = plain_acceptance(sample)
    found = validate_project(sample)
    assert len(found) == 6 and {f.code for f in found} == {"schema"}
    first = found[0]
    assert first.file == "project.yaml"
    assert first.line == line_of(text, "    - Every financial figure")
    assert "dbstudio migrate PROJECT" in first.message and "`- id: AC1`" in first.message


def test_migrate_numbers_plain_items_in_place_and_keeps_the_rest(sample: Path, capsys):
    before = plain_acceptance(sample)
    assert main(["migrate", str(sample), "--dry-run"]) == 0
    assert read(sample, "project.yaml") == before
    assert main(["migrate", str(sample)]) == 0
    assert "Number 6 acceptance items" in capsys.readouterr().out
    after = read(sample, "project.yaml")
    assert after.splitlines()[0] == before.splitlines()[0]  # the comment at the top survives
    assert [line.strip() for line in after.splitlines() if line.startswith("    - id: AC")] == [
        f"- id: AC{n}" for n in range(1, 7)]
    assert "      text: Every financial figure is traceable" in after
    # The sample's criteria test AC1..AC6 in the order the items were written: all valid again.
    assert validate_project(sample) == []
    assert main(["migrate", str(sample)]) == 0
    assert "nothing to migrate" in capsys.readouterr().out


def test_migrate_skips_ids_already_taken(sample: Path):
    plain_acceptance(sample)
    replace_in(sample, "project.yaml", "    - The open condition", "    - id: AC2\n      text: The open condition")
    assert main(["migrate", str(sample)]) == 0
    ids = [line.split(": ")[1] for line in read(sample, "project.yaml").splitlines() if line.startswith("    - id: AC")]
    assert ids == ["AC3", "AC4", "AC2", "AC5", "AC6", "AC7"]


def test_duplicate_acceptance_ids(sample: Path):
    replace_in(sample, "project.yaml", "    - id: AC4\n", "    - id: AC3\n")
    found = [f for f in validate_project(sample) if f.code == "duplicate-id"]
    assert [(f.object_id, f.line) for f in found] == [("AC3", line_of(read(sample, "project.yaml"), "- id: AC3", 2))]


def test_a_final_criterion_testing_an_unknown_item(sample: Path):
    text = replace_in(sample, FINAL, "    tests:\n      - AC6\n", "    tests:\n      - AC9\n")
    (found,) = validate_project(sample)
    assert (found.code, found.file, found.object_id) == ("unknown-ref", FINAL, "X-06")
    assert found.line == line_of(text, "- AC9")
    assert "'AC9', which is not an acceptance item of project.yaml (its items: AC1, AC2" in found.message


def test_tests_on_a_checkpoint_criterion_is_misplaced(sample: Path):
    replace_in(sample, "subtasks/T06/rubric.yaml", "    propagates:\n      - M12\n",
               "    propagates:\n      - M12\n    tests:\n      - AC2\n")
    (found,) = validate_project(sample)
    assert (found.code, found.object_id) == ("misplaced-tests", "T06-C02")


def test_migrate_refuses_what_it_cannot_read_and_writes_nothing(sample: Path, tmp_path: Path, capsys):
    assert main(["migrate", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: no such folder" in capsys.readouterr().err
    broken = (sample / "project.yaml").read_text(encoding="utf-8") + "extra: [unclosed\n"
    (sample / "project.yaml").write_text(broken, encoding="utf-8")
    assert main(["migrate", str(sample)]) == 2
    err = capsys.readouterr().err
    line = len(broken.splitlines())
    assert f"project.yaml:{line}:" in err and "YAML syntax" in err and "fix the file first" in err
    assert (sample / "project.yaml").read_text(encoding="utf-8") == broken
