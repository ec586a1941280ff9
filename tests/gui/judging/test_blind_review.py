"""Blind review in every view that shows verdicts (defect 4 of issue 21): a rater reviewing blind sees
no judge's, other rater's or adjudicated verdict of a decision before giving theirs; after giving it
they do; an adjudicator sees everything. The views share one RaterIdentity (the project context's).

The project of tests/judging/review_project.py (T01: C1..C10, weights 5, 3, 2, 4, -2, 1, 3, 2, 5, -3,
W+ = 25), with:

    criterion   1  2  3  4  5  6  7  8  9  10
    judge       P  P  F  P  F  P  F  P  P  F
    Anna        P  P  P  -  -  -  -  -  -  -
    Ben         P  F  F  F  F  -  -  -  -  -
    adjudicated    F        P                    (both by Carla)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.adjudication_view import AdjudicationView
from studio.gui.judging.agreement_view import AgreementView
from studio.gui.judging.review_models import ReviewSession
from studio.gui.judging.review_view import ReviewView
from studio.gui.judging.scores_view import ScoresView
from studio.gui.rubric.editor import RubricEditor
from studio.judging.queue import ReviewQueue
from studio.judging.verdict_store import VerdictStore
from tests.judging.projects import RUN_ID, criterion_id
from tests.judging.review_project import JUDGE, review_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = review_project(tmp_path)
    queue = ReviewQueue.of_project(root)
    decisions = queue.decisions
    for number, value in enumerate(("pass", "pass", "pass")):
        queue.give(decisions[number], "Anna", value)
    for number, value in enumerate(("pass", "fail", "fail", "fail", "fail")):
        queue.give(decisions[number], "Ben", value)
    queue.adjudicate(decisions[1], "fail", by="Carla")
    queue.adjudicate(decisions[3], "pass", by="Carla")
    return root


@pytest.fixture
def context(project: Path) -> ProjectContext:
    context = ProjectContext(ProjectSession(project))
    context.rater_identity().set_name("Anna")  # blind and a rater: the defaults
    assert context.rater_identity().blind and context.rater_identity().role == "rater"
    return context


def review_session(context: ProjectContext) -> ReviewSession:
    return ReviewSession(ReviewQueue.of_project(context.session.root), identity=context.rater_identity())


def shown_widget(qtbot, widget):
    qtbot.addWidget(widget)
    widget.resize(1366, 768)
    widget.show()
    return widget


def test_the_review_hides_every_other_verdict_until_the_rater_gives_theirs(qtbot, context: ProjectContext) -> None:
    session = review_session(context)
    view = shown_widget(qtbot, ReviewView(session, TaskRunner()))
    c4 = session.queue.find(RUN_ID, "T01", criterion_id(4))
    assert view.select_decision(c4)
    # not given: no judge, no Ben, no adjudicated verdict (the defect: "Adjudicated: pass" showed here)
    assert "hidden" in view.judge_verdict.text() and "pass" not in view.judge_verdict.text()
    assert view.judge_rationale.text() == "" and view.judge_refs.count() == 0
    mine = view.your_verdict.text()
    assert "not given" in mine and "Adjudicated" not in mine and "Ben" not in mine and "Carla" not in mine
    row = view.proxy.mapFromSource(view.model.index(3, 0)).row()
    cells = {name: view.proxy.index(row, view.model.COLUMNS.index(name)).data() for name in ("Judge", "Counted")}
    assert cells == {"Judge": "hidden", "Counted": ""}
    # the disagreement filter would tell the judge's verdict apart: only decisions Anna rated (C2, C3)
    view.disagree_filter.setChecked(True)
    listed = [view.model.decision(view.proxy.mapToSource(view.proxy.index(r, 0)).row()).criterion.id
              for r in range(view.proxy.rowCount())]
    assert listed == [criterion_id(2), criterion_id(3)]
    view.disagree_filter.setChecked(False)
    assert view.select_decision(c4)
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_F)  # Anna gives hers: now she sees everyone's
    assert "<b>pass</b>" in view.judge_verdict.text() and view.judge_rationale.text().startswith("Rationale 4")
    mine = view.your_verdict.text()
    assert "Ben: fail" in mine and "Adjudicated:</b> pass, by Carla" in mine
    # an adjudicator sees every verdict of a decision she has not rated
    c5 = session.queue.find(RUN_ID, "T01", criterion_id(5))
    assert view.select_decision(c5) and "hidden" in view.judge_verdict.text()
    view.role_combo.setFocus()
    QTest.keyClick(view.role_combo, Qt.Key.Key_Down)
    assert context.rater_identity().role == "adjudicator"
    assert "<b>fail</b>" in view.judge_verdict.text() and "Ben: fail" in view.your_verdict.text()


def test_the_adjudication_shows_a_blind_rater_only_what_they_rated(qtbot, context: ProjectContext) -> None:
    session = review_session(context)
    view = shown_widget(qtbot, AdjudicationView(session))
    # raters differ on C2, C3 (Anna and Ben) and C4 (judge and Ben); Anna has not rated C4
    assert [d.criterion.id for d in view.model.rows] == [criterion_id(2), criterion_id(3)]
    assert "1 more hidden" in view.heading.text()
    QTest.keyClick(view, Qt.Key.Key_P)  # a rater does not settle
    assert "Adjudicator" in view.status.text()
    assert [v.criterion for v in VerdictStore(context.session.root).read(RUN_ID, "adjudicated")] == [
        criterion_id(2), criterion_id(4)]
    context.rater_identity().set_name("Carla")
    context.rater_identity().set_role("adjudicator")
    assert [d.criterion.id for d in view.model.rows] == [criterion_id(n) for n in (2, 3, 4)]
    assert "hidden" not in view.heading.text() and "by Carla" in view.who.text()
    names = [view.raters.item(r, 0).text() for r in range(view.raters.rowCount())]
    assert names == [JUDGE, "Anna", "Ben", "adjudicated (by Carla)"]
    view.step_by(1)  # C3: settled by Carla, as the view shows
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_P)
    settled = {v.criterion: (v.verdict, v.by) for v in VerdictStore(context.session.root).read(RUN_ID, "adjudicated")}
    assert settled[criterion_id(3)] == ("pass", "Carla")


def test_the_scores_of_a_blind_rater_count_only_what_they_rated(qtbot, context: ProjectContext) -> None:
    runner = TaskRunner()
    view = ScoresView(context, runner)
    view.runner_ref = runner
    shown_widget(qtbot, view)
    qtbot.waitUntil(lambda: view.sheet is not None and not runner.busy, timeout=30000)

    def t01() -> str:
        assert view.sheet is not None
        return view.model.scope_score(view.sheet.runs[0], "T01").text()

    # Anna sees C1 (+5), C2 (adjudicated F), C3 (experts differ): low 5 - 2 - 3 = 0, high 5 + 17 = 22 of 25
    assert t01() == "0.0–88.0" and view.blind_note.isVisible()
    ReviewQueue.of_project(context.session.root).give(
        ReviewQueue.of_project(context.session.root).find(RUN_ID, "T01", criterion_id(4)), "Anna", "fail")
    with qtbot.waitSignal(view.computed, timeout=30000):
        view.refresh()
    # she gave C4: its adjudicated pass counts (+4): low 9 - 5 = 4, high 9 + 13 = 22 of 25
    assert t01() == "16.0–88.0"
    with qtbot.waitSignal(view.computed, timeout=30000):
        view.blind_note.show_all.click()  # Blind off: every verdict
    # C1 +5, C4 +4 (adjudicated), C6 +1, C8 +2, C9 +5 = 17; C3 (weight 2) missing: 68 to 76
    assert t01() == "68.0–76.0" and not view.blind_note.isVisible()


def test_the_agreement_of_a_blind_rater_is_over_what_they_rated(qtbot, context: ProjectContext) -> None:
    runner = TaskRunner()
    view = AgreementView(context, runner, resamples=0)
    view.runner_ref = runner
    shown_widget(qtbot, view)
    qtbot.waitUntil(lambda: view.result is not None and not runner.busy, timeout=60000)
    assert view.result is not None and view.result.report.decisions == 3  # C1..C3, the ones Anna rated
    assert view.blind_note.isVisible()
    with qtbot.waitSignal(view.computed, timeout=60000):
        context.rater_identity().set_role("adjudicator")
    assert view.result is not None and view.result.report.decisions == 10


def test_the_calibration_flags_of_a_blind_rater_are_over_what_they_rated(qtbot, context: ProjectContext) -> None:
    runner = TaskRunner()
    editor = RubricEditor(context, None, runner)
    editor.runner_ref = runner
    shown_widget(qtbot, editor)
    qtbot.waitUntil(lambda: bool(editor.model.calibration) and not runner.busy, timeout=30000)
    # settled by people and seen by Anna: C1 (experts agree) and C2 (adjudicated); not C4 (adjudicated) or C5
    assert sorted(editor.model.calibration) == [("T01", criterion_id(1)), ("T01", criterion_id(2))]
    context.rater_identity().set_blind(False)
    qtbot.waitUntil(lambda: len(editor.model.calibration) == 4 and not runner.busy, timeout=30000)
    assert sorted(editor.model.calibration) == [("T01", criterion_id(n)) for n in (1, 2, 4, 5)]
