"""Garbage collection on the UI thread: a cycle that becomes garbage while a worker thread allocates
is freed on the UI thread, never on the worker (freeing a Qt object there corrupted Qt's heap)."""

from __future__ import annotations

import gc
import sys
import threading

import pytest

from studio.collector import collector, collector_paused
from studio.gui.base.disk_scan import DiskScanner
from studio.gui.base.tasks import TaskRunner
from studio.gui.base.workers import worker_pool


class _Cycle:
    """An object in a reference cycle that says on which thread it was freed."""

    def __init__(self, freed_on: list[str]) -> None:
        self.me = self
        self.freed_on = freed_on

    def __del__(self) -> None:
        self.freed_on.append(threading.current_thread().name)


def _allocate() -> int:
    """Work that allocates enough containers to trigger every generation's collection many times."""
    kept = 0
    for _ in range(200):
        kept += len([[n] for n in range(5000)])
    return kept


def test_a_cycle_dropped_while_a_task_allocates_is_freed_on_the_ui_thread(qtbot) -> None:
    runner = TaskRunner()
    assert not gc.isenabled() and collector.owned
    freed_on: list[str] = []
    _Cycle(freed_on)  # garbage at once: only a collection frees it
    results: list[int] = []
    runner.run("allocate", _allocate, results.append)
    runner.wait()  # the UI thread allocates nothing meanwhile: only the worker could have collected
    assert freed_on == []
    # Once as many objects again are made as start Python's own collection, the UI thread's timer collects.
    keep = [[n] for n in range(gc.get_threshold()[0] + 10)]
    qtbot.waitUntil(lambda: bool(results) and bool(freed_on), timeout=5000)
    assert freed_on == [threading.main_thread().name] and len(keep) > 0


def test_every_pool_of_the_app_takes_the_collector_over(qtbot) -> None:
    collector.hand_back()
    assert gc.isenabled()
    DiskScanner()
    assert not gc.isenabled() and collector.owned
    collector.hand_back()
    from PySide6.QtCore import QObject

    parent = QObject()
    assert worker_pool(parent, threads=2).maxThreadCount() == 2 and not gc.isenabled()
    # and a busy worker hands the interpreter back to the UI thread within a millisecond
    assert sys.getswitchinterval() <= 0.001


def test_a_paused_pass_leaves_an_owned_collector_off_and_a_free_one_on(qapp) -> None:
    collector.hand_back()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    collector.take_over()
    with collector_paused(), collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the UI thread collects, not whichever thread allocates next
    collector.hand_back()
    assert gc.isenabled()


def test_the_ui_thread_makes_the_collections_python_would_have_made(qapp) -> None:
    collector.take_over()
    gc.collect()
    assert collector.collect_if_due() == 0  # nothing allocated since
    freed_on: list[str] = []
    _Cycle(freed_on)
    threshold = gc.get_threshold()[0]
    keep = [[n] for n in range(threshold + 10)]  # past the youngest generation's threshold
    with collector_paused():
        assert collector.collect_if_due() == 0 and freed_on == []  # a pass building objects is left alone
    assert collector.collect_if_due() >= 1 and freed_on == [threading.main_thread().name]
    assert len(keep) == threshold + 10


def test_a_pool_is_made_on_the_ui_thread(qapp) -> None:
    from PySide6.QtCore import QObject

    failures: list[BaseException] = []

    def make() -> None:
        try:
            worker_pool(QObject())
        except RuntimeError as error:
            failures.append(error)

    thread = threading.Thread(target=make)
    thread.start()
    thread.join()
    assert len(failures) == 1 and "UI thread" in str(failures[0])


@pytest.fixture(autouse=True)
def _free_collector():
    yield
    if collector.owned:
        collector.hand_back()


def test_full_collections_on_the_ui_thread_are_spaced_by_their_own_cost(qapp) -> None:
    generations: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            generations.append(info["generation"])

    threshold = gc.get_threshold()
    collector.hand_back()
    collector.take_over()
    gc.callbacks.append(seen)
    try:
        gc.set_threshold(1, 0, 0)  # (collection is off) every generation due after any allocation
        keep: list[list[int]] = []

        def due_collection() -> int:
            keep.extend([n] for n in range(50))
            generations.clear()
            collector.collect_if_due()
            return max(generations)

        assert due_collection() == 1  # none in the first seconds after taking over (the window's start)
        collector._next_full = 0.0
        assert due_collection() == 2  # then a full collection comes when due
        assert due_collection() == 1  # the next is not before 20 times the last one's time
        collector._next_full = 0.0
        assert due_collection() == 2
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*threshold)
