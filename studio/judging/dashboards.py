"""What the app's scores view, agreement dashboard and rubric calibration flags show, computed
from a project folder and its loaded model: the work the app runs on its TaskRunner (Qt-free,
so it is tested and reused without a window)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from studio.judging.errors import JudgingError

if TYPE_CHECKING:
    from studio.agreement.results import AgreementReport
    from studio.judging.score_sheet import ScoreSheet
    from studio.judging.visibility import Viewer
    from studio.model import Project


def compute_scores(root: Path, project: Project, judge: str | None = None,
                   viewer: Viewer | None = None) -> tuple[ScoreSheet, bytes, bytes]:
    """The score sheet of the project's runs and its trajectory and profile charts (PNG); for a
    blind rater (`viewer`), over the verdicts they may see: the rest is missing to them."""
    from studio.judging.score_sheet import read_score_sheet

    sheet = read_score_sheet(root, project, judge, viewer=viewer)
    return (sheet, *score_charts(sheet))


def score_charts(sheet: ScoreSheet) -> tuple[bytes, bytes]:
    """The trajectory chart and the target and dimension profiles of a score sheet (PNG): the app
    draws them after the sheet is shown, which takes a small part of their time."""
    from studio.judging.charts import profile_png, trajectory_png

    return trajectory_png(sheet), profile_png(sheet)


@dataclass(frozen=True)
class AgreementResult:
    report: AgreementReport
    png: bytes
    judges: list[str]  # the judge raters of the store
    judge: str | None  # the judge compared with the experts
    left_out: str | None


def compute_agreement(root: Path, project: Project, judge: str | None = None, resamples: int = 0,
                      seed: int = 0, viewer: Viewer | None = None) -> AgreementResult:
    """The agreement analysis of the store (the judge and the experts on every decision), pooled
    and by target and dimension, with its chart. Without `judge`, the store's first judge. For a
    blind rater (`viewer`), over the decisions they have rated themselves."""
    from studio.agreement import Analysis
    from studio.agreement.plot import plot_png
    from studio.judging.tables import ratings_of, read_project_verdicts
    from studio.judging.verdicts import is_judge
    from studio.scoring.project_rubrics import project_rubrics

    info = project.info
    project_id = info.id if info is not None else Path(root).name
    verdicts = read_project_verdicts(Path(root), project, project_id, project_rubrics(project), viewer=viewer)
    judges = sorted(r for r in verdicts.found.raters() if is_judge(r))
    if judge is not None and judge not in judges:
        judge = None
    if judge is None and judges:
        judge = judges[0]
    ratings = ratings_of([verdicts], judge)
    if viewer is not None and viewer.hides_any() and len(ratings.raters) < 2:
        who = viewer.name or "you (no rater name yet)"
        raise JudgingError(f"blind review shows the agreement over the decisions you have rated yourself, and {who} "
                           "rated none yet: review some decisions first, or turn Blind off in the Review tab")
    if ratings.n_decisions == 0:
        raise JudgingError("no current verdicts to compare yet: judge a run, or review its decisions")
    if len(ratings.raters) < 2:
        raise JudgingError(f"agreement needs two raters on the same decisions; the store holds only "
                           f"{ratings.raters[0]}'s verdicts: review some decisions as an expert first")
    report = Analysis(ratings, judge, resamples, seed).report()
    return AgreementResult(report, plot_png(report), judges, judge, verdicts.found.left_out())


@dataclass(frozen=True)
class CalibrationCell:
    """One criterion's judge-expert calibration, as the rubric editor shows it."""

    decisions: int
    disagreements: int
    agreement: float
    flagged: bool

    def describe(self) -> str:
        return (f"judge and experts disagree on {self.disagreements} of {self.decisions} decisions "
                f"(agreement {self.agreement:.0%})")


def compute_calibration(root: Path, project: Project,
                        viewer: Viewer | None = None) -> dict[tuple[str, str], CalibrationCell]:
    """(scope, criterion id) -> its calibration, for every criterion judged by both a judge and
    the experts, flagged by the project's thresholds (verdicts/calibration.yaml); for a blind
    rater (`viewer`), over the decisions they have rated themselves."""
    from studio.judging.calibration import calibrate, read_settings
    from studio.judging.decisions import current_versions
    from studio.judging.verdict_store import VerdictStore

    store = VerdictStore(Path(root))
    if not store.root.is_dir():
        return {}
    settings, _problem = read_settings(Path(root))  # a bad value there is a finding of `review`
    cells = {}
    for entry in calibrate(store, current_versions(project), None, project.timeline(), viewer):
        agreement = entry.agreement
        if agreement is None:
            continue
        cells[(entry.scope, entry.criterion)] = CalibrationCell(
            entry.decisions, len(entry.disagreements), agreement,
            entry.flagged(settings.min_agreement, settings.min_decisions))
    return cells
