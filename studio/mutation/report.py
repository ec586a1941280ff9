"""What mutation testing found, as the JSON it keeps (.dbstudio/mutation/report.json) and as text.

A mutant is *killed* when at least one criterion of its scope counts against it that does not count
against the reference (a requirement no longer credited, a failure condition or a gate now holding);
*survived* when every criterion of its scope was decided and none did — a gap in the rubric; *undecided*
when none did but some were not decided (checks only, without a judge, or a verdict the judge left
missing). The review (studio.review.mutation) turns survivors into findings while the report still fits
the rubrics and the reference package it was made from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.model.vocabulary import FINAL_SCOPE
from studio.mutation.reference import MutationError
from studio.store import layout
from studio.store.atomic import write_atomic

if TYPE_CHECKING:
    from studio.model import Project

__all__ = ["KILLED", "MutantResult", "MutationReport", "REPORT_FILE", "SURVIVED", "ScopeResult", "UNDECIDED",
           "read_report", "report_text", "write_report"]

REPORT_FILE = "report.json"
FORMAT = 1
KILLED, SURVIVED, UNDECIDED, NOT_RUN, FAILED = "killed", "survived", "undecided", "not run", "error"


@dataclass
class ScopeResult:
    """The reference's score on one rubric."""

    scope: str
    score: float | None  # None: a missing verdict decides it (low..high then)
    low: float
    high: float
    gate_triggered: bool
    failing: list[str] = field(default_factory=list)  # criteria that count against the reference
    missing: list[str] = field(default_factory=list)  # criteria not decided

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "score": _r(self.score), "low": _r(self.low), "high": _r(self.high),
                "gate_triggered": self.gate_triggered, "failing": self.failing, "missing": self.missing}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScopeResult:
        return cls(data["scope"], data["score"], data["low"], data["high"], data["gate_triggered"],
                   list(data.get("failing", [])), list(data.get("missing", [])))


@dataclass
class MutantResult:
    mutant: dict[str, Any]  # Mutant.to_json()
    status: str
    killed_by: list[str] = field(default_factory=list)  # criterion ids of its scope
    score: float | None = None
    low: float | None = None
    high: float | None = None
    drop: float | None = None  # the reference's score on the scope minus the mutant's (None: not known)
    error: str | None = None

    @property
    def id(self) -> str:
        return str(self.mutant["id"])

    @property
    def scope(self) -> str:
        return str(self.mutant["scope"])

    def to_json(self) -> dict[str, Any]:
        return {"mutant": self.mutant, "status": self.status, "killed_by": self.killed_by, "score": _r(self.score),
                "low": _r(self.low), "high": _r(self.high), "drop": _r(self.drop), "error": self.error}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MutantResult:
        return cls(dict(data["mutant"]), data["status"], list(data.get("killed_by", [])), data.get("score"),
                   data.get("low"), data.get("high"), data.get("drop"), data.get("error"))


@dataclass
class MutationReport:
    project_id: str
    created: str  # ISO time
    judge: str | None  # the judge's settings in words, or None: programmatic checks only
    reference: dict[str, ScopeResult]
    mutants: list[MutantResult]
    fingerprints: dict[str, str]  # scope -> what its rubric asks (criterion versions), for staleness
    reference_key: str  # the reference package's files
    process: float | None = None
    final: float | None = None
    cancelled: bool = False
    requests: int = 0
    tokens: int = 0
    reused: int = 0
    criteria: dict[str, list[str]] = field(default_factory=dict)  # scope -> its criteria ids, in rubric order

    def counts(self) -> dict[str, int]:
        found = {KILLED: 0, SURVIVED: 0, UNDECIDED: 0, NOT_RUN: 0, FAILED: 0}
        for result in self.mutants:
            found[result.status] = found.get(result.status, 0) + 1
        return found

    def kills(self) -> dict[str, list[str]]:
        """'SCOPE/CRITERION' -> the mutants it kills, every criterion of every rubric listed (none: [])."""
        found: dict[str, list[str]] = {}
        for scope, criteria in self.criteria.items():
            for criterion in criteria:
                found[f"{scope}/{criterion}"] = []
        for result in self.mutants:
            for criterion in result.killed_by:
                found.setdefault(f"{result.scope}/{criterion}", []).append(result.id)
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "project": self.project_id, "created": self.created, "judge": self.judge,
            "cancelled": self.cancelled, "counts": self.counts(),
            "reference": {"process": _r(self.process), "final": _r(self.final),
                          "scopes": [result.to_json() for result in self.reference.values()]},
            "mutants": [result.to_json() for result in self.mutants],
            "kills": self.kills(), "criteria": self.criteria,
            "fingerprints": self.fingerprints, "reference_key": self.reference_key,
            "judging": {"requests": self.requests, "tokens": self.tokens, "reused": self.reused},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MutationReport:
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, this version reads {FORMAT}")
        reference = data["reference"]
        judging = data.get("judging", {})
        return cls(
            data["project"], data["created"], data.get("judge"),
            {item["scope"]: ScopeResult.from_json(item) for item in reference["scopes"]},
            [MutantResult.from_json(item) for item in data["mutants"]],
            dict(data["fingerprints"]), data["reference_key"], reference.get("process"), reference.get("final"),
            bool(data.get("cancelled")), int(judging.get("requests", 0)), int(judging.get("tokens", 0)),
            int(judging.get("reused", 0)), criteria={k: list(v) for k, v in data.get("criteria", {}).items()},
        )


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def report_path(project_dir: Path) -> Path:
    return Path(project_dir) / layout.MUTATION_DIR / REPORT_FILE


