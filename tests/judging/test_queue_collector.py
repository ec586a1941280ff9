"""A review queue read in the app is kept out of the cyclic collector's passes until the next full
collection that is due: once the UI thread collects (studio.collector), a reload moves what lives on
into Python's permanent generation, and that full collection takes it back (with any cycle dropped
meanwhile)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from studio.collector import collector
from studio.judging.queue import ReviewQueue
from studio.store.loader import load_project
from tests.judging.review_project import review_project


def walked() -> set[int]:
    """What the collector's passes visit (the permanent generation is not among them)."""
    return {id(item) for item in gc.get_objects()}


class _Node:
    """An object in a reference cycle: only a full collection frees it."""

    def __init__(self) -> None:
        self.itself = self


def test_a_queue_read_in_the_app_waits_for_the_next_full_collection_that_is_due(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    queue = ReviewQueue(load_project(review_project(tmp_path)))
    collector.take_over()  # as the window's worker pool does (the conftest hands it back)
    try:
        node = _Node()
        gone = weakref.ref(node)
        frozen = gc.get_freeze_count()
        queue.reload()
        assert len(queue.decisions) == 10 and gc.get_freeze_count() > frozen
        assert not {id(decision) for decision in queue.decisions} & walked()
        del node
        gc.collect(1)  # a young collection, as the UI thread makes every quarter second
        assert gone() is not None  # frozen with the queue: no collection frees the cycle yet
        monkeypatch.setattr(gc, "get_count", lambda: (10**6, 10**6, 10**6))  # every generation due
        monkeypatch.setattr(collector, "_next_full", 0.0)
        collector.collect_if_due()
        assert gone() is None and gc.get_freeze_count() == 0  # taken back, walked and freed
        assert {id(decision) for decision in queue.decisions} <= walked()
    finally:
        collector.hand_back()


def test_a_queue_read_by_a_script_leaves_the_collector_as_it_was(tmp_path: Path) -> None:
    queue = ReviewQueue(load_project(review_project(tmp_path)))
    assert not collector.owned
    frozen = gc.get_freeze_count()
    queue.reload()
    assert gc.get_freeze_count() == frozen and gc.isenabled()
    assert {id(decision) for decision in queue.decisions} <= walked()
