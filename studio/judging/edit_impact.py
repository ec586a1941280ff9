"""The edit-impact preview of one project: its verdict store read against the rubrics as saved and
as edited, each judged submission scored both ways (studio.scoring.edit_impact), and what would
have to be judged again.

One rule decides which verdicts count on each side, the one every score uses
(studio.judging.decisions): a verdict counts when it was given on the criterion's version now (its
text, weight and gate: `criterion_version`). So an edit of a criterion's text, weight or gate
stales its verdicts, and the preview calls them missing, exactly as `dbstudio score` will once the
edit is saved; a `requires`, target or dimension edit stales nothing and is scored exactly. The
verdict a decision counts is chosen as `dbstudio score --project` chooses it (adjudicated, else
agreeing experts, else the judge or every judge agreeing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from studio.errors import StudioError
from studio.judging.decisions import StoreDecisions, collect, current_versions
from studio.judging.protocol import ProtocolSettings, batches_of
from studio.judging.tables import ProjectVerdicts, score_rubrics
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import is_judge
from studio.scoring.edit_impact import Flip, SubmissionImpact, project_flips, submission_impact
from studio.store.layout import is_project_yaml

if TYPE_CHECKING:
    from studio.judging.visibility import Viewer
    from studio.model import Project
    from studio.scoring.project_rubrics import ProjectRubrics
    from studio.store.loader import LoadedProject

BATCH = ProtocolSettings().batch
"""Criteria per judge request (the paper's 8), for the estimate of what re-judging asks."""
SCORED_FIELDS = ("text", "weight", "gate", "requires")
"""The fields of a criterion its score reads; the first three are its version."""


class EditImpactError(StudioError):
    """The rubrics cannot be compared (one side does not resolve or cannot be scored)."""


@dataclass(frozen=True)
class CriterionChange:
    """One criterion the edit touched in what its score reads."""

    scope: str
    criterion: str
    fields: tuple[str, ...]  # "added", "removed", or the SCORED_FIELDS that changed

    @property
    def stales(self) -> bool:
        """Whether its verdicts stop counting (its version changed)."""
        return any(name in ("text", "weight", "gate") for name in self.fields)

    def text(self) -> str:
        return f"{self.scope}/{self.criterion} {', '.join(self.fields)}"


@dataclass(frozen=True)
class Rejudge:
    """What the edit leaves to judge: decisions (submission x scope x criterion) of the stale and
    new criteria, the requests the judge would need for them at `batch` criteria a request (the
    first batches of the protocol, per submission and scope; attempts and the one-at-a-time phase
    not counted), and the stored verdicts that stop counting, by judges and by people."""

    decisions: int = 0
    checks: int = 0  # decided by a programmatic check: no request
    requests: int = 0
    batch: int = BATCH
    judge_verdicts: int = 0
    people_verdicts: int = 0


@dataclass
class ProjectEditImpact:
    project_id: str
    judge: str | None
    changes: list[CriterionChange]
    submissions: list[SubmissionImpact] = field(default_factory=list)
    systems: dict[str, str] = field(default_factory=dict)  # submission -> the name it is shown by
    flips: list[Flip] = field(default_factory=list)
    rejudge: Rejudge = field(default_factory=Rejudge)

    def impact_of(self, submission: str) -> SubmissionImpact | None:
        return next((s for s in self.submissions if s.submission == submission), None)


def criterion_changes(before: ProjectRubrics, after: ProjectRubrics) -> list[CriterionChange]:
    """The criteria added, removed, or changed in text, weight, gate or requires, rubric by rubric."""
    changes = []
    for scope in dict.fromkeys([*after, *before]):
        old, new = before.get(scope, {}), after.get(scope, {})
        for key in dict.fromkeys([*new, *old]):
            if key not in old:
                changes.append(CriterionChange(scope, key, ("added",)))
            elif key not in new:
                changes.append(CriterionChange(scope, key, ("removed",)))
            else:
                changed = tuple(name for name in SCORED_FIELDS if getattr(old[key], name) != getattr(new[key], name))
                if changed:
                    changes.append(CriterionChange(scope, key, changed))
    return changes


def refuse_problems(loaded: LoadedProject, side: str, fix: str) -> None:
    """EditImpactError listing the located problems of the project's YAML files (`side`: "as saved at
    1a2b3c4d", "as edited"): a rubric file that does not load would read as every criterion deleted."""
    problems = [p for p in loaded.problems if is_project_yaml(p.file)]
    if not problems and loaded.project.info is not None:
        return
    lines = [f"  {p.file}:{':'.join(map(str, loaded.locate(p)))}: {p.message}" for p in problems[:10]]
    more = len(problems) - len(lines)
    lines += [f"  ... and {more} more"] if more > 0 else []
    raise EditImpactError(f"the project {side} does not load, so its rubrics are not known:\n"
                          + "\n".join(lines) + f"\n{fix}")


def preview_unsaved(edited: LoadedProject, viewer: Viewer | None = None) -> ProjectEditImpact:
    """What the app's rubric editor shows: the project as edited (its unsaved model) against its files
    as saved on disk, every submission of the verdict store, named as the scores name them."""
    from studio.judging.tables import system_names
    from studio.store.loader import load_project

    refuse_problems(edited, "as edited", "fix them (the Findings panel lists each) to see the edit's impact")
    saved = load_project(edited.root)
    refuse_problems(saved, "as saved", "save a version that loads, or reload the project")
    submissions = VerdictStore(edited.root).submissions()
    return project_edit_impact(edited.root, saved.project, edited.project, viewer=viewer,
                               systems=system_names(edited.root, submissions))


def _rubrics(project: Project, side: str) -> ProjectRubrics:
    from studio.scoring.project_rubrics import project_rubrics

    try:
        return project_rubrics(project)
    except StudioError as exc:
        raise EditImpactError(f"the rubrics {side}: {exc}") from None


def project_edit_impact(root: Path, before: Project, after: Project, *, judge: str | None = None,
                        submissions: Sequence[str] | None = None, systems: Mapping[str, str] | None = None,
                        viewer: Viewer | None = None, batch: int = BATCH) -> ProjectEditImpact:
    """The preview for the project in `root`: `before` the rubrics the stored verdicts are read
    against as saved, `after` as edited. `submissions`: the ones to score (default: every one with
    verdicts; one without any is scored with every verdict missing); `systems`: the name each is
    shown by (default its id); `viewer`: a blind rater sees only the verdicts they may."""
    project_id = (after.info.id if after.info is not None else None) or Path(root).name
    old_rubrics, new_rubrics = _rubrics(before, "as saved"), _rubrics(after, "as edited")
    impact = ProjectEditImpact(project_id, judge, criterion_changes(old_rubrics, new_rubrics))
    store = VerdictStore(Path(root))
    stored = store.submissions()
    chosen = list(stored if submissions is None else dict.fromkeys(submissions))
    if not chosen:
        return impact
    judged = [s for s in chosen if s in stored]
    found_before = collect(store, current_versions(before), judged, viewer)
    found_after = collect(store, current_versions(after), judged, viewer)
    columns_before = _columns(root, project_id, old_rubrics, chosen, found_before, judge)
    columns_after = _columns(root, project_id, new_rubrics, chosen, found_after, judge)
    try:
        impact.submissions = [submission_impact(s, columns_before.get(s, {}), columns_after.get(s, {}))
                              for s in chosen]
    except StudioError as exc:
        raise EditImpactError(str(exc)) from None
    impact.systems = {s: (systems or {}).get(s, s) for s in chosen}
    impact.flips = project_flips(impact.submissions)
    impact.rejudge = _rejudge(after, impact, found_before, found_after, batch)
    return impact


def _columns(root: Path, project_id: str, rubrics: ProjectRubrics, submissions: list[str],
             found: StoreDecisions, judge: str | None) -> dict:
    """submission -> scope -> its rubric with the verdicts that count (the score table's rows)."""
    verdicts = ProjectVerdicts(Path(root), project_id, rubrics, submissions, {s: s for s in submissions}, found)
    return score_rubrics([verdicts], judge).get(project_id, {})


def _rejudge(after: Project, impact: ProjectEditImpact, found_before: StoreDecisions,
             found_after: StoreDecisions, batch: int) -> Rejudge:
    from studio.model.checks import CheckUse

    checked = {(scope, c.key) for scope, c in after.all_criteria()
               if c.check is not None and c.check.use is CheckUse.CRITERION}
    decisions = checks = requests = 0
    for scored in impact.submissions:
        for scope, rubric in scored.rubrics.items():
            wanted = [*rubric.stale, *rubric.added]
            asked = [cid for cid in wanted if (scope, cid) not in checked]
            decisions += len(asked)
            checks += len(wanted) - len(asked)
            requests += len(batches_of(asked, batch))
    # the stored verdicts that counted before and stop counting: given on the version the edit replaced
    judges = people = 0
    for submission, verdict in found_after.stale:
        if verdict.rater in found_before.decisions.get((submission, verdict.scope, verdict.criterion), {}):
            if is_judge(verdict.rater):
                judges += 1
            else:
                people += 1
    return Rejudge(decisions, checks, requests, batch, judges, people)
