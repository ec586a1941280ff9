"""`dbstudio benchmark judge`: every reported run of the benchmark that is not fully judged yet,
judged by the benchmark's judge (its profile and settings as benchmark.yaml pins them), one pair
after the other. Judging is resumable (verdicts already given are reused, so a second call judges
only what is missing), and one pair's failure never stops the others: it is named in the summary."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from studio.benchmark.loader import LoadedBenchmark
from studio.benchmark.status import SCORED, PairStatus, benchmark_status
from studio.errors import StudioError
from studio.judging.judge import JudgeProgress, JudgeSettings, JudgeSummary
from studio.judging.profiles import JudgeProfile
from studio.runs.record import RunStatus


@dataclass
class PairJudging:
    system: str
    project: str
    submission: str
    summary: JudgeSummary | None = None
    skipped: list[str] = field(default_factory=list)  # scopes the run has no checkpoint for
    error: str | None = None  # why the pair could not be judged


# a run's checkpoints can be judged once it stopped; a running one is left until it ends
JUDGEABLE_RUNS = {RunStatus.COMPLETED.value, RunStatus.FAILED.value, RunStatus.CANCELLED.value,
                  RunStatus.INTERRUPTED.value}


def to_judge(loaded: LoadedBenchmark) -> list[PairStatus]:
    """The reported runs that stopped and are not scored yet, in status order."""
    return [p for p in benchmark_status(loaded)
            if p.outcome is not None and p.run in JUDGEABLE_RUNS and p.judging != SCORED]


def judge_settings(loaded: LoadedBenchmark, endpoint: str | None = None, model: str | None = None,
                   profile: str | None = None, projects: Iterable[str] | None = None) -> dict[str, JudgeSettings]:
    """The benchmark's judge as settings for each project (`projects`, by default all of them), each
    built the same way: the profile (`profile`, else the pinned one) as *that* project's
    judging/profiles/NAME.yaml gives it, else the preset NAME; then the settings benchmark.yaml pins
    under `judge.settings`, the same for every project; then `endpoint` and `model`. The model
    defaults to the pinned rater's (judge:MODEL). A profile a project lacks, or a pinned setting that
    is no profile field, is a StudioError naming the project or benchmark.yaml's line."""
    from studio.benchmark.model import Judge
    from studio.judging.client import default_base_url, default_model
    from studio.judging.profiles import load_profile
    from studio.judging.request_shape import DEFAULT_TIMEOUT_S

    benchmark = loaded.benchmark
    assert benchmark is not None
    pinned = benchmark.judge if isinstance(benchmark.judge, Judge) else None
    name = profile or (pinned.profile if pinned is not None else None)
    rater = benchmark.judge_rater
    found: dict[str, JudgeSettings] = {}
    for project in (loaded.projects if projects is None else projects):
        folder = loaded.projects[project].folder
        try:
            chosen = load_profile(folder, name) if name else JudgeProfile(timeout_s=DEFAULT_TIMEOUT_S)
        except StudioError as error:
            raise BenchmarkJudgeError(f"project {project} ({folder}): {error}") from None
        if pinned is not None and pinned.settings:
            chosen = _pinned(loaded, chosen, pinned.settings)
        chosen = chosen.with_changes(model=model or (rater.removeprefix("judge:") if rater and not chosen.model
                                                     else None), endpoint=endpoint)
        found[project] = JudgeSettings.from_profile(chosen, base_url=default_base_url(), model=default_model(),
                                                    name=name)
    return found


class BenchmarkJudgeError(StudioError):
    """The benchmark's judge cannot be set up: a project lacks its profile, or a pinned setting is wrong."""


def _pinned(loaded: LoadedBenchmark, profile: JudgeProfile, settings: dict) -> JudgeProfile:
    """`profile` with benchmark.yaml's `judge.settings` over it; a wrong one named at its line."""
    from studio.store import fastyaml

    for key, value in settings.items():
        problem = None
        if key not in JudgeProfile.model_fields or key == "preset":
            problem = (f"'{key}' is not a judge setting: use one of "
                       f"{', '.join(f for f in JudgeProfile.model_fields if f != 'preset')} (docs/judging.md)")
        else:
            try:
                profile = profile.with_changes(**{key: value})
            except StudioError as error:
                problem = str(error)
        if problem is not None:
            document, _ = fastyaml.load(loaded.path)
            line, column = document.locate(("judge", "settings", key))
            raise BenchmarkJudgeError(f"{loaded.path}:{line}:{column}: judge.settings: {problem}")
    return profile


def judge_benchmark(loaded: LoadedBenchmark, settings: Mapping[str, JudgeSettings],
                    progress: Callable[[JudgeProgress], None] | None = None,
                    cancel: Callable[[], bool] | None = None) -> list[PairJudging]:
    """Judge every pair `to_judge` lists, each with its project's settings (`judge_settings`); each
    pair's summary, or the reason it failed."""
    from studio.judging.run_judging import ALL_SCOPES, judge_run

    done: list[PairJudging] = []
    for pair in to_judge(loaded):
        if cancel is not None and cancel():
            break
        assert pair.outcome is not None
        result = PairJudging(pair.system, pair.project, pair.outcome.submission)
        folder: Path = loaded.projects[pair.project].folder
        try:
            judged = judge_run(folder, pair.outcome.submission, ALL_SCOPES, settings[pair.project], progress,
                               cancel)
            result.summary, result.skipped = judged.summary, judged.skipped
        except StudioError as error:
            result.error = str(error).splitlines()[0]
        done.append(result)
        if result.summary is not None and result.summary.cancelled:
            break
    return done
