"""The background helper's progress and cancel for real: reports reach the UI thread while the work
runs, stop() lets the work end early and still delivers what it finished, cancel() drops it."""

from __future__ import annotations

import threading

from studio.gui.base.tasks import TaskRunner
from studio.progress import Progress, ProgressReport


def _counting(go_on: threading.Event):
    def work(progress: Progress) -> int:
        done = 0
        for step in range(1, 1001):
            if progress.cancelled:
                break
            progress.report(step, 1000, f"step {step}")
            done = step
            if step == 3:
                go_on.wait(10)  # the test looks at the reports, then stops or cancels
        return done
    return work


def test_progress_arrives_and_stop_delivers_what_was_finished(qtbot) -> None:
    runner = TaskRunner()
    go_on = threading.Event()
    reports: list[ProgressReport] = []
    results: list[int] = []
    task = runner.run_with_progress("Counting", _counting(go_on), results.append, on_progress=reports.append)
    qtbot.waitUntil(lambda: len(reports) == 3, timeout=10000)  # while the work waits on its worker thread
    assert reports[-1] == ProgressReport(3, 1000, "step 3") and runner.busy
    task.stop()
    go_on.set()
    qtbot.waitUntil(lambda: results != [], timeout=10000)
    assert results == [3] and task.finished


def test_cancel_stops_the_work_and_drops_its_result(qtbot) -> None:
    runner = TaskRunner()
    go_on = threading.Event()
    results: list[int] = []
    task = runner.run_with_progress("Counting", _counting(go_on), results.append)
    qtbot.waitUntil(lambda: task.progress is not None and task.progress.last is not None
                    and task.progress.last.done == 3, timeout=10000)
    task.cancel()
    go_on.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=10000)
    assert results == [] and task.progress is not None and task.progress.last.done == 3  # stopped at once
