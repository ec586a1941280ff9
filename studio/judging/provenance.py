"""How the judge came to a verdict, for the review: the request that judged a decision (its tokens,
latency, attempts, the model that answered) and the judging it was part of, read from the cost files
beside the verdicts (studio/judging/costs.py); for the agent judge, the conversation that decided it,
step by step with its tool calls (studio/judging/traces.py).

`Provenance` keeps what it has read per submission and reads a submission's cost or trace files
again only when that folder changed (a new judging writes a new file), so showing decision after
decision in the review costs a `stat` or two each."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from studio.judging.costs import CostTotals, JudgingCost, RequestCost, costs_dir, submission_costs
from studio.judging.errors import JudgingError

if TYPE_CHECKING:
    from studio.judging.agent_judge import Conversation


@dataclass(frozen=True)
class JudgedBy:
    """The request that gave a judge's verdict on one decision, and its judging."""

    judging: JudgingCost
    request: RequestCost
    number: int  # the request's place in its judging, from 1

    def text(self) -> str:
        """One paragraph for the reviewer: who answered, what the request and the whole judging cost."""
        request, judging = self.request, self.judging
        served = request.served_model or judging.requested_model
        others = len(request.criteria) - 1
        parts = [f"Request {self.number} of {len(judging.requests)} of this judging"
                 + (f", with {others} other criteri{'on' if others == 1 else 'a'}" if others > 0 else "")
                 + (f": {request.outcome} by {served}" if request.outcome in ("answered", "cut off", "refused")
                    else f": {request.outcome}")
                 + (f" (fingerprint {request.fingerprint})" if request.fingerprint else "")]
        if request.usage_reported:
            parts.append(f"{request.prompt_tokens:,} prompt tokens ({request.cached_tokens:,} cached), "
                         f"{request.completion_tokens:,} completion ({request.reasoning_tokens:,} reasoning)")
        else:
            parts.append(f"the server reported no usage (about {request.estimated_prompt_tokens:,} prompt tokens "
                         "estimated)")
        parts.append(f"{request.latency_s:.1f} s, {request.attempts} HTTP attempt{'s' if request.attempts != 1 else ''}")
        if request.error:
            parts.append(request.error)
        totals: CostTotals = judging.totals()
        profile = f"profile {judging.profile}, " if judging.profile else ""
        return (". ".join(parts) + f". The judging of {judging.scope} ({profile}started "
                f"{judging.started.strftime('%Y-%m-%d %H:%M UTC')}): {totals.line()}.")


class Provenance:
    """The cost files of a project's submissions, read once per change of a submission's costs folder."""

    def __init__(self, project_dir: Path) -> None:
        self.project_dir = Path(project_dir)
        self._read: dict[str, tuple[tuple[int, int] | None, dict[tuple[str, str, str], JudgedBy]]] = {}
        self._traces: dict[str, tuple[tuple[int, int] | None, dict[tuple[str, str, str], Conversation]]] = {}

    def conversation(self, submission: str, scope: str, criterion: str, rater: str) -> Conversation | None:
        """The agent judge's last conversation of `rater` that asked about `criterion`; None when the
        verdict was not given by the agent judge."""
        from studio.judging.traces import traces_dir, traces_for

        stamp = _stamp(traces_dir(self.project_dir, submission))
        known = self._traces.get(submission)
        if known is None or known[0] != stamp:
            index: dict[tuple[str, str, str], Conversation] = {}
            for trace in traces_for(self.project_dir, submission) if stamp is not None else []:  # oldest first
                for conversation in trace.conversations:
                    for asked in conversation.criteria:
                        index[(trace.scope, asked, trace.rater)] = conversation
            known = (stamp, index)
            self._traces[submission] = known
        return known[1].get((scope, criterion, rater))

    def judged_by(self, submission: str, scope: str, criterion: str, rater: str) -> JudgedBy | None:
        """The latest request of `rater`'s judgings of `scope` that asked about `criterion`; None when no
        cost file records one (verdicts judged before costs were kept, or given by hand)."""
        return self._index(submission).get((scope, criterion, rater))

    def _index(self, submission: str) -> dict[tuple[str, str, str], JudgedBy]:
        stamp = _stamp(costs_dir(self.project_dir, submission))
        known = self._read.get(submission)
        if known is not None and known[0] == stamp:
            return known[1]
        index: dict[tuple[str, str, str], JudgedBy] = {}
        if stamp is not None:
            for judging in submission_costs(self.project_dir, submission):  # oldest first: the latest wins
                for number, request in enumerate(judging.requests, 1):
                    for criterion in request.criteria:
                        index[(judging.scope, criterion, judging.rater)] = JudgedBy(judging, request, number)
        self._read[submission] = (stamp, index)
        return index


def _stamp(folder: Path) -> tuple[int, int] | None:
    """What changes when a file is added to `folder` (None: no folder)."""
    try:
        info = os.stat(folder)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_ino


def judged_by_text(provenance: Provenance, submission: str, scope: str, criterion: str, rater: str) -> str:
    """What the review shows under the judge's rationale: the request's provenance, or why there is none."""
    try:
        found = provenance.judged_by(submission, scope, criterion, rater)
    except JudgingError as error:
        return str(error)
    if found is None:
        return "No cost record for this verdict (judged before costs were kept, or imported)."
    return found.text()


def trace_of(provenance: Provenance, submission: str, scope: str, criterion: str, rater: str) -> list[str] | None:
    """The lines of the agent judge's conversation that decided the verdict (as `dbstudio judge
    --trace` prints them); None when it was not the agent judge's, or its trace cannot be read
    (then the lines say why)."""
    from studio.judging.traces import conversation_lines

    try:
        found = provenance.conversation(submission, scope, criterion, rater)
    except JudgingError as error:
        return [str(error)]
    return None if found is None else conversation_lines(found)
