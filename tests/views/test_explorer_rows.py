"""The project explorer's rows, computed without Qt (studio.views.explorer)."""

from __future__ import annotations

import shutil
from pathlib import Path

from studio.store.loader import load_project
from studio.store.workspace import sample_project
from studio.views.explorer import Row, child_rows, expands, keyed, top_rows


def test_the_top_rows_and_the_timeline_under_the_project(tmp_path: Path):
    project = load_project(Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))).project
    top = top_rows(project)
    assert [(row.kind, row.object_id) for row in top][:2] == [("project", "kestrel-refinancing"), ("group", "materials")]
    assert all(expands(row) for row in top if row.kind != "rubric")
    stages = child_rows(project, "project", "kestrel-refinancing")
    assert stages and all(row.kind == "stage" for row in stages)
    releases = child_rows(project, "group", "materials")
    assert releases[0].object_id == "start" and releases[0].label == "At the start"
    assert {row.object_id for row in child_rows(project, "release", "start")} >= {"M01", "M02"}


def test_an_id_listed_twice_gets_two_keys():
    rows = [Row("subtask", "T01", "a"), Row("subtask", "T01", "b"), Row("subtask", "T02", "c")]
    assert [key for key, _ in keyed(rows)] == [("subtask", "T01", 0), ("subtask", "T01", 1), ("subtask", "T02", 0)]
