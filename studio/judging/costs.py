"""What judging cost, request by request, kept beside the verdicts: one file per judging of a submission.

<project>/verdicts/<submission>/costs/<time>-<scope>-<rater>.yaml lists every request of one judging
(the criteria asked, what came of it, the tokens the server counted, the model that answered and its
fingerprint, latency and HTTP attempts) with the requested model, the profile and the endpoint. The
files are under git with the verdicts; each judging writes a new file of its own (atomically), so no
two writers ever share one and no lock is needed. `cost_report` sums them per submission and scope,
per submission (a run) and for the project.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from studio.judging.errors import JudgingError
from studio.judging.verdict_store import check_submission_id, rater_slug
from studio.store import layout
from studio.store.atomic import write_atomic

COSTS_DIR = "costs"
FORMAT_VERSION = 1
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class RequestCost:
    criteria: list[str]
    outcome: str  # "answered", "cut off", "refused", "failed", "not sent"; "tool calls": an agent judge's step
    served_model: str | None = None
    fingerprint: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    usage_reported: bool = False  # whether the server sent `usage` (the counts are 0 when not)
    estimated_prompt_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 0  # HTTP requests sent for it (0 when never sent)
    error: str | None = None


@dataclass
class CostTotals:
    requests: int = 0  # judge requests sent
    attempts: int = 0  # HTTP requests, retries included
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    latency_s: float = 0.0
    not_sent: int = 0  # requests kept back (the prompt could not fit)
    without_usage: int = 0  # answers whose server reported no usage

    def add_request(self, cost: RequestCost) -> None:
        if cost.attempts == 0:
            self.not_sent += 1
            return
        self.requests += 1
        self.attempts += cost.attempts
        self.prompt_tokens += cost.prompt_tokens
        self.completion_tokens += cost.completion_tokens
        self.cached_tokens += cost.cached_tokens
        self.reasoning_tokens += cost.reasoning_tokens
        self.latency_s += cost.latency_s
        if cost.outcome in ("answered", "cut off", "tool calls") and not cost.usage_reported:
            self.without_usage += 1

    def add(self, other: CostTotals) -> None:
        for item in fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def line(self) -> str:
        """The totals in one line, as `dbstudio judge` prints them."""
        text = (
            f"{self.requests} requests ({self.attempts} HTTP attempts), {self.prompt_tokens:,} prompt tokens "
            f"({self.cached_tokens:,} cached), {self.completion_tokens:,} completion tokens "
            f"({self.reasoning_tokens:,} reasoning), {self.latency_s:.1f} s"
        )
        if self.not_sent:
            text += f", {self.not_sent} not sent (too large for the context window)"
        if self.without_usage:
            text += f", {self.without_usage} answers without usage from the server"
        return text


@dataclass
class JudgingCost:
    """One judging of one submission's scope."""

    submission: str
    scope: str
    rater: str
    requested_model: str
    endpoint: str
    profile: str | None
    started: datetime
    requests: list[RequestCost] = field(default_factory=list)

    @property
    def served_models(self) -> list[str]:
        return sorted({r.served_model for r in self.requests if r.served_model})

    def totals(self) -> CostTotals:
        totals = CostTotals()
        for request in self.requests:
            totals.add_request(request)
        return totals


def costs_dir(project_dir: Path, submission_id: str) -> Path:
    return layout.verdicts_dir(Path(project_dir)) / check_submission_id(submission_id) / COSTS_DIR


def write_cost(project_dir: Path, cost: JudgingCost) -> Path:
    """Write one judging's costs to a new file of its own; the path."""
    stamp = cost.started.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    name = f"{stamp}-{rater_slug(cost.scope)}-{rater_slug(cost.rater)}-{secrets.token_hex(2)}.yaml"
    path = costs_dir(project_dir, cost.submission) / name
    data = {
        "format": FORMAT_VERSION,
        "submission": cost.submission,
        "scope": cost.scope,
        "rater": cost.rater,
        "requested_model": cost.requested_model,
        "served_models": cost.served_models,
        "endpoint": cost.endpoint,
        "profile": cost.profile,
        "started": cost.started.astimezone(UTC).isoformat(),
        "totals": asdict(cost.totals()),
        "requests": [asdict(request) for request in cost.requests],
    }
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=4096)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"))
    return path


def read_costs(project_dir: Path) -> list[JudgingCost]:
    """Every judging's costs in the project, oldest first; a file that cannot be read names itself."""
    root = layout.verdicts_dir(Path(project_dir))
    found: list[JudgingCost] = []
    if not root.is_dir():
        return found
    for path in sorted(root.glob(f"*/{COSTS_DIR}/*.yaml")):
        found.append(_read(path))
    found.sort(key=lambda cost: cost.started)
    return found


def submission_costs(project_dir: Path, submission_id: str) -> list[JudgingCost]:
    """Every judging's costs of one submission, oldest first."""
    folder = costs_dir(project_dir, submission_id)
    if not folder.is_dir():
        return []
    return sorted((_read(path) for path in sorted(folder.glob("*.yaml"))), key=lambda cost: cost.started)


def _read(path: Path) -> JudgingCost:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
        known = {item.name for item in fields(RequestCost)}
        requests = [RequestCost(**{k: v for k, v in entry.items() if k in known}) for entry in data["requests"]]
        return JudgingCost(
            str(data["submission"]), str(data["scope"]), str(data["rater"]), str(data["requested_model"]),
            str(data.get("endpoint") or ""), data.get("profile"), datetime.fromisoformat(str(data["started"])),
            requests,
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise JudgingError(
            f"{path}: not a readable cost file ({type(exc).__name__}: {exc}); restore it from git or delete it"
        ) from None


def last_rater(project_dir: Path, submission_id: str, requested_model: str) -> str | None:
    """The rater the last judging of the submission with `requested_model` stored its verdicts under."""
    folder = costs_dir(project_dir, submission_id)
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob("*.yaml"), reverse=True):
        cost = _read(path)
        if cost.requested_model == requested_model:
            return cost.rater
    return None


@dataclass
class CostReport:
    by_scope: dict[tuple[str, str], CostTotals] = field(default_factory=dict)  # (submission, scope)
    by_submission: dict[str, CostTotals] = field(default_factory=dict)
    by_rater: dict[str, CostTotals] = field(default_factory=dict)
    project: CostTotals = field(default_factory=CostTotals)


def cost_report(costs: Iterable[JudgingCost]) -> CostReport:
    report = CostReport()
    for cost in costs:
        totals = cost.totals()
        for bucket in (
            report.by_scope.setdefault((cost.submission, cost.scope), CostTotals()),
            report.by_submission.setdefault(cost.submission, CostTotals()),
            report.by_rater.setdefault(cost.rater, CostTotals()),
            report.project,
        ):
            bucket.add(totals)
    return report
