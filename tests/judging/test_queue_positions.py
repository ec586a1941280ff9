"""The review queue's filters answered from its indexes (ReviewQueue.positions): the same
decisions, in the same order, as testing every decision with QueueFilter.accepts, before and after
verdicts are recorded; and the count of an expert's reviews kept as they review."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from studio.judging.queue import QueueFilter, ReviewQueue
from tests.judging.judged_sample_copy import EXPERTS, JUDGE, judged_sample_copy


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return judged_sample_copy(tmp_path_factory.mktemp("positions"))


def filters(queue: ReviewQueue) -> list[QueueFilter]:
    """Every combination of one value per field (or none), with and without the verdict filters."""
    scope = [None, "T05", "final", "T99"]
    dimension = [None, "correctness", "usability"]
    target = [None, "cross-file", "checkpoint"]
    submission = [None, "harness@run-", "folder-c", "nobody"]
    criterion = [None, queue.decisions[3].criterion.id]
    ratings = [{}, {"disagree": True}, {"adjudication": True, "judge": JUDGE}, {"not_reviewed_by": EXPERTS[0]}]
    return [QueueFilter(submission=a, scope=b, criterion=c, target=d, dimension=e, **f)
            for a, b, c, d, e, f in itertools.product(submission, scope, criterion, target, dimension, ratings)]


def by_hand(queue: ReviewQueue, which: QueueFilter) -> list[int]:
    return [position for position, decision in enumerate(queue.decisions) if which.accepts(decision)]


def test_every_filter_gives_the_decisions_accepts_gives_in_queue_order(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    assert len(queue.decisions) == 3 * 99
    assert {d.criterion.dimension for d in queue.decisions} >= {"correctness", "usability"}
    narrowed = 0
    for which in filters(queue):
        expected = by_hand(queue, which)
        assert queue.positions(which) == expected, which
        assert queue.filtered(which) == [queue.decisions[p] for p in expected]
        narrowed += 0 < len(expected) < len(queue.decisions)
    assert narrowed > 100  # the filters above do narrow the queue, and differently
    assert queue.values("scope")[:2] == ["T01", "T02"] and queue.values("scope")[-1] == "final"


def test_positions_follow_recorded_verdicts_and_the_review_count_is_kept(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    expert = "Anna Berg"
    mine = QueueFilter(not_reviewed_by=expert, dimension="correctness")
    before = queue.positions(mine)
    assert queue.reviewed_count(expert) == 0 and queue.reviewed_count(EXPERTS[0]) == sum(
        1 for d in queue.decisions if EXPERTS[0] in d.ratings)
    for position in before[:5]:
        queue.give(queue.decisions[position], expert, "fail")
    queue.give(queue.decisions[before[0]], expert, "pass")  # again: still one decision reviewed
    assert queue.positions(mine) == before[5:] == by_hand(queue, mine)
    assert queue.reviewed_count(expert) == 5
    disagree = QueueFilter(disagree=True, dimension="correctness")
    assert queue.positions(disagree) == by_hand(queue, disagree)
    queue.reload()  # read again from the store: the same
    assert queue.reviewed_count(expert) == 5 and queue.positions(mine) == before[5:]


def test_recording_a_verdict_does_not_load_the_project_again(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import studio.store.loader

    queue = ReviewQueue.of_project(project)

    def no_loading(*_args: object) -> None:
        raise AssertionError("the project was loaded again to sort the verdict file")

    monkeypatch.setattr(studio.store.loader, "load_project", no_loading)
    queue.give(queue.decisions[98], "Anna Berg", "pass")  # the first submission's last, a final criterion
    queue.give(queue.decisions[0], "Anna Berg", "fail")
    lines = (project / "verdicts" / queue.decisions[0].submission / "anna-berg.yaml").read_text(encoding="utf-8")
    assert lines.index("scope: T01") < lines.index("scope: final")  # along the timeline


def test_the_index_made_with_the_decisions_lists_each_value_where_it_first_comes(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    fields = {"submission": lambda d: d.submission, "scope": lambda d: d.scope, "criterion": lambda d: d.criterion.id,
              "target": lambda d: d.criterion.target, "dimension": lambda d: d.criterion.dimension}
    for name, field in fields.items():
        first_seen = list(dict.fromkeys(field(d) for d in queue.decisions))
        assert queue.values(name) == first_seen, name
        for value in first_seen:
            expected = [p for p, d in enumerate(queue.decisions) if field(d) == value]
            assert queue._positions[name][value] == expected, (name, value)
    assert all(queue.index_of(d) == p for p, d in enumerate(queue.decisions))
    assert queue.find(*queue.decisions[-1].key) is queue.decisions[-1]
