"""Two local runs of the blank template with stored verdicts, for the scores, charts and agreement
tests; no Docker: run records are written as the runner leaves them and verdicts go straight to
the VerdictStore.

The blank template: T01 {T01-C01 +5 completeness}; T02 {T02-C01 +6 correctness, T02-C02 +4 requires
T02-C01, gate T02-G01, T02-N01 -2}; final {T01-C01 reused (artifact, completeness, 5), T02-C01 reused
(artifact, correctness, 6), A-01 (artifact, consistency, 4), PKG-01 (package, completeness, 5)}.

By hand, with the judge's verdicts below (no expert overrules them):
- run-a: T01 = 100; T02 = (6 + 4 - 2) / 10 = 80; process 90; final (5 + 6 + 5) / 20 = 80;
  targets artifact 11/15 = 73.33, package 100, cross-file unavailable;
  dimensions completeness (5 + 5) / 10 = 100, correctness 6/6 = 100, consistency 0/4 = 0.
- run-b: T01 = 0; T02 missing T02-C02: 6/10 .. 10/10 = 60–100; process 30–50 (unknown);
  final missing PKG-01: (6 + 4) / 20 .. 15/20 = 50–75 (unknown).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from studio.runs.record import RunRecord, save_run
from studio.store import layout
from studio.store.loader import load_project
from tests.helpers import copy_blank

T0 = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
JUDGE = "judge:m1"
RUN_A, RUN_B = "20261130-100000-aaaaaa", "20261130-110000-bbbbbb"
SYSTEM_A, SYSTEM_B = f"claude-code@{RUN_A}", f"script:agent.sh@{RUN_B}"

JUDGED_A = {("T01", "T01-C01"): "pass", ("T02", "T02-C01"): "pass", ("T02", "T02-C02"): "pass",
            ("T02", "T02-G01"): "fail", ("T02", "T02-N01"): "pass", ("final", "T01-C01"): "pass",
            ("final", "T02-C01"): "pass", ("final", "A-01"): "fail", ("final", "PKG-01"): "pass"}
JUDGED_B = {("T01", "T01-C01"): "fail", ("T02", "T02-C01"): "pass", ("T02", "T02-C02"): "missing",
            ("T02", "T02-G01"): "fail", ("T02", "T02-N01"): "fail", ("final", "T01-C01"): "fail",
            ("final", "T02-C01"): "pass", ("final", "A-01"): "pass", ("final", "PKG-01"): "missing"}


def put(project: Path, submission: str, rater: str, verdicts: dict[tuple[str, str], str]) -> None:
    versions = current_versions(load_project(project).project)
    VerdictStore(project).put(submission, [
        Verdict(criterion=criterion, scope=scope, verdict=value, rater=rater, time=T0,  # type: ignore[arg-type]
                criterion_version=versions[(scope, criterion)])
        for (scope, criterion), value in verdicts.items()])


def scored_project(root: Path, judged: bool = True) -> Path:
    """The blank template with run-a (claude-code) and run-b (a script harness) and, when `judged`,
    the judge's verdicts on both."""
    copy_blank(root)
    for run_id, harness in ((RUN_A, "claude-code"), (RUN_B, "script:/home/me/agent.sh")):
        save_run(root / layout.RUNS_DIR / run_id, RunRecord(run_id=run_id, project_id="new-project",
                                                            project_dir=str(root), harness=harness,
                                                            image="dbs-test:1", created=T0))
    if judged:
        put(root, RUN_A, JUDGE, JUDGED_A)
        put(root, RUN_B, JUDGE, JUDGED_B)
    return root


def add_experts(root: Path) -> None:
    """Two experts: Anna agrees with the judge but on T02-C01 of both runs (she fails it) and
    A-01 of run-a (she passes it); Ben agrees with Anna everywhere he rated."""
    anna_a = {**{key: value for key, value in JUDGED_A.items()}, ("T02", "T02-C01"): "fail", ("final", "A-01"): "pass"}
    anna_b = {key: value for key, value in JUDGED_B.items() if value != "missing"}
    anna_b[("T02", "T02-C01")] = "fail"
    put(root, RUN_A, "Anna", anna_a)
    put(root, RUN_B, "Anna", anna_b)
    put(root, RUN_A, "Ben", {("T02", "T02-C01"): "fail", ("T01", "T01-C01"): "pass"})
    put(root, RUN_B, "Ben", {("T02", "T02-C01"): "fail", ("T01", "T01-C01"): "fail"})
