"""The LLM judge: a verdict per criterion on one submission, through any OpenAI-compatible endpoint.

Criteria with a programmatic check `as: criterion` are decided by the check. The others are judged by
the protocol (studio/judging/protocol.py) unless a stored judge verdict has the same reuse key: a hash
of the evidence content, the criterion's text, weight and covered files, the model, the prompt version, the
instruction (or delivery contract) and the evaluator references. What the endpoint never answers is
stored as "missing", never guessed, with the reason (the server's own message when it refused).

The request is shaped by the settings (studio/judging/request_shape.py); a prompt that cannot fit the
context window is never sent. Every request's cost and provenance is written beside the verdicts
(studio/judging/costs.py), and the verdicts' rater is the model that answered ("judge:SERVED"), the
requested model recorded beside it. `dry_run` builds the requests, estimates them and sends nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from studio.judging.agent_judge import (
    AGENT_PROMPT_VERSION,
    DEFAULT_STEPS,
    DEFAULT_TOKENS,
    AgentBudget,
    BudgetSpent,
    Conversation,
    agent_messages,
    converse,
)
from studio.judging.agent_tools import TOOLS_TOKENS, SubmissionTools
from studio.judging.client import (
    AnswerCutOff,
    AttemptFailed,
    ChatClient,
    Completion,
    EndpointError,
    RequestRefused,
    api_key,
)
from studio.judging.costs import CostTotals, JudgingCost, RequestCost
from studio.judging.errors import JudgingError
from studio.judging.prompt import (
    PROMPT_VERSION,
    AnsweredVerdict,
    AskedCriterion,
    ScopeContext,
    fence_token,
    messages,
    parse_answer,
    stored_verdict,
)
from studio.judging.protocol import ProtocolSettings, batches_of, run_protocol
from studio.judging.request_shape import DEFAULT_TIMEOUT_S, RequestShape, estimated_tokens
from studio.judging.scope import ScopedCriterion, scope_context, scope_criteria
from studio.judging.submission import Submission

if TYPE_CHECKING:
    from studio.judging.evidence_batches import Coverage, EvidencePlan
    from studio.judging.profiles import JudgeProfile
    from studio.judging.verdicts import Verdict
    from studio.store.loader import LoadedProject

JUDGE_RATER_PREFIX = "judge:"
VerdictWord = Literal["pass", "fail", "missing"]
# Images given to a multimodal judge: at most this many, each at most this large.
MAX_IMAGES = 8
MAX_IMAGE_BYTES = 4 << 20


@dataclass(frozen=True)
class JudgeSettings:
    base_url: str
    model: str
    batch: int = 8
    parallel: int = 4
    attempts: int = 2
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries_http: int = 5
    prompt_version: str = PROMPT_VERSION
    backoff_s: float = 1.0  # the first wait before retrying a 429 or 5xx without Retry-After
    images: bool = False  # give the submission's images to a multimodal model
    temperature: float | None = None  # None: not sent (the server's default)
    reasoning_effort: str | None = None
    max_output_tokens: int | None = None
    output_tokens_parameter: str = "max_tokens"
    structured_output: str = "json_object"
    context_window: int | None = None  # tokens; a prompt that cannot fit is not sent
    profile: str | None = None  # the profile's name, recorded with the costs
    mode: str = "batch"  # "agent": the model reads the submission through tools (studio/judging/agent_judge.py)
    agent_steps: int = DEFAULT_STEPS  # agent mode: model turns that call tools, per conversation
    agent_tokens: int = DEFAULT_TOKENS  # agent mode: prompt and completion tokens, per conversation

    def __post_init__(self) -> None:
        low = [name for name in ("batch", "parallel", "attempts") if getattr(self, name) < 1]
        if low:
            raise JudgingError(f"{', '.join(low)} must be at least 1")
        if self.timeout_s <= 0:
            raise JudgingError("the request timeout must be more than 0 seconds")
        if not self.model.strip():
            raise JudgingError("no judge model: give --model or set OPENAI_MODEL")
        if self.structured_output not in ("json_schema", "json_object", "none"):
            raise JudgingError(f"structured output '{self.structured_output}': give json_schema, json_object or none")
        if self.output_tokens_parameter not in ("max_completion_tokens", "max_tokens"):
            raise JudgingError(f"output tokens parameter '{self.output_tokens_parameter}': give "
                               "max_completion_tokens or max_tokens")
        small = [name for name in ("max_output_tokens", "context_window")
                 if getattr(self, name) is not None and getattr(self, name) < 1]
        if small:
            raise JudgingError(f"{', '.join(small)} must be at least 1")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise JudgingError("the temperature must be between 0 and 2")
        if self.mode not in ("batch", "agent"):
            raise JudgingError(f"judge mode '{self.mode}': give batch or agent")
        if self.agent_steps < 0 or self.agent_tokens < 1:
            raise JudgingError("the agent judge's step budget must be at least 0 and its token budget at least 1")

    @property
    def agent(self) -> bool:
        return self.mode == "agent"

    @property
    def rater(self) -> str:
        """The rater named after the requested model (the served model's name replaces it once known)."""
        return JUDGE_RATER_PREFIX + self.model

    @property
    def shape(self) -> RequestShape:
        return RequestShape(self.temperature, self.reasoning_effort, self.max_output_tokens,
                            self.output_tokens_parameter, self.structured_output)

    def describe(self) -> str:
        """What the requests send and how the judging runs, in one line (the CLI and the app show it)."""
        sent = [f"temperature {self.temperature:g}" if self.temperature is not None else "no temperature"]
        if self.reasoning_effort:
            sent.append(f"reasoning effort {self.reasoning_effort}")
        if self.max_output_tokens:
            sent.append(f"{self.output_tokens_parameter} {self.max_output_tokens:,}")
        sent.append(f"answers as {self.structured_output.replace('none', 'plain text')}")
        profile = f" (profile {self.profile})" if self.profile else ""
        window = f", context window {self.context_window:,}" if self.context_window else ""
        agent = (f"; agent judge: the model reads the files through tools, at most {self.agent_steps} tool steps "
                 f"and {self.agent_tokens:,} tokens per conversation" if self.agent else "")
        return (f"{self.model} at {self.base_url}{profile}: {', '.join(sent)}{window}; batches of {self.batch}, "
                f"{self.parallel} at once, {self.attempts} attempts, {self.timeout_s:g} s per request{agent}")

    @classmethod
    def from_profile(cls, profile: JudgeProfile, *, base_url: str, model: str, name: str | None = None,
                     **more: Any) -> JudgeSettings:
        """Settings from a profile; `base_url` and `model` where the profile has none; `more` over both."""
        values: dict[str, Any] = dict(
            base_url=profile.endpoint or base_url, model=profile.model or model, batch=profile.batch,
            parallel=profile.parallel, attempts=profile.attempts, timeout_s=profile.timeout_s,
            temperature=profile.temperature, reasoning_effort=profile.reasoning_effort,
            max_output_tokens=profile.max_output_tokens, output_tokens_parameter=profile.output_tokens_parameter,
            structured_output=profile.structured_output, context_window=profile.context_window, profile=name,
            mode=profile.mode, agent_steps=profile.agent_steps, agent_tokens=profile.agent_tokens,
        )
        return cls(**(values | more))


def settings_for(project_dir: Path, profile_name: object, endpoint: str, model: str) -> JudgeSettings:
    """The settings a judge profile (a project file or a preset; none: the defaults) gives, with the endpoint and
    model given over it, as the command line's flags are: what the app's judge fields ask."""
    from studio.judging.profiles import JudgeProfile, load_profile
    from studio.judging.request_shape import DEFAULT_TIMEOUT_S

    endpoint, model = endpoint.strip(), model.strip()
    name = str(profile_name) if profile_name else None
    profile = load_profile(project_dir, name) if name else JudgeProfile(timeout_s=DEFAULT_TIMEOUT_S)
    profile = profile.with_changes(endpoint=endpoint or None, model=model or None)
    return JudgeSettings.from_profile(profile, base_url=endpoint, model=model, name=name)


@dataclass(frozen=True)
class JudgeProgress:
    submission: str
    scope: str
    done: int  # criteria finished with (reused, checked, judged or given up)
    total: int
    phase: str  # "checks", "batch" or "single"
    tokens: int = 0  # prompt and completion tokens spent so far on this submission


@dataclass
class JudgeSummary:
    judged: int = 0
    reused: int = 0
    missing: int = 0
    from_checks: int = 0
    requests: int = 0
    cancelled: bool = False
    missing_ids: list[str] = field(default_factory=list)  # "SCOPE/ID": judging again may resolve them
    costs: CostTotals = field(default_factory=CostTotals)
    refusals: list[str] = field(default_factory=list)  # the server's reasons for requests refused for good
    raters: list[str] = field(default_factory=list)  # who the verdicts are stored under
    estimated_prompt_tokens: int = 0  # dry run: what the requests would send
    planned_requests: int = 0  # dry run: requests the batches would need (attempts not counted)
    too_large: list[str] = field(default_factory=list)  # dry run: "SCOPE/ID" whose request cannot fit
    # "SCOPE/ID" -> why it was not judged (its covered evidence does not fit): judging again does not help
    not_judged: dict[str, str] = field(default_factory=dict)
    budget_spent: list[str] = field(default_factory=list)  # agent judge: conversations that ended on their budget

    def add(self, other: JudgeSummary) -> None:
        self.judged += other.judged
        self.reused += other.reused
        self.missing += other.missing
        self.from_checks += other.from_checks
        self.requests += other.requests
        self.cancelled = self.cancelled or other.cancelled
        self.missing_ids += other.missing_ids
        self.costs.add(other.costs)
        self.refusals += [reason for reason in other.refusals if reason not in self.refusals]
        self.raters += [rater for rater in other.raters if rater not in self.raters]
        self.estimated_prompt_tokens += other.estimated_prompt_tokens
        self.planned_requests += other.planned_requests
        self.too_large += other.too_large
        self.not_judged.update(other.not_judged)
        self.budget_spent += other.budget_spent


class EvidenceLike(Protocol):
    def render(self, file_mark: str = ...) -> str: ...
    def content_key(self) -> str: ...


class VerdictStoreLike(Protocol):
    def read(self, submission_id: str, rater: str) -> list[Verdict]: ...
    def put(self, submission_id: str, verdicts: Sequence[Verdict]) -> None: ...


def reuse_key(
    evidence_key: str, criterion: AskedCriterion, model: str, prompt_version: str, context: ScopeContext,
    reasoning_effort: str | None = None,
) -> str:
    """The hash a stored judge verdict must match to be reused. A reasoning effort, when one is set,
    is part of it (a verdict thought out at low effort is not reused for a judging at high effort)."""
    parts: list[Any] = [
        evidence_key,
        criterion.text,
        criterion.weight,
        criterion.gate,
        criterion.check_note,
        list(criterion.covers),  # what its request shows whole
        model,
        prompt_version,
        context.title,
        context.text,
        [[reference.id, reference.title, reference.text] for reference in context.references],
    ]
    if reasoning_effort is not None:  # appended only when set: keys of judgings without one stay as they were
        parts.append(["reasoning_effort", reasoning_effort])
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()


def open_client(settings: JudgeSettings) -> ChatClient:
    return ChatClient(
        settings.base_url,
        settings.model,
        api_key(),
        timeout_s=settings.timeout_s,
        max_retries=settings.max_retries_http,
        backoff_s=settings.backoff_s,
        connections=settings.parallel,
        shape=settings.shape,
    )


def judge_submission(
    project: LoadedProject,
    submission: Submission,
    settings: JudgeSettings,
    store: VerdictStoreLike,
    progress: Callable[[JudgeProgress], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    *,
    client: ChatClient | None = None,
    evidence: EvidenceLike | None = None,
    dry_run: bool = False,
) -> JudgeSummary:
    """Judge every criterion of the submission's scope and store the verdicts (rater "judge:MODEL",
    MODEL the one that answered). What was judged before an EndpointError is stored, and the costs
    written, before the error is raised. `dry_run`: build and estimate the requests, send nothing."""
    if dry_run:
        return _Judging(project, submission, settings, store, None, evidence, progress, cancel).plan()
    own_client = client is None
    chat = client if client is not None else open_client(settings)
    try:
        return _Judging(project, submission, settings, store, chat, evidence, progress, cancel).go()
    finally:
        if own_client:
            chat.close()


class _Judging:
    def __init__(
        self,
        project: LoadedProject,
        submission: Submission,
        settings: JudgeSettings,
        store: VerdictStoreLike,
        client: ChatClient | None,
        evidence: EvidenceLike | None,
        progress: Callable[[JudgeProgress], None] | None,
        cancel: Callable[[], bool] | None,
    ) -> None:
        self.submission = submission
        self.settings = settings
        self.store = store
        self.client = client
        self.progress = progress
        self.cancel = cancel
        self.criteria = scope_criteria(project.project, submission.scope)
        self.context = scope_context(project, submission.scope)
        # Criteria covering the same files are asked together, with those files whole (evidence_batches.py);
        # evidence handed in (a test's, a caller's) is given as it is to every request.
        self.evidence_plan: EvidencePlan | None = None
        self._token: str | None = None  # the fence token of every request of the submission
        self.coverage: dict[str, Coverage] = {}
        if evidence is None:
            from studio.judging.evidence_batches import EvidencePlan, coverage, scope_outputs

            self.coverage = {scoped.id: coverage(project.project, submission.scope, scoped.own)
                             for scoped in self.criteria  # what a check decides is never asked
                             if scoped.check is None or _check_role(scoped.check) != "criterion"}
            self.evidence_plan = EvidencePlan(submission.folder, list(dict.fromkeys(self.coverage.values())),
                                     scope_outputs(project.project, submission.scope))
            evidence = self.evidence_plan.whole
        self.evidence = evidence
        # the agent judge opens the images it wants through its tools
        self.images = _image_urls(evidence, submission.folder) if settings.images and not settings.agent else []
        self.prompt_version = AGENT_PROMPT_VERSION if settings.agent else settings.prompt_version
        self.conversations: list[Conversation] = []
        self.budget_reasons: set[str] = set()
        self.tools = SubmissionTools(submission.folder, settings.images) if settings.agent else None
        self.summary = JudgeSummary()
        self.done = 0
        self.rater = settings.rater
        self.project_dir: Path | None = getattr(store, "project_dir", None)
        self.cost = JudgingCost(submission.id, submission.scope, settings.rater, settings.model,
                                settings.base_url, settings.profile, datetime.now(UTC))
        self._cost_lock = threading.Lock()

    def _report(self, count: int, phase: str) -> None:
        self.done += count
        if self.progress is not None:
            with self._cost_lock:
                spent = sum(r.prompt_tokens + r.completion_tokens for r in self.cost.requests)
            self.progress(
                JudgeProgress(self.submission.id, self.submission.scope, self.done, len(self.criteria), phase, spent)
            )

    def _earlier_rater(self) -> str:
        """Whom the last judging with this model stored its verdicts under (its served model)."""
        if self.project_dir is not None:
            from studio.judging.costs import last_rater

            earlier = last_rater(self.project_dir, self.submission.id, self.settings.model)
            if earlier is not None:
                return earlier
        return self.settings.rater

    def _questions(self, rater: str) -> tuple[list[Verdict], dict[str, tuple[ScopedCriterion, AskedCriterion, str]]]:
        """(verdicts of the checks that changed, the criteria to ask the judge with their reuse keys)."""
        from studio.judging.verdicts import criterion_version

        scope = self.submission.scope
        self.rater = rater
        self.all_checked: list[Verdict] = []
        self.all_blind: list[Verdict] = []  # missing: covered evidence that does not fit
        stored = {v.criterion: v for v in self.store.read(self.submission.id, rater) if v.scope == scope}
        content_key = self.evidence.content_key()
        new: list[Verdict] = []
        asked: dict[str, tuple[ScopedCriterion, AskedCriterion, str]] = {}
        for scoped in self.criteria:
            check = scoped.check
            role = _check_role(check) if check is not None else None
            if role == "criterion":
                checked = self._checked(scoped, check)
                self.all_checked.append(checked)
                if not _same_outcome(stored.get(scoped.id), checked):  # unchanged: no new time in the file
                    new.append(checked)
                continue
            note = _check_note(self.submission.folder, check) if role == "evidence" else None
            question = AskedCriterion(scoped.id, scoped.text, scoped.weight, scoped.scored.gate, note,
                                      self.coverage.get(scoped.id, ()))
            key = reuse_key(content_key, question, self.settings.model, self.prompt_version, self.context,
                            self.settings.reasoning_effort)
            earlier = stored.get(scoped.id)
            if earlier is not None and earlier.key == key and earlier.verdict in ("pass", "fail"):
                self.summary.reused += 1
                continue
            # the agent judge reads a large file in parts: only the batch judge needs it whole in one request
            unfit = (self.evidence_plan.unfit(self.coverage[scoped.id])
                     if self.evidence_plan is not None and not self.settings.agent else None)
            if unfit is not None:  # never judged blind: missing, with the file that does not fit
                blind = _verdict(scoped, scope, "missing", rater, datetime.now(UTC), criterion_version(scoped.scored),
                                 f"not judged: {unfit.reason}", [], key)
                self.all_blind.append(blind)
                if not _same_outcome(stored.get(scoped.id), blind):  # unchanged: no new time in the file
                    new.append(blind)
                self.summary.missing += 1
                self.summary.not_judged[f"{scope}/{scoped.id}"] = unfit.reason
                continue
            asked[scoped.id] = (scoped, question, key)
        return new, asked

    def _fit(self, request: list[dict[str, Any]]) -> tuple[int, str | None]:
        """(the request's estimated prompt tokens, why it cannot fit the context window or None)."""
        estimate = estimated_tokens(request)
        window = self.settings.context_window
        answer = self.settings.max_output_tokens or 0
        if window is not None and estimate + answer > window:
            room = f" and {answer:,} kept for the answer" if answer else ""
            return estimate, (
                f"not sent: the prompt of about {estimate:,} tokens{room} does not fit the context window of "
                f"{window:,} tokens; judge fewer criteria per request (--batch), give less evidence, or a "
                "model with a larger window (--context-window)"
            )
        return estimate, None

    def _request(self, asked: Mapping[str, tuple[ScopedCriterion, AskedCriterion, str]],
                 ids: Sequence[str]) -> list[dict[str, Any]]:
        """The request for `ids`: the submission's shared evidence first, then every file they cover whole
        (the agent judge's first messages: the list of files, no content)."""
        if self.tools is not None:
            return self._agent_start(asked, ids)[0]
        plan = self.evidence_plan
        evidence = plan.evidence(self._covered(ids)) if plan is not None else self.evidence
        return messages(self.context, [asked[cid][1] for cid in ids], evidence, self.images, token=self._token)

    def _batching(self, asked: Mapping[str, tuple[ScopedCriterion, AskedCriterion, str]]) -> Any:
        """Which batch group each asked criterion is in (criteria covering the same files), or None."""
        self._token = self._fence_token([question for _, question, _ in asked.values()]) if asked else None
        if self.evidence_plan is None:
            return None
        keys = self.evidence_plan.batch_keys({cid: self.coverage[cid] for cid in asked}, self.settings.batch)
        return keys.__getitem__

    def plan(self) -> JudgeSummary:
        """The dry run: what judging would ask, estimated, without a request."""
        _, asked = self._questions(self._earlier_rater())
        group_of = self._batching(asked)
        for ids in batches_of(list(asked), self.settings.batch, group_of):
            request = self._request(asked, ids)
            estimate, too_large = self._fit(request)
            self.summary.planned_requests += 1
            self.summary.estimated_prompt_tokens += estimate
            if too_large is not None:
                self.summary.too_large += [f"{self.submission.scope}/{cid}" for cid in ids]
        return self.summary

    def _record(self, ids: Sequence[str], outcome: str, estimate: int, completion: Completion | None = None,
                error: Exception | None = None) -> None:
        cost = RequestCost(list(ids), outcome, estimated_prompt_tokens=estimate)
        if completion is not None:
            usage = completion.usage
            cost.served_model, cost.fingerprint = completion.served_model, completion.fingerprint
            cost.prompt_tokens, cost.completion_tokens = usage.prompt_tokens, usage.completion_tokens
            cost.cached_tokens, cost.reasoning_tokens = usage.cached_tokens, usage.reasoning_tokens
            cost.usage_reported, cost.latency_s, cost.attempts = (
                completion.usage_reported, round(completion.latency_s, 3), completion.attempts)
        if error is not None:
            cost.error = str(error)
            if completion is None:
                cost.attempts = int(getattr(error, "attempts", 0))
                cost.latency_s = round(float(getattr(error, "latency_s", 0.0)), 3)
        with self._cost_lock:
            self.cost.requests.append(cost)

    def _ask(self, asked: Mapping[str, tuple[ScopedCriterion, AskedCriterion, str]],
             ids: Sequence[str]) -> Mapping[str, AnsweredVerdict]:
        assert self.client is not None
        if self.tools is not None:
            return self._converse(*self._agent_start(asked, ids), ids)
        request = self._request(asked, ids)
        estimate, too_large = self._fit(request)
        if too_large is not None:
            refused = RequestRefused(too_large, sent=False)
            self._record(ids, "not sent", estimate, error=refused)
            raise refused
        try:
            completion = self.client.chat(request)
        except AnswerCutOff as exc:
            self._record(ids, "cut off", estimate, exc.completion, exc)
            raise
        except RequestRefused as exc:
            self._record(ids, "refused", estimate, error=exc)
            raise
        except (AttemptFailed, EndpointError) as exc:
            self._record(ids, "failed", estimate, error=exc)
            raise
        try:
            answers = parse_answer(completion.content, ids)
        except AttemptFailed as exc:
            self._record(ids, "failed", estimate, completion, exc)
            raise
        self._record(ids, "answered", estimate, completion)
        return answers

    def _agent_start(self, asked: Mapping[str, tuple[ScopedCriterion, AskedCriterion, str]],
                     ids: Sequence[str]) -> tuple[list[dict[str, Any]], str]:
        """The first messages of an agent conversation for `ids` (the list of files, no content), and
        its fence token: the submission's, unless a file's name holds it."""
        assert self.tools is not None
        listing = self.tools.call("list_files", "{}").text
        token = self._token if self._token is not None and self._token not in listing else fence_token(listing)
        return agent_messages(self.context, [asked[cid][1] for cid in ids], listing, token), token

    def _converse(self, start: list[dict[str, Any]], token: str, ids: Sequence[str]) -> Mapping[str, AnsweredVerdict]:
        """One agent conversation for `ids`, its steps' costs recorded and its trace kept."""
        assert self.client is not None and self.tools is not None
        conversation = Conversation(list(ids))
        with self._cost_lock:
            self.conversations.append(conversation)

        def record(asked: Sequence[str], outcome: str, estimate: int, completion: Completion | None,
                   error: Exception | None) -> None:
            self._record(asked, outcome, estimate, completion, error)

        def fits(messages: list[dict[str, Any]]) -> bool:
            window = self.settings.context_window
            return window is None or (estimated_tokens(messages) + TOOLS_TOKENS
                                      + (self.settings.max_output_tokens or 0) <= window)

        try:
            return converse(self.client, self.tools, start, ids, token,
                            AgentBudget(self.settings.agent_steps, self.settings.agent_tokens), record, conversation,
                            fits, self.cancel)
        except BudgetSpent as exc:
            with self._cost_lock:
                self.budget_reasons.add(str(exc))
            raise

    def _served_rater(self, earlier: str) -> str:
        """The rater the verdicts go under: the model that answered most of this judging's requests,
        else the one of the last judging with the same requested model."""
        counts: dict[str, int] = {}
        for request in self.cost.requests:
            if request.served_model and request.outcome == "answered":
                counts[request.served_model] = counts.get(request.served_model, 0) + 1
        if not counts:
            return earlier
        return JUDGE_RATER_PREFIX + max(sorted(counts), key=lambda name: counts[name])

    def go(self) -> JudgeSummary:
        from studio.judging.verdicts import criterion_version

        scope = self.submission.scope
        earlier = self._earlier_rater()
        new, asked = self._questions(earlier)
        finished = self.summary.reused + self.summary.from_checks + self.summary.missing
        if finished:
            self._report(finished, "checks")
        group_of = self._batching(asked)

        def ask(ids: Sequence[str]) -> Mapping[str, AnsweredVerdict]:
            return self._ask(asked, ids)

        protocol = ProtocolSettings(self.settings.batch, self.settings.parallel, self.settings.attempts)
        outcome = run_protocol(list(asked), ask, protocol, self.cancel, self._report, group_of=group_of)
        rater = self._served_rater(earlier)
        if rater != earlier:  # a new model answered: every check's verdict goes under its name too
            new = [verdict.model_copy(update={"rater": rater}) for verdict in self.all_checked + self.all_blind]
        now = datetime.now(UTC)
        refused = set(outcome.refusals)
        for cid, answer in outcome.resolved.items():
            scoped, question, key = asked[cid]
            new.append(
                _verdict(
                    scoped,
                    scope,
                    stored_verdict(question, answer.holds),
                    rater,
                    now,
                    criterion_version(scoped.scored),
                    answer.rationale or None,
                    answer.evidence,
                    key,
                )
            )
        for cid, reason in outcome.unresolved.items():
            scoped, _, key = asked[cid]
            note = (reason if reason in refused else f"unresolved after {self.settings.attempts} attempt(s) in a "
                    f"batch and {self.settings.attempts} alone: {reason}")
            new.append(_verdict(scoped, scope, "missing", rater, now, criterion_version(scoped.scored), note, [], key))
            self.summary.missing_ids.append(f"{scope}/{cid}")
        self.summary.judged += len(outcome.resolved)
        self.summary.missing += len(outcome.unresolved)
        self.summary.requests += outcome.requests
        self.summary.cancelled = outcome.cancelled
        self.summary.refusals = [reason for reason in outcome.refusals if reason not in self.budget_reasons]
        self.summary.budget_spent = [reason for reason in outcome.refusals if reason in self.budget_reasons]
        self.summary.raters = [rater]
        self.cost.rater = rater
        self.summary.costs = self.cost.totals()
        if new:
            self.store.put(self.submission.id, new)
        if self.cost.requests and self.project_dir is not None:
            from studio.judging.costs import write_cost

            write_cost(self.project_dir, self.cost)
        if self.conversations and self.project_dir is not None:
            from studio.judging.traces import write_trace

            write_trace(self.project_dir, self.submission.id, scope, rater, self.cost.started, self.conversations)
        if outcome.stopped is not None:
            raise outcome.stopped
        return self.summary

    def _covered(self, ids: Sequence[str]) -> Coverage:
        """What a request for `ids` shows whole: every file one of them covers."""
        return tuple(sorted({path for cid in ids for path in self.coverage[cid]}))

    def _fence_token(self, questions: Sequence[AskedCriterion]) -> str:
        """One fence token for every request of the submission, found in none of their texts: the
        requests then share their first part byte for byte, which a provider's prompt cache reuses."""
        # every file's text is in the evidence of the whole submission (a request shows part of it)
        return fence_token(self.evidence.render(), self.context.title, self.context.text,
                           *(reference.text for reference in self.context.references),
                           *(question.line() for question in questions))

    def _checked(self, scoped: ScopedCriterion, check: Any) -> Verdict:
        from studio.judging.checks import run_check
        from studio.judging.verdicts import criterion_version

        now = datetime.now(UTC)
        version = criterion_version(scoped.scored)
        self.summary.from_checks += 1
        try:
            result = run_check(self.submission.folder, check)
        except JudgingError as exc:
            self.summary.missing += 1
            self.summary.missing_ids.append(f"{self.submission.scope}/{scoped.id}")
            return _verdict(
                scoped,
                self.submission.scope,
                "missing",
                self.rater,
                now,
                version,
                f"programmatic check could not run: {exc}",
                [],
                None,
            )
        return _verdict(
            scoped,
            self.submission.scope,
            "pass" if result.passed else "fail",
            self.rater,
            now,
            version,
            f"programmatic check: {result.detail}",
            list(result.refs),
            None,
        )


def _verdict(
    scoped: ScopedCriterion,
    scope: str,
    verdict: VerdictWord,
    rater: str,
    time: datetime,
    version: str,
    note: str | None,
    evidence: list[str],
    key: str | None,
) -> Verdict:
    from studio.judging.verdicts import Verdict

    return Verdict(
        criterion=scoped.id,
        scope=scope,
        verdict=verdict,
        rater=rater,
        time=time,
        criterion_version=version,
        note=note,
        evidence=evidence,
        key=key,
    )


def _same_outcome(earlier: Verdict | None, now: Verdict) -> bool:
    return earlier is not None and (
        earlier.verdict,
        earlier.note,
        list(earlier.evidence),
        earlier.criterion_version,
    ) == (now.verdict, now.note, list(now.evidence), now.criterion_version)


def _check_role(check: Any) -> str:
    """`as:` of a criterion's check: "criterion" (the check is the verdict, the default) or "evidence"."""
    dumped = check.model_dump(by_alias=True) if hasattr(check, "model_dump") else dict(check)
    role = dumped.get("as") or "criterion"
    return str(getattr(role, "value", role))


def _check_note(folder: Path, check: Any) -> str:
    from studio.judging.checks import run_check

    try:
        result = run_check(folder, check)
    except JudgingError as exc:
        return f"could not run: {exc}"
    refs = f" [{', '.join(result.refs)}]" if result.refs else ""
    return f"{'passed' if result.passed else 'failed'}: {result.detail}{refs}"


def _image_urls(evidence: Any, folder: Path) -> list[str]:
    urls = []
    for path in list(getattr(evidence, "images", list)())[:MAX_IMAGES]:
        file = Path(path) if Path(path).is_absolute() else folder / path
        try:
            data = file.read_bytes()
        except OSError:
            continue
        if len(data) <= MAX_IMAGE_BYTES:
            kind = mimetypes.guess_type(file.name)[0] or "image/png"
            urls.append(f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}")
    return urls
