"""Pausing the cyclic garbage collector while a pass builds many small objects: a review of a
loaded project, or reading a verdict table of tens of thousands of rows.

A loaded project is hundreds of thousands of objects that live as long as the project is open.
Every full collection walks all of them, and a pass that creates many small objects (findings,
tuples, sets) triggers one every few thousand allocations: on a 5,000-criterion project the
collector took more time than the checks. The passes create no reference cycles that must be
freed before they end, so collection waits until they are done.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off; restore its state afterwards (nesting is fine)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
