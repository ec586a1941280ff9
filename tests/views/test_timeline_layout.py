"""The release timeline's layout, computed without Qt from the sample project."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.store.loader import load_project
from studio.store.workspace import sample_project
from studio.views.timeline import KIND_LABELS, TimelineLayout, timeline_layout


@pytest.fixture(scope="module")
def sample() -> TimelineLayout:
    return timeline_layout(load_project(sample_project()).project)


def test_subtasks_follow_the_timeline_left_to_right(sample: TimelineLayout):
    ids = [mark.subtask_id for mark in sample.subtasks]
    assert ids == [f"T{n:02d}" for n in range(1, 11)]
    xs = [mark.box.x for mark in sample.subtasks]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    assert [mark.position for mark in sample.subtasks] == list(range(1, 11))
    assert {mark.subtask_id: mark.stage_id for mark in sample.subtasks}["T05"] == "S2"


def test_stages_are_bands_over_their_subtasks(sample: TimelineLayout):
    assert [band.stage_id for band in sample.bands] == ["S1", "S2", "S3", "S4"]
    marks = {mark.subtask_id: mark.box for mark in sample.subtasks}
    s1 = sample.bands[0].box
    assert s1.x == marks["T01"].x and s1.right == marks["T03"].right
    for left, right in zip(sample.bands, sample.bands[1:]):
        assert left.box.right <= right.box.x  # bands never overlap


def test_one_release_point_at_start_and_before_each_subtask(sample: TimelineLayout):
    assert [point.before for point in sample.release_points] == [None] + [f"T{n:02d}" for n in range(1, 11)]
    assert sample.release_points[0].label == "At start"
    marks = {mark.subtask_id: mark.box for mark in sample.subtasks}
    for point in sample.release_points[1:]:
        assert point.x == marks[point.before].x  # a release point is the left edge of its subtask


def test_material_chips_sit_at_their_release_point(sample: TimelineLayout):
    assert len(sample.chips) == 18
    points = {point.before: point.x for point in sample.release_points}
    m12 = sample.chip("M12")
    assert m12 is not None and m12.release == "T06" and m12.kind == "client_feedback"
    assert points["T06"] <= m12.box.x < points["T07"]
    m01 = sample.chip("M01")
    assert m01 is not None and m01.release is None and m01.box.right < points["T01"]
    # chips released at one point are stacked, never on top of each other
    boxes = [(chip.box.x, chip.box.y) for chip in sample.chips]
    assert len(set(boxes)) == len(boxes)


def test_chips_know_their_kind_provenance_and_users(sample: TimelineLayout):
    m14 = sample.chip("M14")
    assert m14 is not None and m14.generated and m14.kind == "scripted_feedback" and m14.file is None
    assert m14.kind_label == KIND_LABELS["scripted_feedback"] == "Scripted feedback (generated)"
    m02 = sample.chip("M02")
    assert m02 is not None and m02.provenance == "reconstructed_material"
    assert m02.used_by[:2] == ("T01", "T03") and m02.late_for == ()
    assert {chip.kind for chip in sample.chips} == set(KIND_LABELS)


def test_a_correction_is_an_arrow_from_the_correcting_chip_to_the_corrected_one(sample: TimelineLayout):
    assert {(arrow.source, arrow.target) for arrow in sample.arrows} == {("M12", "M02"), ("M12", "M09")}
    m12, m02 = sample.chip("M12"), sample.chip("M02")
    assert m12 is not None and m02 is not None
    arrow = next(a for a in sample.arrows if a.target == "M02")
    assert arrow.start == (m12.box.x, m12.box.centre()[1])
    assert arrow.end == (m02.box.right, m02.box.centre()[1])


def test_evaluator_references_have_their_own_lane_below_the_materials(sample: TimelineLayout):
    assert [ref.reference_id for ref in sample.references] == ["R01", "R02", "R03", "R04"]
    assert sample.evaluator_lane.y >= sample.material_lane.bottom
    for ref in sample.references:
        assert sample.evaluator_lane.y < ref.box.y and ref.box.bottom <= sample.evaluator_lane.bottom
    marks = {mark.subtask_id: mark.box for mark in sample.subtasks}
    r03 = next(ref for ref in sample.references if ref.reference_id == "R03")
    assert r03.box.x > marks["T08"].x and r03.scopes[-1] == "final"  # under the first subtask it serves
    assert all(chip.box.bottom <= sample.material_lane.bottom for chip in sample.chips)
    assert sample.height >= sample.evaluator_lane.bottom and sample.width >= max(c.box.right for c in sample.chips)


def test_the_release_point_under_a_dropped_x(sample: TimelineLayout):
    points = {point.before: point.x for point in sample.release_points}
    assert sample.release_at(0) is None
    assert sample.release_at(points["T01"] - 1) is None
    assert sample.release_at(points["T04"] + 5) == "T04"
    assert sample.release_at(points["T05"] - 1) == "T04"
    assert sample.release_at(sample.width + 100) == "T10"


def test_a_material_released_after_a_subtask_using_it_is_late_for_that_subtask(tmp_path: Path):
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    text = (root / "materials.yaml").read_text(encoding="utf-8")
    # M08 (used by T03) released before T05 instead of before T03
    moved = text.replace("      at: before\n      subtask: T03\n", "      at: before\n      subtask: T05\n", 1)
    assert moved != text
    (root / "materials.yaml").write_text(moved, encoding="utf-8")
    layout = timeline_layout(load_project(root).project)
    m08 = layout.chip("M08")
    assert m08 is not None and m08.release == "T05"
    assert m08.late_for == ("T03", "T04") and "T05" in m08.used_by


def test_a_project_without_materials_or_references_still_lays_out(tmp_path: Path):
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    (root / "materials.yaml").write_text("materials: [\n", encoding="utf-8")  # unreadable: left out
    layout = timeline_layout(load_project(root).project)
    assert layout.chips == [] and layout.arrows == [] and len(layout.subtasks) == 10
    assert layout.material_lane.height > 0


def test_without_a_readable_timeline_every_chip_waits_in_the_last_column(tmp_path: Path):
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    (root / "stages.yaml").write_text("stages: [\n", encoding="utf-8")
    layout = timeline_layout(load_project(root).project)
    assert layout.subtasks == [] and layout.bands == []
    m01, m06 = layout.chip("M01"), layout.chip("M06")
    assert m01 is not None and m06 is not None
    assert m01.box.x < m06.box.x  # at start stays first; before an unscheduled subtask goes last
    assert m06.used_by == () and m06.late_for == ()  # with no order, no subtask is known to come first
