"""The Review view's My queue filter: the current rater's assigned and double-coded decisions, with
their progress in the count line, kept up as they give verdicts by key."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from studio.judging.double_coding import load_plan
from tests.collab.review.review_work_project import SECOND_RUN, cli, review_work_project
from tests.gui.judging.test_review_view import make_view, type_name
from tests.judging.projects import RUN_ID, criterion_id


def test_my_queue_shows_the_raters_own_decisions_with_progress(qtbot, tmp_path: Path) -> None:
    project = review_work_project(tmp_path)
    assert cli("assign", str(project), "Anna", "--subtask", "T02")[0] == 0
    assert cli("assign", str(project), "Anna", "--decision", RUN_ID, "T01", criterion_id(2))[0] == 0
    assert cli("assign", str(project), "Ben", "--criterion", "A-01")[0] == 0
    assert cli("plan", str(project), "--raters", "Anna", "Cleo", "--width", "0.6", "--seed", "4")[0] == 0
    plan = load_plan(project)
    assert plan is not None
    expected = {(run, "T02", c) for run in (RUN_ID, SECOND_RUN) for c in ("T02-C01", "T02-C02", "T02-G01", "T02-N01")}
    expected |= {(RUN_ID, "T01", criterion_id(2))} | {(r.run, r.scope, r.criterion) for r in plan.decisions}

    view, session = make_view(qtbot, project)
    view.my_queue_filter.setChecked(True)
    assert view.proxy.rowCount() == 0  # no name typed yet: nothing is anyone's
    type_name(view, "Anna")
    qtbot.waitUntil(lambda: view.proxy.rowCount() == len(expected))
    shown = {view.proxy.mapToSource(view.proxy.index(row, 0)).row() for row in range(view.proxy.rowCount())}
    assert {session.queue.decisions[position].key for position in shown} == expected
    assert f"my queue: 0 of {len(expected)} given" in view.count.text()

    view.setFocus()
    QTest.keyClick(view.blind_toggle, Qt.Key.Key_Space)
    first = view.current
    assert first is not None and first.key in expected
    QTest.keyClick(view, Qt.Key.Key_P)  # gives a verdict on the current decision, then moves on
    assert first.reviewed_by("Anna")
    assert f"my queue: 1 of {len(expected)} given" in view.count.text()
    assert view.proxy.rowCount() == len(expected)  # a given decision stays in the queue

    type_name(view, "Ben")
    qtbot.waitUntil(lambda: view.proxy.rowCount() == 2)
    assert "my queue: 0 of 2 given" in view.count.text()
    view.my_queue_filter.setChecked(False)
    assert view.proxy.rowCount() == len(session.queue.decisions) and "my queue" not in view.count.text()


def test_a_bad_assignments_file_is_said_in_the_status_line(qtbot, tmp_path: Path) -> None:
    project = review_work_project(tmp_path)
    (project / "review").mkdir()
    (project / "review/assignments.yaml").write_text("assignments:\n  - rater: Anna\n    subtask: T42\n")
    view, _ = make_view(qtbot, project)
    type_name(view, "Anna")
    view.my_queue_filter.setChecked(True)
    assert view.proxy.rowCount() == 0
    assert "assignments.yaml:3:14: subtask 'T42' is not in the project" in view.status.text()
