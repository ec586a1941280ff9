"""Judge calibration: per criterion, how often the judge agrees with the people, over every
submission judged by both.

A comparison is one judge rater's pass/fail on one decision against the people's settled verdict
there (adjudicated, else every expert agreeing; experts who differ give no reference). Only
verdicts on the criterion as it is now count, so rewriting a criterion starts its calibration
afresh. `na` and `missing` verdicts are not compared.

A criterion is flagged when it has at least `min_decisions` comparisons and its agreement is
below `min_agreement`. The defaults (8 and 0.75: three or more disagreements in eight) flag about
one criterion in a hundred by chance at the paper's pooled agreement (93.3%), and most
criteria the judge reads differently from the experts. A project sets its own in
verdicts/calibration.yaml (`min_agreement: 0.8`, `min_decisions: 12`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from studio.judging.decisions import PASS_FAIL, collect, human_reference
from studio.judging.verdict_store import VerdictStore, scope_rank
from studio.judging.verdicts import is_judge
from studio.judging.visibility import Viewer

MIN_AGREEMENT = 0.75
MIN_DECISIONS = 8
SETTINGS_FILE = "calibration.yaml"


@dataclass(frozen=True)
class Comparison:
    submission: str
    judge: str  # the judge rater, "judge:MODEL"
    judged: str  # the judge's pass/fail
    settled: str  # the people's pass/fail

    @property
    def agrees(self) -> bool:
        return self.judged == self.settled


@dataclass
class CriterionCalibration:
    scope: str
    criterion: str
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def decisions(self) -> int:
        return len(self.comparisons)

    @property
    def disagreements(self) -> list[Comparison]:
        return [c for c in self.comparisons if not c.agrees]

    @property
    def agreement(self) -> float | None:
        """The share of comparisons where the judge agrees; None without any."""
        return (self.decisions - len(self.disagreements)) / self.decisions if self.comparisons else None

    def flagged(self, min_agreement: float = MIN_AGREEMENT, min_decisions: int = MIN_DECISIONS) -> bool:
        agreement = self.agreement
        return self.decisions >= min_decisions and agreement is not None and agreement < min_agreement

    def describe_disagreements(self, limit: int = 5) -> str:
        """`RUN (judge pass, experts fail)`, ... for the first `limit` disagreements."""
        shown = [f"{c.submission} ({c.judge} {c.judged}, experts {c.settled})" for c in self.disagreements[:limit]]
        more = len(self.disagreements) - len(shown)
        return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def calibrate(store: VerdictStore, versions: Mapping[tuple[str, str], str],
              submissions: Iterable[str] | None = None, timeline: list[str] | None = None,
              viewer: Viewer | None = None) -> list[CriterionCalibration]:
    """Every criterion with at least one comparison, along the timeline then by id (final last); with
    a `viewer`, over the decisions blind review lets them see."""
    found = collect(store, versions, submissions, viewer)
    by_criterion: dict[tuple[str, str], CriterionCalibration] = {}
    for (submission, scope, criterion), ratings in sorted(found.decisions.items()):
        settled = human_reference(ratings)
        if settled is None:
            continue
        for rater, verdict in sorted(ratings.items()):
            if is_judge(rater) and verdict.verdict in PASS_FAIL:
                entry = by_criterion.setdefault((scope, criterion), CriterionCalibration(scope, criterion))
                entry.comparisons.append(Comparison(submission, rater, verdict.verdict, settled))
    order = {sid: i for i, sid in enumerate(timeline if timeline is not None else store.timeline())}
    return sorted(by_criterion.values(), key=lambda c: (scope_rank(c.scope, order), c.criterion))


@dataclass(frozen=True)
class CalibrationSettings:
    min_agreement: float = MIN_AGREEMENT
    min_decisions: int = MIN_DECISIONS


@dataclass(frozen=True)
class SettingsProblem:
    path: Path
    line: int
    message: str


def read_settings(project_dir: Path) -> tuple[CalibrationSettings, SettingsProblem | None]:
    """The project's thresholds (verdicts/calibration.yaml), defaults for any not set or not valid."""
    path = VerdictStore(project_dir).root / SETTINGS_FILE
    if not path.is_file():
        return CalibrationSettings(), None
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        return CalibrationSettings(), SettingsProblem(path, mark.line + 1 if mark else 1,
                                                      f"cannot read the calibration settings ({exc}); defaults used")
    if not isinstance(data, dict):
        return CalibrationSettings(), SettingsProblem(path, 1, "the calibration settings must be `min_agreement: X` "
                                                               "and `min_decisions: N`; defaults used")
    agreement, decisions = data.get("min_agreement", MIN_AGREEMENT), data.get("min_decisions", MIN_DECISIONS)
    unknown = sorted(str(key) for key in data if key not in ("min_agreement", "min_decisions"))
    if unknown:
        return CalibrationSettings(), SettingsProblem(path, _line(text, unknown[0]), (
            f"unknown setting '{unknown[0]}': the calibration settings are min_agreement and min_decisions; "
            "defaults used"))
    if isinstance(agreement, bool) or not isinstance(agreement, int | float) or not 0 <= agreement <= 1:
        return CalibrationSettings(), SettingsProblem(path, _line(text, "min_agreement"), (
            f"min_agreement must be a share from 0 to 1 (got {agreement!r}); defaults used"))
    if isinstance(decisions, bool) or not isinstance(decisions, int) or decisions < 1:
        return CalibrationSettings(), SettingsProblem(path, _line(text, "min_decisions"), (
            f"min_decisions must be a whole number of at least 1 (got {decisions!r}); defaults used"))
    return CalibrationSettings(float(agreement), decisions), None


def _line(text: str, key: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(f"{key}:"):
            return number
    return 1
