"""The LLM judge: a verdict per criterion on one submission, through any OpenAI-compatible endpoint.

Criteria with a programmatic check `as: criterion` are decided by the check. The others are judged by
the protocol (studio/judging/protocol.py) unless a stored judge verdict has the same reuse key: a hash
of the evidence content, the criterion's text, weight and covered files, the model, the prompt version, the
instruction (or delivery contract) and the evaluator references. What the endpoint never answers is
stored as "missing", never guessed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from studio.judging.client import ChatClient, api_key
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
from studio.judging.protocol import ProtocolSettings, run_protocol
from studio.judging.scope import ScopedCriterion, scope_context, scope_criteria
from studio.judging.submission import Submission

if TYPE_CHECKING:
    from studio.judging.evidence_batches import Coverage, EvidencePlan
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
    timeout_s: float = 120
    max_retries_http: int = 5
    prompt_version: str = PROMPT_VERSION
    backoff_s: float = 1.0  # the first wait before retrying a 429 or 5xx without Retry-After
    images: bool = False  # give the submission's images to a multimodal model

    def __post_init__(self) -> None:
        low = [name for name in ("batch", "parallel", "attempts") if getattr(self, name) < 1]
        if low:
            raise JudgingError(f"{', '.join(low)} must be at least 1")
        if self.timeout_s <= 0:
            raise JudgingError("the request timeout must be more than 0 seconds")
        if not self.model.strip():
            raise JudgingError("no judge model: give --model or set OPENAI_MODEL")

    @property
    def rater(self) -> str:
        return JUDGE_RATER_PREFIX + self.model


@dataclass(frozen=True)
class JudgeProgress:
    submission: str
    scope: str
    done: int  # criteria finished with (reused, checked, judged or given up)
    total: int
    phase: str  # "checks", "batch" or "single"


@dataclass
class JudgeSummary:
    judged: int = 0
    reused: int = 0
    missing: int = 0
    from_checks: int = 0
    requests: int = 0
    cancelled: bool = False
    missing_ids: list[str] = field(default_factory=list)  # "SCOPE/ID": judging again may resolve them
    # "SCOPE/ID" -> why it was not judged (its covered evidence does not fit): judging again does not help
    not_judged: dict[str, str] = field(default_factory=dict)

    def add(self, other: JudgeSummary) -> None:
        self.judged += other.judged
        self.reused += other.reused
        self.missing += other.missing
        self.from_checks += other.from_checks
        self.requests += other.requests
        self.cancelled = self.cancelled or other.cancelled
        self.missing_ids += other.missing_ids
        self.not_judged.update(other.not_judged)


class EvidenceLike(Protocol):
    def render(self, file_mark: str = ...) -> str: ...
    def content_key(self) -> str: ...


class VerdictStoreLike(Protocol):
    def read(self, submission_id: str, rater: str) -> list[Verdict]: ...
    def put(self, submission_id: str, verdicts: Sequence[Verdict]) -> None: ...


def reuse_key(
    evidence_key: str, criterion: AskedCriterion, model: str, prompt_version: str, context: ScopeContext
) -> str:
    """The hash a stored judge verdict must match to be reused."""
    parts = [
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
) -> JudgeSummary:
    """Judge every criterion of the submission's scope and store the verdicts (rater "judge:MODEL").
    What was judged before an EndpointError is stored before the error is raised."""
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
        client: ChatClient,
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
        self.plan: EvidencePlan | None = None
        self.coverage: dict[str, Coverage] = {}
        if evidence is None:
            from studio.judging.evidence_batches import EvidencePlan, coverage, scope_outputs

            self.coverage = {scoped.id: coverage(project.project, submission.scope, scoped.own)
                             for scoped in self.criteria  # what a check decides is never asked
                             if scoped.check is None or _check_role(scoped.check) != "criterion"}
            self.plan = EvidencePlan(submission.folder, list(dict.fromkeys(self.coverage.values())),
                                     scope_outputs(project.project, submission.scope))
            evidence = self.plan.whole
        self.evidence = evidence
        self.images = _image_urls(evidence, submission.folder) if settings.images else []
        self.summary = JudgeSummary()
        self.done = 0

    def _report(self, count: int, phase: str) -> None:
        self.done += count
        if self.progress is not None:
            self.progress(
                JudgeProgress(self.submission.id, self.submission.scope, self.done, len(self.criteria), phase)
            )

    def go(self) -> JudgeSummary:
        from studio.judging.verdicts import criterion_version

        scope, rater = self.submission.scope, self.settings.rater
        stored = {v.criterion: v for v in self.store.read(self.submission.id, rater) if v.scope == scope}
        content_key = self.evidence.content_key()
        new: list[Verdict] = []
        asked: dict[str, tuple[ScopedCriterion, AskedCriterion, str]] = {}
        for scoped in self.criteria:
            check = scoped.check
            role = _check_role(check) if check is not None else None
            if role == "criterion":
                checked = self._checked(scoped, check)
                if not _same_outcome(stored.get(scoped.id), checked):  # unchanged: no new time in the file
                    new.append(checked)
                continue
            note = _check_note(self.submission.folder, check) if role == "evidence" else None
            question = AskedCriterion(scoped.id, scoped.text, scoped.weight, scoped.scored.gate, note,
                                      self.coverage.get(scoped.id, ()))
            key = reuse_key(content_key, question, self.settings.model, self.settings.prompt_version, self.context)
            earlier = stored.get(scoped.id)
            if earlier is not None and earlier.key == key and earlier.verdict in ("pass", "fail"):
                self.summary.reused += 1
                continue
            unfit = self.plan.unfit(self.coverage[scoped.id]) if self.plan is not None else None
            if unfit is not None:  # never judged blind: missing, with the file that does not fit
                blind = _verdict(scoped, scope, "missing", rater, datetime.now(UTC), criterion_version(scoped.scored),
                                 f"not judged: {unfit.reason}", [], key)
                if not _same_outcome(stored.get(scoped.id), blind):  # unchanged: no new time in the file
                    new.append(blind)
                self.summary.missing += 1
                self.summary.not_judged[f"{scope}/{scoped.id}"] = unfit.reason
                continue
            asked[scoped.id] = (scoped, question, key)
        finished = self.summary.reused + self.summary.from_checks + self.summary.missing
        if finished:
            self._report(finished, "checks")
        token = self._fence_token([question for _, question, _ in asked.values()]) if asked else None

        def ask(ids: Sequence[str]) -> Mapping[str, AnsweredVerdict]:
            evidence = self.plan.evidence(self._covered(ids)) if self.plan is not None else self.evidence
            request = messages(self.context, [asked[cid][1] for cid in ids], evidence, self.images, token=token)
            return parse_answer(self.client.complete(request), ids)

        protocol = ProtocolSettings(self.settings.batch, self.settings.parallel, self.settings.attempts)
        batch_keys = (self.plan.batch_keys({cid: self.coverage[cid] for cid in asked}, self.settings.batch)
                      if self.plan is not None else None)
        group_of = batch_keys.__getitem__ if batch_keys is not None else None
        outcome = run_protocol(list(asked), ask, protocol, self.cancel, self._report, group_of=group_of)
        now = datetime.now(UTC)
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
            new.append(
                _verdict(
                    scoped,
                    scope,
                    "missing",
                    rater,
                    now,
                    criterion_version(scoped.scored),
                    f"unresolved after {self.settings.attempts} attempt(s) in a batch and "
                    f"{self.settings.attempts} alone: {reason}",
                    [],
                    key,
                )
            )
            self.summary.missing_ids.append(f"{scope}/{cid}")
        self.summary.judged += len(outcome.resolved)
        self.summary.missing += len(outcome.unresolved)
        self.summary.requests += outcome.requests
        self.summary.cancelled = outcome.cancelled
        if new:
            self.store.put(self.submission.id, new)
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
                self.settings.rater,
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
            self.settings.rater,
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