def write_report(project_dir: Path, report: MutationReport) -> Path:
    path = report_path(project_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return path


def read_report(project_dir: Path) -> MutationReport | None:
    """The last mutation report of the project, None when there is none; MutationError when it cannot be read."""
    path = report_path(project_dir)
    if not path.is_file():
        return None
    try:
        return MutationReport.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MutationError(f"{path}: the mutation report cannot be read ({exc}): run `dbstudio mutate` again") from None


def _score(low: float | None, high: float | None, score: float | None) -> str:
    if score is not None:
        return f"{score:.1f}"
    if low is None or high is None:
        return "-"
    return f"{low:.1f}..{high:.1f}"


def report_text(report: MutationReport) -> str:
    """The report as a reader wants it: the reference's own scores first (a rubric that fails its reference
    must be fixed before anything else), then each mutant, then what each criterion kills."""
    counts = report.counts()
    lines = [f"mutation testing of {report.project_id} ({report.judge or 'programmatic checks only: no judge'})"]
    lines.append(f"reference package: process {_score(None, None, report.process)}, final "
                 f"{_score(None, None, report.final)}")
    for scope_result in report.reference.values():
        note = ""
        if scope_result.failing:
            note = f"  fails its own rubric: {', '.join(scope_result.failing)}"
        elif scope_result.missing:
            note = f"  not decided: {len(scope_result.missing)} criteria"
        gate = " (gate triggered)" if scope_result.gate_triggered else ""
        score = _score(scope_result.low, scope_result.high, scope_result.score)
        lines.append(f"  {scope_result.scope:<8} {score:>10}{gate}{note}")
    total = len(report.mutants)
    lines.append("")
    lines.append(f"{total} mutants: {counts[KILLED]} killed, {counts[SURVIVED]} survived, {counts[UNDECIDED]} "
                 f"undecided" + (f", {counts[NOT_RUN]} not run (cancelled)" if counts[NOT_RUN] else "")
                 + (f", {counts[FAILED]} could not be made" if counts[FAILED] else ""))
    for result in report.mutants:
        mutant = result.mutant
        if result.status == KILLED:
            outcome = f"killed by {', '.join(result.killed_by)}"
        elif result.status == FAILED:
            outcome = f"error: {result.error}"
        else:
            outcome = result.status
        drop = "" if not result.drop else f", score -{result.drop:.1f}"
        lines.append(f"  {mutant['id']:<16} {mutant['kind']:<23} {outcome}{drop}")
        lines.append(f"      {mutant['broke']}")
        if result.status == SURVIVED:
            lines.append(f"      suggested criterion: {mutant['suggestion']}")
    kills = report.kills()
    lines.append("")
    lines.append("criteria and the mutants they kill:")
    for key, ids in kills.items():
        if ids:
            lines.append(f"  {key:<16} {len(ids):>3}  {', '.join(ids[:6])}{' ...' if len(ids) > 6 else ''}")
    idle = [key for key, ids in kills.items() if not ids]
    if report.judge is None:
        lines.append("  (criteria without a programmatic check are not decided without a judge: --judge)")
    elif idle:
        lines.append(f"  kill no mutant: {len(idle)} criteria ({', '.join(idle[:8])}{' ...' if len(idle) > 8 else ''})")
    if report.judge is not None:
        lines.append("")
        lines.append(f"judging: {report.requests} requests, {report.tokens:,} tokens, {report.reused} verdicts reused")
    return "\n".join(lines)


def rubric_fingerprints(project: Project) -> tuple[dict[str, str], dict[str, list[str]]]:
    """scope -> a hash of what its rubric asks (each criterion's version, requires and check), and scope ->
    its criteria ids: a report made on other rubrics is stale."""
    import hashlib

    from studio.judging.scope import scope_criteria, scopes_of
    from studio.judging.verdicts import criterion_version

    prints, criteria = {}, {}
    for scope in scopes_of(project):
        scoped = scope_criteria(project, scope)
        parts = [[c.id, criterion_version(c.scored), list(c.own.requires),
                  c.own.check.model_dump(mode="json", by_alias=True) if c.own.check is not None else None]
                 for c in scoped]
        prints[scope] = hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:16]
        criteria[scope] = [c.id for c in scoped]
    return prints, criteria


def scope_rubric_file(scope: str) -> str:
    return layout.FINAL_RUBRIC_FILE if scope == FINAL_SCOPE else f"{layout.SUBTASKS_DIR}/{scope}/rubric.yaml"
