"""Verdicts on the sample's runs for the screenshots: a judge and two experts.

STAND-IN: helper R writes the real version of this file (the real judge run against the loopback
chat server of tests/judging/chat_server.py, then two experts' verdicts); at merge R's file is
kept. This one has the same signature and writes comparable verdicts straight to the verdict
store, deterministically (a hash of run and criterion decides each), so that the scores shots
have checkpoint scores on both runs, a final score, a missing verdict and expert disagreements.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from studio.model.vocabulary import FINAL_SCOPE
from studio.runs.record import load_run
from studio.scoring.project_rubrics import project_rubrics
from studio.store import layout
from studio.store.loader import load_project

JUDGE = "judge:qwen3-32b"
EXPERTS = ("Marta Lindqvist", "Joris de Wit")
TIME = datetime(2026, 11, 30, 21, 0, tzinfo=UTC)


def _share(*parts: str) -> float:
    digest = hashlib.sha256("/".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def add_sample_verdicts(project_root: Path, run_ids: list[str], runs_dir: Path | None = None) -> None:
    loaded = load_project(project_root)
    versions = current_versions(loaded.project)
    rubrics = project_rubrics(loaded.project)
    store = VerdictStore(project_root)
    folder = runs_dir or project_root / layout.RUNS_DIR
    for number, run_id in enumerate(run_ids):
        record = load_run(folder / run_id)
        scopes = [s.id for s in record.subtasks if s.checkpoint] + ([FINAL_SCOPE] if record.final else [])
        strength = 0.62 + 0.2 * number  # the later, fixed agent does better
        given: dict[str, list[Verdict]] = {JUDGE: [], **{name: [] for name in EXPERTS}}
        for scope in scopes:
            drift = 0.12 if scope in ("T05", "T06") else 0.0  # the EBITDA restatement trips both agents
            for entry in rubrics.get(scope, {}).values():
                share = _share(run_id, scope, entry.id)
                holds = share < strength - drift
                # a failure condition or a gate "passes" when it is present: a weak run shows more of them
                # a fatal gate stays untriggered: the shots show scores, not zeros
                value = ("pass" if holds else "fail") if entry.weight > 0 else "fail" if entry.gate else (
                    "pass" if share > 0.88 + 0.1 * number else "fail")
                judged = "missing" if _share(run_id, entry.id, "timeout") < 0.015 else value
                version = versions[(scope, entry.id)]

                def verdict(rater: str, said: str, note: str, scope: str = scope, criterion: str = entry.id,
                            version: str = version) -> Verdict:
                    return Verdict(criterion=criterion, scope=scope, verdict=said, rater=rater,  # type: ignore[arg-type]
                                   time=TIME, criterion_version=version, note=note)

                given[JUDGE].append(verdict(JUDGE, judged, "Deterministic sample verdict."))
                if scope in ("T01", "T02", "T05", "T06", FINAL_SCOPE):
                    flip = not entry.gate and (_share(run_id, entry.id, "marta") < 0.1 or entry.id in ("T06-C03", "A-04"))
                    marta = {"pass": "fail", "fail": "pass"}[value] if flip else value
                    given[EXPERTS[0]].append(verdict(EXPERTS[0], marta, "Checked against the workbook."))
                    if _share(run_id, entry.id, "joris") < 0.6:
                        joris = marta if entry.gate or _share(run_id, entry.id, "joris-differs") > 0.06 else value
                        given[EXPERTS[1]].append(verdict(EXPERTS[1], joris, "Second review."))
        for verdicts in given.values():
            if verdicts:
                store.put(run_id, verdicts)
