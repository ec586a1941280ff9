"""A project for the review tests: the blank template whose T01 rubric has ten criteria with
chosen weights, one local run with T01's checkpoint (no Docker: made as the runner leaves it), and
the judge's verdicts on those ten decisions, each with a rationale and a cited line.

Weights (T01-C001 .. T01-C010): 5, 3, 2, 4, -2, 1, 3, 2, 5, -3; W+ = 25 (the positive ones)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from studio.runs.record import RunRecord, RunStatus, SubtaskRecord, SubtaskStatus, save_run
from studio.runs.runner import store_of
from tests.helpers import copy_blank, replace_in, write
from tests.judging.projects import RUN_ID, criterion_id, load, rubric_yaml

JUDGE = "judge:test-model"
WEIGHTS = {1: 5, 2: 3, 3: 2, 4: 4, 5: -2, 6: 1, 7: 3, 8: 2, 9: 5, 10: -3}
# the judge's verdicts, by criterion number
JUDGE_VERDICTS = {1: "pass", 2: "pass", 3: "fail", 4: "pass", 5: "fail", 6: "pass", 7: "fail", 8: "pass",
                  9: "pass", 10: "fail"}
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
REPORT = "".join(f"Line {n}: item {n} of the brief.\n" for n in range(1, 41))


def _cite_the_report(n: int) -> str:
    return f"outputs/report.txt#L{n}-L{n + 1}"


def review_project(tmp_path: Path, cite: Callable[[int], str] = _cite_the_report,
                   more_files: Callable[[Path], object] | None = None) -> Path:
    """`cite` gives the place the judge cites for criterion n; `more_files` adds files to the agent's
    workspace (its folder given) before T01's checkpoint is taken."""
    root = copy_blank(tmp_path / "project")
    write(root, "subtasks/T01/rubric.yaml", rubric_yaml(10, weight_of=WEIGHTS))
    replace_in(root, "final/rubric.yaml", "reuse_of: T01-C01\n", "reuse_of: T01-C001\n")
    replace_in(root, "evaluator/references.yaml", "      - T02\n", "      - T01\n      - T02\n")
    make_review_run(root, tmp_path, more_files)
    versions = current_versions(load(root).project)
    VerdictStore(root).put(RUN_ID, [
        Verdict(criterion=criterion_id(n), scope="T01", verdict=value, rater=JUDGE, time=T0,  # type: ignore[arg-type]
                criterion_version=versions[("T01", criterion_id(n))], note=f"Rationale {n}: the report says so.",
                evidence=[cite(n)])
        for n, value in JUDGE_VERDICTS.items()])
    return root


def make_review_run(root: Path, tmp_path: Path, more_files: Callable[[Path], object] | None = None) -> Path:
    """A run folder as the runner leaves it after T01: run.json and T01's checkpoint in the shared store."""
    run_dir = root / "runs" / RUN_ID
    run_dir.mkdir(parents=True)
    workspace = tmp_path / "workspace"
    write(workspace, "outputs/report.txt", REPORT)
    write(workspace, "outputs/notes.txt", "working notes\n")
    if more_files is not None:
        more_files(workspace)
    checkpoint = store_of(run_dir).snapshot(workspace)
    record = RunRecord(run_id=RUN_ID, project_id="new-project", project_dir=str(root), harness="script:h.sh",
                       image="test-image", created=T0, status=RunStatus.INTERRUPTED,
                       subtasks=[SubtaskRecord(id="T01", status=SubtaskStatus.COMPLETED, checkpoint=checkpoint.id),
                                 SubtaskRecord(id="T02")])
    save_run(run_dir, record)
    return run_dir
