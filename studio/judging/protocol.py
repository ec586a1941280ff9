"""The judging protocol of the paper, every number settable: criteria in batches (8), several batches
at once (4), a few attempts per batch (2), then one criterion at a time for what is still unresolved.

The protocol knows nothing of prompts or HTTP: `ask` sends some criterion ids and returns the answers
it got for some of them, or raises AttemptFailed. What is never answered comes back unresolved with
the last reason, for the caller to store as missing; nothing is guessed. A RequestRefused (the server
refused that request for a reason another attempt cannot change) ends its group at once: no other
attempt, no asking its criteria one at a time; its reason is kept in `refusals`. An AnswerCutOff (the
answer hit the output token limit) ends the group's attempts too, but its criteria are still asked
alone, where the answer is shorter. An EndpointError (the
server cannot be used at all) stops every request not yet sent and is handed back with what was resolved.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from studio.judging.client import AnswerCutOff, AttemptFailed, EndpointError, RequestRefused

T = TypeVar("T")
Ask = Callable[[Sequence[str]], Mapping[str, T]]


@dataclass(frozen=True)
class ProtocolSettings:
    batch: int = 8
    parallel: int = 4
    attempts: int = 2


@dataclass
class Outcome(Generic[T]):
    resolved: dict[str, T] = field(default_factory=dict)
    unresolved: dict[str, str] = field(default_factory=dict)  # id -> why it stayed unresolved
    not_asked: list[str] = field(default_factory=list)  # left when cancelled or stopped
    requests: int = 0
    cancelled: bool = False
    stopped: EndpointError | None = None
    refusals: list[str] = field(default_factory=list)  # each refused request's reason, the server's words


@dataclass
class _Group(Generic[T]):
    ids: list[str]
    resolved: dict[str, T] = field(default_factory=dict)
    reason: str = ""
    requests: int = 0
    fatal: EndpointError | None = None
    refused: bool = False


def batches_of(ids: Sequence[str], batch: int, group_of: Callable[[str], Hashable] | None = None) -> list[list[str]]:
    """The batches the protocol asks first (a dry run counts the same ones): with `group_of`, each
    holds ids of one group only, the groups in the order of their first id."""
    groups: dict[Hashable, list[str]] = {}
    for cid in dict.fromkeys(ids):
        groups.setdefault(group_of(cid) if group_of is not None else None, []).append(cid)
    return [members[i:i + batch] for members in groups.values() for i in range(0, len(members), batch)]


def run_protocol(ids: Sequence[str], ask: Ask[T], settings: ProtocolSettings,
                 cancel: Callable[[], bool] | None = None,
                 on_progress: Callable[[int, str], None] | None = None,
                 group_of: Callable[[str], Hashable] | None = None) -> Outcome[T]:
    """Resolve `ids` through `ask`. `on_progress(count, phase)` is called in the calling thread when
    `count` more ids are finished with (resolved, or given up in the single phase); phase is "batch"
    or "single". With `group_of`, a batch holds ids of one group only (the judge's criteria covering
    the same files), the groups in the order of their first id."""
    if settings.batch < 1 or settings.parallel < 1 or settings.attempts < 1:
        raise ValueError("batch, parallel and attempts must each be at least 1")
    outcome: Outcome[T] = Outcome()
    stop = threading.Event()

    def halted() -> bool:
        if not stop.is_set() and cancel is not None and cancel():
            outcome.cancelled = True
            stop.set()
        return stop.is_set()

    def work(group: _Group[T]) -> _Group[T]:
        for _ in range(settings.attempts):
            wanted = [cid for cid in group.ids if cid not in group.resolved]
            if not wanted or halted():
                break
            group.requests += 1
            try:
                answers = ask(wanted)
            except AnswerCutOff as exc:  # the same request would be cut at the same limit; alone, shorter
                group.reason = str(exc)
                break
            except AttemptFailed as exc:
                group.reason = str(exc)
                continue
            except RequestRefused as exc:
                group.reason, group.refused = str(exc), True
                if not exc.sent:
                    group.requests -= 1
                break
            except EndpointError as exc:
                group.fatal = exc
                stop.set()
                break
            group.resolved.update((cid, answers[cid]) for cid in wanted if cid in answers)
            if len(group.resolved) < len(group.ids):
                group.reason = "the answer gave no valid verdict for it"
        return group

    batches = batches_of(ids, settings.batch, group_of)
    with ThreadPoolExecutor(max_workers=settings.parallel, thread_name_prefix="judge") as pool:
        leftover = _phase(pool, work, batches, "batch", outcome, on_progress)
        singles = [[cid] for cid in leftover]
        if stop.is_set():
            outcome.not_asked += leftover
            singles = []
        for cid, reason in _phase(pool, work, singles, "single", outcome, on_progress).items():
            if stop.is_set() and outcome.stopped is not None or not reason:
                outcome.not_asked.append(cid)
            else:
                outcome.unresolved[cid] = reason
    return outcome


def _phase(pool: ThreadPoolExecutor, work: Callable[[_Group[T]], _Group[T]], groups: list[list[str]], phase: str,
           outcome: Outcome[T], on_progress: Callable[[int, str], None] | None) -> dict[str, str]:
    """Run the groups; the ids left unresolved, with the last reason ("" when never asked)."""
    futures: set[Future[_Group[T]]] = {pool.submit(work, _Group(list(group))) for group in groups}
    left: dict[str, str] = {}
    while futures:
        done, futures = wait(futures, return_when=FIRST_COMPLETED)
        for future in done:
            group = future.result()
            outcome.requests += group.requests
            outcome.resolved.update(group.resolved)
            if group.fatal is not None and outcome.stopped is None:
                outcome.stopped = group.fatal
            rest = [cid for cid in group.ids if cid not in group.resolved]
            if group.refused:
                outcome.refusals.append(group.reason)
                outcome.unresolved.update((cid, group.reason) for cid in rest)
                if on_progress is not None and group.ids:
                    on_progress(len(group.ids), phase)
                continue
            left.update((cid, group.reason if group.requests and group.fatal is None else "") for cid in rest)
            finished = len(group.ids) if phase == "single" and group.requests else len(group.resolved)
            if on_progress is not None and finished:
                on_progress(finished, phase)
    return left
