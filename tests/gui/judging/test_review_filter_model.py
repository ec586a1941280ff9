"""The review queue's filter model at volume: rows from the queue's indexes (no filter call per row
from Qt), rows leaving and joining as verdicts are recorded, checked by pytest-qt's model tester,
on a copy of the sample with three judged submissions (297 decisions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.review_models import QueueFilterModel, QueueModel, ReviewSession
from studio.gui.judging.review_view import ReviewView
from studio.judging.queue import QueueFilter, ReviewQueue
from tests.judging.judged_sample_copy import judged_sample_copy

EXPERT = "Anna Berg"


@pytest.fixture
def session(qtbot, tmp_path: Path) -> ReviewSession:
    made = ReviewSession(ReviewQueue.of_project(judged_sample_copy(tmp_path)))
    made.set_rater(EXPERT)
    return made


def rows_of(proxy: QueueFilterModel) -> list[int]:
    return [proxy.mapToSource(proxy.index(row, 0)).row() for row in range(proxy.rowCount())]


def by_hand(session: ReviewSession, which: QueueFilter) -> list[int]:
    return [p for p, d in enumerate(session.queue.decisions) if which.accepts(d)]


def test_the_filtered_queue_passes_the_model_tester_as_verdicts_are_recorded(qtbot, qtmodeltester,
                                                                             session: ReviewSession) -> None:
    model = QueueModel(session)
    proxy = QueueFilterModel()
    proxy.setSourceModel(model)
    assert rows_of(proxy) == list(range(297))
    which = QueueFilter(dimension="correctness", not_reviewed_by=EXPERT)
    proxy.set_filter(which)
    qtmodeltester.check(proxy)
    shown = rows_of(proxy)
    assert shown == by_hand(session, which) and 0 < len(shown) < 297
    removed: list[tuple[int, int]] = []
    proxy.rowsRemoved.connect(lambda _parent, first, last: removed.append((first, last)))
    session.give(session.queue.decisions[shown[2]], "fail")  # reviewed: it leaves "not reviewed by me"
    assert removed == [(2, 2)] and rows_of(proxy) == shown[:2] + shown[3:] == by_hand(session, which)
    outside = next(p for p, d in enumerate(session.queue.decisions) if d.criterion.dimension != "correctness")
    session.give(session.queue.decisions[outside], "pass")  # not in the filter: nothing moves
    assert rows_of(proxy) == by_hand(session, which)
    proxy.set_filter(QueueFilter(dimension="correctness"))
    assert proxy.mapFromSource(model.index(shown[2], 0)).row() == 2  # back, in its place
    proxy.set_filter(which)
    session.set_rater("Somebody Else")  # every row changes (the view's own filter follows the rater)
    assert rows_of(proxy) == by_hand(session, which)
    elsewhere = ReviewQueue.of_project(session.queue.root)  # another window of the same project
    elsewhere.give(elsewhere.decisions[shown[0]], EXPERT, "pass")
    session.reload()  # read again: the row has left
    assert rows_of(proxy) == by_hand(session, which) == shown[1:2] + shown[3:]
    qtmodeltester.check(proxy)


def test_a_dimension_filter_tests_no_decision_one_by_one(qtbot, session: ReviewSession,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    runner = TaskRunner()
    view = ReviewView(session, runner)
    qtbot.addWidget(view)
    view.show()
    tested: list[object] = []
    accepts = QueueFilter.accepts

    def counted(self: QueueFilter, decision: object) -> bool:
        tested.append(decision)
        return accepts(self, decision)  # type: ignore[arg-type]

    monkeypatch.setattr(QueueFilter, "accepts", counted)
    for index in range(1, view.dimension_filter.count()):
        view.dimension_filter.setCurrentIndex(index)
        name = view.dimension_filter.currentText()
        assert rows_of(view.proxy) == by_hand(session, QueueFilter(dimension=name))
        assert view.current is not None and view.current.criterion.dimension == name
    assert view.count.text().startswith(f"{view.proxy.rowCount()} of 297 decisions")
    tested.clear()
    view.dimension_filter.setCurrentIndex(2)
    view.scope_filter.setCurrentIndex(3)
    assert tested == []  # answered from the queue's indexes
    qtbot.waitUntil(lambda: not runner.busy)


def test_stepping_within_a_subtask_lays_its_instruction_out_once(qtbot, session: ReviewSession) -> None:
    runner = TaskRunner()
    view = ReviewView(session, runner)
    qtbot.addWidget(view)
    view.show()
    laid_out: list[str] = []
    set_markdown = view.instruction.setMarkdown
    view.instruction.setMarkdown = lambda text: (laid_out.append(text), set_markdown(text))  # type: ignore[method-assign]
    first_scope = view.current.scope
    same = sum(1 for d in session.queue.decisions[:99] if d.scope == first_scope)
    for _ in range(same - 1):
        view.step_by(1)
    assert view.current.scope == first_scope and laid_out == []  # T01's instruction, shown from the start
    view.step_by(1)  # into the next subtask: its instruction
    assert view.current.scope != first_scope and len(laid_out) == 1
    assert f"subtask {view.current.scope}" in view.instruction.toPlainText()
    view.step_by(-1)
    assert len(laid_out) == 2 and f"subtask {first_scope}" in view.instruction.toPlainText()
    qtbot.waitUntil(lambda: not runner.busy)


def test_a_verdict_that_makes_raters_differ_inserts_its_adjudication_row(qtbot, qtmodeltester,
                                                                         session: ReviewSession) -> None:
    from studio.gui.judging.review_models import AdjudicationModel

    session.set_blind(False)
    queue = session.queue
    session.give(queue.decisions[0], "na")  # the rater's column exists from here on
    model = AdjudicationModel(session)
    qtmodeltester.check(model)
    resets: list[int] = []
    inserted: list[tuple[int, int]] = []
    model.modelReset.connect(lambda: resets.append(1))
    model.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    agreeing = [d for d in queue.decisions if not d.raters_differ() and (judge := d.judge_verdict()) is not None
                and judge.verdict in ("pass", "fail")]
    for decision in agreeing[-3:]:  # late in the queue, so rows come after others
        judge = decision.judge_verdict()
        assert judge is not None
        session.give(decision, "fail" if judge.verdict == "pass" else "pass")
    assert not resets and len(inserted) == 3
    fresh = AdjudicationModel(session)
    assert model.rows == fresh.rows and model.hidden == fresh.hidden
    assert [model.rows.index(d) for d in agreeing[-3:]] == [first for first, _ in inserted]
    qtmodeltester.check(model)
    session.set_blind(True)  # blind again: the rows are those the rater has rated, as a fresh list gives
    fresh = AdjudicationModel(session)
    assert model.rows == fresh.rows and model.hidden == fresh.hidden
