"""Schema errors inside a list name the object by its id, never by a 0-based position; a reused
final-rubric entry holds only reuse_of, covers, review (and tests)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.store.workspace import sample_project
from studio.validation import validate_project
from tests.helpers import line_of, replace_in


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


def messages(root: Path) -> list[tuple[str, int, str, str | None]]:
    return [(f.file, f.line, f.message, f.object_id) for f in validate_project(root)]


def test_weight_above_ten_names_the_criterion(sample: Path) -> None:
    rubric = "subtasks/T05/rubric.yaml"
    text = (sample / rubric).read_text(encoding="utf-8")
    start = text.index("id: T05-C03")
    weight_at = text.index("weight:", start)
    end = text.index("\n", weight_at)
    (sample / rubric).write_text(text[:weight_at] + "weight: 11" + text[end:], encoding="utf-8")
    found = messages(sample)
    line = line_of((sample / rubric).read_text(encoding="utf-8"), "weight: 11")
    assert (rubric, line, "criterion T05-C03: weight must be at most 10", "T05-C03") in found
    assert not any("criteria." in message for _, _, message, _ in found)


def test_unknown_enum_value_names_the_material_and_lists_the_choices(sample: Path) -> None:
    text = replace_in(sample, "materials.yaml", "kind: client_feedback", "kind: client_fedback")
    [finding] = validate_project(sample)
    assert (finding.file, finding.line) == ("materials.yaml", line_of(text, "client_fedback"))
    material = text[:text.index("client_fedback")].rsplit("- id: ", 1)[1].split()[0]
    assert finding.message.startswith(f"material {material}: kind must be one of 'source_record'")
    assert "materials." not in finding.message and finding.object_id == material


def test_nested_field_and_plain_list_item_are_named_in_words(sample: Path) -> None:
    replace_in(sample, "subtasks/T02/rubric.yaml", "status: approved", "status: done")
    text = (sample / "subtasks/T02/rubric.yaml").read_text(encoding="utf-8")
    owner = text[:text.index("status: done")].rsplit("- id: ", 1)[1].split()[0]
    replace_in(sample, "stages.yaml", "      - T03\n", "      - T 03\n")
    found = {message for _, _, message, _ in messages(sample)}
    assert f"criterion {owner}: review.status must be one of 'draft', 'reviewed' or 'approved'" in found
    stage_text = (sample / "stages.yaml").read_text(encoding="utf-8")
    stage = stage_text[:stage_text.index("T 03")].rsplit("- id: ", 1)[1].split()[0]
    items = stage_text[:stage_text.index("T 03")].rsplit("subtasks:", 1)[1].count("- ")
    assert f"stage {stage}: subtasks item {items}: 'T 03' is not a valid id or path here" in found


def test_an_object_without_id_is_named_by_its_place_counted_from_one(sample: Path) -> None:
    text = replace_in(sample, "subtasks/T01/rubric.yaml", "  - id: T01-C02\n", "  - text_only: yes\n")
    lines = text.split("criteria:\n", 1)[1].splitlines()
    place = [line for line in lines if line.startswith("  - ")].index("  - text_only: yes") + 1
    found = {message for _, _, message, _ in messages(sample)}
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place, "th")
    assert f"the {place}{suffix} criterion (it has no id): unknown key 'text_only': remove it or check its spelling" \
        in found


@pytest.mark.parametrize("key, value", [("weight", "3"), ("text", "A different requirement."), ("gate", "true"),
                                        ("propagates", "[M12]"), ("dimension", "usability")])
def test_a_reused_entry_with_another_key_is_an_error(sample: Path, key: str, value: str) -> None:
    text = replace_in(sample, "final/rubric.yaml", "  - reuse_of: T06-C04\n",
                      f"  - reuse_of: T06-C04\n    {key}: {value}\n")
    found = messages(sample)
    line = line_of(text, f"    {key}: {value}")
    assert [(file, at, object_id) for file, at, _, object_id in found] == [("final/rubric.yaml", line, "T06-C04")]
    message = found[0][2]
    assert message.startswith("criterion T06-C04: a reused entry takes only reuse_of, covers, review and tests")
    assert f"remove '{key}'" in message


def test_a_reused_entry_may_carry_its_id_review_and_tests(sample: Path) -> None:
    replace_in(sample, "final/rubric.yaml", "  - reuse_of: T06-C04\n",
               "  - reuse_of: T06-C04\n    id: T06-C04\n    review:\n      status: draft\n")
    assert validate_project(sample) == []
