"""Python's cyclic garbage collector, for the whole program: paused while a pass builds many small
objects, and, in the app, run only on the UI thread.

Pausing. A loaded project is hundreds of thousands of objects that live as long as the project is
open. Every full collection walks all of them, and a pass that creates many small objects (findings,
tuples, sets, verdicts, evidence cells) triggers one every few thousand allocations: on a
5,000-criterion project the collector took more time than the checks. The passes create no reference
cycles that must be freed before they end, so collection waits until they are done. The pause is
counted, so overlapping passes in two threads leave the collector as they found it.

The UI thread. Python collects in whichever thread happens to allocate. In a Qt program a worker
thread that imports a module or compiles a pattern can then free a cycle holding a Qt object (a
closed dialog, a finished task's signals) off the thread that owns it, which corrupts Qt's heap:
the app aborted with "corrupted size vs. prev_size" some seconds later. The window therefore
`take_over()`s the collector before it starts any worker: automatic collection is off from then
on, and its UI thread calls `collect_if_due()` on a timer, with the thresholds Python itself uses.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

FULL_SPACING = 20
"""A full collection on the UI thread follows the last one after at least this many times its duration."""


FIRST_FULL_AFTER_S = 3.0
"""No full collection on the UI thread sooner than this after it takes collection over."""


class _Collector:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0  # passes inside `paused()`
        self._was_enabled = False  # whether automatic collection was on when the first came in
        self._owned = False  # the UI thread collects: automatic collection stays off
        self._next_full = 0.0  # perf_counter() before which collect_if_due makes no full collection
        self._kept = False  # keep_long_lived froze objects that the next full collection takes back

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Run the block with automatic collection off; restore it afterwards, once the last
        overlapping pass (in any thread) ends, and only if it was on before."""
        with self._lock:
            if self._depth == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0 and self._was_enabled and not self._owned:
                    gc.enable()

    @property
    def owned(self) -> bool:
        return self._owned

    def take_over(self) -> None:
        """From now on the caller's thread collects (with `collect_if_due`); no other thread does."""
        with self._lock:
            if not self._owned:  # a start (a window's) is not interrupted by walking every object
                self._next_full = time.perf_counter() + FIRST_FULL_AFTER_S
            self._owned = True
            self._was_enabled = False
            gc.disable()

    def keep_long_lived(self) -> None:
        """A pass has built what lives on (a review queue: about a million objects at 100,000
        decisions): while the UI thread collects (the app), the objects alive now move to Python's
        permanent generation (`gc.freeze`) until the next full collection that is due, which takes them
        back first. The collections in between walk only what was made since: the first full one
        after a load took half a second of the UI thread, in the middle of the reviewer's first keys
        and filters. Reference counting frees frozen objects as before; a reference cycle among them
        (garbage already, or once dropped) waits for that next full collection."""
        with self._lock:
            if self._owned:
                gc.freeze()
                self._kept = True

    def hand_back(self) -> None:
        """Collect once here, then let Python collect automatically again (as before `take_over`)."""
        self._take_back_kept()
        gc.collect()
        with self._lock:
            self._owned = False
            if self._depth == 0:
                gc.enable()
            else:
                self._was_enabled = True

    def collect_if_due(self) -> int:
        """The collections Python would have made by now, made here; the number of objects freed.
        Nothing while a pass is paused (it is building objects that are not garbage).

        A full collection walks every object alive (a loaded project and its verdicts are millions):
        Python makes one only when the objects that survived grew by a quarter; here it waits at
        least FULL_SPACING times as long as the last one took, so full collections take at most a
        twentieth of the UI thread's time."""
        if self._depth:
            return 0
        first, second, third = gc.get_threshold()
        young, middle, old = gc.get_count()
        if young <= first:
            return 0
        if middle + 1 <= second:
            return gc.collect(0)
        now = time.perf_counter()
        if old + 1 <= third or now < self._next_full:
            return gc.collect(1)
        self._take_back_kept()
        freed = gc.collect(2)
        self._next_full = now + FULL_SPACING * (time.perf_counter() - now)
        return freed

    def _take_back_kept(self) -> None:
        """What `keep_long_lived` froze is walked (and its cycles freed) by the full collection to come."""
        if self._kept:
            self._kept = False
            gc.unfreeze()


collector = _Collector()
collector_paused = collector.paused
