"""Projects and submissions for the judge's tests: the blank template with a checkpoint rubric of
any size, and a folder of submitted files."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from studio.runs.record import RunRecord, RunStatus, SubtaskRecord, SubtaskStatus, save_run
from studio.runs.runner import store_of
from studio.store.loader import LoadedProject, load_project
from tests.helpers import copy_blank, replace_in, write

SCOPE = "T01"
RUN_ID = "20261130-120000-a1b2c3"


def criterion_id(number: int) -> str:
    return f"T01-C{number:03d}"


def rubric_yaml(count: int, text: str = "The report states item {n} of the brief.", weight_of: dict | None = None) -> str:
    lines = ["criteria:"]
    for n in range(1, count + 1):
        weight = (weight_of or {}).get(n, -2 if n % 5 == 0 else 3)
        lines += [f"  - id: {criterion_id(n)}", f"    text: {text.format(n=n)}", "    covers:",
                  "      - T01:outputs/report.md", "    target: checkpoint", "    dimension: completeness",
                  f"    weight: {weight}"]
    return "\n".join(lines) + "\n"


def judged_project(root: Path, count: int = 20) -> Path:
    """The blank template whose T01 rubric has `count` criteria; R01 is given to T01's judge too."""
    copy_blank(root)
    write(root, "subtasks/T01/rubric.yaml", rubric_yaml(count))
    replace_in(root, "evaluator/references.yaml", "      - T02\n", "      - T01\n      - T02\n")
    return root


def load(root: Path) -> LoadedProject:
    loaded = load_project(root)
    assert loaded.problems == [], loaded.problems
    return loaded


def submission_folder(root: Path, report: str = "# Report\n\nThe client's objective is a refinancing.\n") -> Path:
    write(root, "outputs/report.md", report)
    write(root, "outputs/notes.txt", "working notes\n")
    return root


def make_run(project: Path, tmp_path: Path, done: tuple[str, ...] = ("T01", "T02"), final: bool = True) -> Path:
    """A run folder as the runner leaves it: run.json and checkpoints in the shared store."""
    run_dir = project / "runs" / RUN_ID
    run_dir.mkdir(parents=True)
    store = store_of(run_dir)
    subtasks, last = [], None
    for sid in ("T01", "T02"):
        if sid not in done:
            subtasks.append(SubtaskRecord(id=sid))
            continue
        workspace = tmp_path / "workspace" / sid
        write(workspace, "outputs/report.md", f"# Report after {sid}\n\nThe client's objective is a refinancing.\n")
        last = store.snapshot(workspace)
        subtasks.append(SubtaskRecord(id=sid, status=SubtaskStatus.COMPLETED, checkpoint=last.id))
    final_id = None
    if final and last is not None:
        final_id = store.put_manifest({"final/report.md": last.entries["outputs/report.md"]}).id
    record = RunRecord(run_id=RUN_ID, project_id="new-project", project_dir=str(project), harness="script:h.sh",
                       image="test-image", created=datetime.now(UTC),
                       status=RunStatus.COMPLETED if final else RunStatus.INTERRUPTED, subtasks=subtasks,
                       final=final_id)
    save_run(run_dir, record)
    return run_dir
