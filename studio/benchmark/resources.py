"""What each reported outcome cost in agent time and tokens, as the paper counts them (Figure 5d):

- **agent time**: the sum of the run's subtask intervals (each subtask's start to its end, so the
  setup between subtasks and the judging are left out);
- **tokens**: input + output, cached input counted once: the harness's `input` (the uncached
  prompt), `cache_creation` (a prompt written to the cache, counted the one time it is sent) and
  `output`; `cache_read` (the same cached prompt read again on a later turn) is not counted again.

A subtask that ran without its harness reporting usage leaves the pair's tokens unknown, never 0:
`tokens_reported` says how many of its subtasks did. A named submission (not a run) has neither."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from studio.benchmark.loader import LoadedBenchmark


@dataclass(frozen=True)
class PairResources:
    system: str
    project: str
    submission: str | None
    agent_s: float | None  # None: no run, or no subtask with both ends recorded
    tokens: int | None  # None unless every subtask that ran reported its usage
    subtasks_run: int
    tokens_reported: int

    def to_json(self) -> dict:
        return {"system": self.system, "project": self.project, "submission": self.submission,
                "agent_s": None if self.agent_s is None else round(self.agent_s, 1), "tokens": self.tokens,
                "subtasks_run": self.subtasks_run, "tokens_reported": self.tokens_reported}


@dataclass(frozen=True)
class SystemResources:
    system: str
    agent_s_mean: float | None  # per project, over the projects with a known time
    tokens_mean: float | None  # per project, over the projects with known tokens
    tokens_total: int  # over the projects with known tokens
    projects_timed: int
    projects_counted: int  # with known tokens
    unknown_tokens: list[str]  # projects whose tokens are unknown, named

    def to_json(self) -> dict:
        return {"agent_s_mean": None if self.agent_s_mean is None else round(self.agent_s_mean, 1),
                "tokens_mean": None if self.tokens_mean is None else round(self.tokens_mean, 1),
                "tokens_total": self.tokens_total, "projects_timed": self.projects_timed,
                "projects_counted": self.projects_counted, "unknown_tokens": self.unknown_tokens}


def counted_tokens(counts: dict[str, int]) -> int:
    """One subtask's tokens: input + cache_creation + output (cache_read not counted again)."""
    return int(counts.get("input", 0)) + int(counts.get("cache_creation", 0)) + int(counts.get("output", 0))


def pair_resources(loaded: LoadedBenchmark) -> list[PairResources]:
    """Every reported outcome's resources, in status order (pairs without an outcome left out)."""
    from studio.runs.errors import RunError
    from studio.runs.record import RECORD_FILE, load_run
    from studio.store import layout

    out = []
    for (system, project), outcome in loaded.reported().items():
        folder: Path = loaded.projects[project].folder if project in loaded.projects else Path()
        run_dir = folder / layout.RUNS_DIR / outcome.submission
        if not (run_dir / RECORD_FILE).is_file():
            out.append(PairResources(system, project, outcome.submission, None, None, 0, 0))
            continue
        try:
            record = load_run(run_dir)
        except RunError:
            out.append(PairResources(system, project, outcome.submission, None, None, 0, 0))
            continue
        ran = [s for s in record.subtasks if s.started is not None]
        intervals = [(s.ended - s.started).total_seconds() for s in ran if s.ended is not None and s.started]
        reported = [s for s in ran if s.tokens]
        tokens = sum(counted_tokens(s.tokens or {}) for s in reported) if ran and len(reported) == len(ran) else None
        out.append(PairResources(system, project, outcome.submission, sum(intervals) if intervals else None, tokens,
                                 len(ran), len(reported)))
    return out


def system_resources(pairs: list[PairResources], systems: list[str]) -> dict[str, SystemResources]:
    found = {}
    for system in systems:
        mine = [p for p in pairs if p.system == system]
        times = [p.agent_s for p in mine if p.agent_s is not None]
        tokens = [p.tokens for p in mine if p.tokens is not None]
        found[system] = SystemResources(system, statistics.fmean(times) if times else None,
                                        statistics.fmean(tokens) if tokens else None, sum(tokens), len(times),
                                        len(tokens), sorted(p.project for p in mine if p.tokens is None))
    return found
