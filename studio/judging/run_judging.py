"""Judging a run of a project: which of its rubrics the run can be judged on (a subtask with a
checkpoint, the final rubric once there is a final package), and the judge over them one after the
other, stopping between requests when asked. `dbstudio judge --run` and the app's Judge… both use it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from studio.judging.errors import JudgingError
from studio.judging.judge import JudgeProgress, JudgeSettings, JudgeSummary, judge_submission, open_client
from studio.judging.scope import scopes_of
from studio.judging.submission import Submission, submission_of_run
from studio.judging.verdict_store import VerdictStore
from studio.model import Project
from studio.model.vocabulary import FINAL_SCOPE
from studio.runs.record import find_run, list_runs, load_run
from studio.runs.runner import default_runs_dir
from studio.store import layout
from studio.store.loader import LoadedProject, load_project

ALL_SCOPES = "all"


@dataclass
class RunJudging:
    """What a run's judging did: the summary over every rubric judged, and the rubrics left out."""

    summary: JudgeSummary = field(default_factory=JudgeSummary)
    skipped: list[str] = field(default_factory=list)  # scopes the run has no checkpoint for


def run_submissions(project: Project, run_dir: Path, scope: str = ALL_SCOPES) -> tuple[list[Submission], list[str]]:
    """(the submissions of the run to judge for `scope`, the scopes left out for want of a checkpoint)."""
    known = scopes_of(project)
    if scope != ALL_SCOPES:
        if scope not in known:
            raise JudgingError(f"the project has no rubric '{scope}': give one of {', '.join(known)}, or all")
        return [submission_of_run(run_dir, scope)], []
    record = load_run(run_dir)
    done = {sub.id for sub in record.subtasks if sub.done and sub.checkpoint}
    scopes = [s for s in known if s in done or s == FINAL_SCOPE and record.final is not None]
    if not scopes:
        raise JudgingError(f"run {record.run_id} has no checkpoint to judge yet ({record.status.value})")
    return [submission_of_run(run_dir, s) for s in scopes], [s for s in known if s not in scopes]


def loaded_for_judging(project_dir: Path) -> LoadedProject:
    """The project as saved on disk, which must load: the judge reads its rubrics and instructions."""
    project_dir = Path(project_dir)
    if not layout.is_project_folder(project_dir):
        raise JudgingError(f"{project_dir}: not a project folder (it has no {layout.PROJECT_FILE})")
    loaded = load_project(project_dir)
    if loaded.problems:
        first = loaded.problems[0]
        line, column = loaded.locate(first)
        raise JudgingError(f"{project_dir / first.file}:{line}:{column}: {first.message}; the project must load "
                           f"before judging ({len(loaded.problems)} problem(s): `dbstudio validate` lists them)")
    return loaded


def judgeable(project_dir: Path) -> tuple[list[str], list[str]]:
    """(the ids of the project's runs, newest first; its rubrics' scopes along the timeline)."""
    loaded = loaded_for_judging(project_dir)
    runs = [record.run_id for _path, record in reversed(list_runs(default_runs_dir(Path(project_dir))))]
    return runs, scopes_of(loaded.project)


def judge_run(project_dir: Path, run_id: str, scope: str, settings: JudgeSettings,
              progress: Callable[[JudgeProgress], None] | None = None,
              cancel: Callable[[], bool] | None = None, *, dry_run: bool = False) -> RunJudging:
    """Judge the run's submissions for `scope` (a subtask, final, or all), storing the verdicts and the
    costs as they come; `cancel()` true stops after the requests under way (their verdicts are kept).
    `dry_run`: the requests estimated (summary.planned_requests, estimated_prompt_tokens), none sent."""
    loaded = loaded_for_judging(project_dir)
    run_dir = find_run(run_id, default_runs_dir(Path(project_dir)))
    submissions, skipped = run_submissions(loaded.project, run_dir, scope)
    result = RunJudging(skipped=skipped)
    store = VerdictStore(Path(project_dir))
    if dry_run:
        for submission in submissions:
            result.summary.add(judge_submission(loaded, submission, settings, store, dry_run=True))
        return result
    with open_client(settings) as client:
        for submission in submissions:
            if cancel is not None and cancel():
                result.summary.cancelled = True
                break
            summary = judge_submission(loaded, submission, settings, store, progress, cancel, client=client)
            result.summary.add(summary)
            if summary.cancelled:
                break
    return result
