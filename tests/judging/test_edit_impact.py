"""The edit-impact preview of an open project (what the app's panel computes), without a window: the
blank template's two judged runs and two experts (tests/judging/scored_runs.py), edits made through
the editing session as the app makes them, the saved files on disk as the other side.

The one rule of which verdicts count: a text, weight or gate edit stales every verdict on the
criterion (judges' and experts' alike), a `requires` or dimension edit none."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.rubric import edit_criterion
from studio.editing.session import ProjectSession
from studio.judging.edit_impact import EditImpactError, preview_unsaved
from studio.judging.visibility import Viewer
from studio.scoring.bounds import ScoreRange
from studio.store.loader import load_project, reload_files
from tests.judging.scored_runs import RUN_A, RUN_B, SYSTEM_A, add_experts, scored_project


@pytest.fixture
def session(tmp_path: Path) -> ProjectSession:
    root = scored_project(tmp_path / "blank")
    add_experts(root)
    return ProjectSession(root)


def edited(session: ProjectSession, scope: str, key: str, values: dict) -> ProjectSession:
    session.apply(edit_criterion(session.documents, scope, key, values))
    return session


def test_no_edit_no_change(session: ProjectSession):
    impact = preview_unsaved(session.loaded)
    assert impact.changes == [] and impact.flips == []
    assert [s.submission for s in impact.submissions] == [RUN_A, RUN_B] and impact.systems[RUN_A] == SYSTEM_A
    assert not any(s.changed for s in impact.submissions)


def test_a_weight_edit_stales_judges_and_experts_verdicts_alike(session: ProjectSession):
    impact = preview_unsaved(edited(session, "T02", "T02-C01", {"weight": 5}).loaded)
    assert [(c.scope, c.criterion, c.fields, c.stales) for c in impact.changes] == [
        ("T02", "T02-C01", ("weight",), True), ("final", "T02-C01", ("weight",), True)]
    for sub in impact.submissions:
        assert sub.rubrics["T02"].stale == ("T02-C01",) and sub.rubrics["final"].stale == ("T02-C01",)
    # T02-C01 on each run: the judge, Anna and Ben in T02; the judge and Anna in the final rubric
    assert (impact.rejudge.judge_verdicts, impact.rejudge.people_verdicts) == (4, 6)
    assert (impact.rejudge.decisions, impact.rejudge.requests) == (4, 4)


def test_a_requires_edit_rescores_exactly(session: ProjectSession):
    # experts fail T02-C01 on both runs (the judge passes it): T02-C02 (4) is not credited until it stops requiring it
    impact = preview_unsaved(edited(session, "T02", "T02-C02", {"requires": []}).loaded)
    assert [(c.criterion, c.fields, c.stales) for c in impact.changes] == [("T02-C02", ("requires",), False)]
    run_a = impact.impact_of(RUN_A)
    assert run_a is not None and run_a.stale == 0
    # run-a T02: T02-C01 fail (experts), T02-C02 pass, gate fail, T02-N01 pass (-2): (4 - 2) / 10 after, 0 before
    assert run_a.rubrics["T02"].before == ScoreRange(0.0, 0.0, True)
    assert run_a.rubrics["T02"].after == ScoreRange(20.0, 20.0, True)
    assert impact.rejudge.decisions == 0


def test_a_blind_rater_sees_the_preview_over_their_own_verdicts(session: ProjectSession):
    """Ben rated only T01-C01 and T02-C01 of each run: he sees every verdict on those decisions (his own
    given) and none on the others, where the final rubric's T02-C01 is."""
    edited(session, "T02", "T02-C01", {"text": "Reworded: the corrected M02 figure everywhere."})
    ben = preview_unsaved(session.loaded, Viewer("Ben", blind=True))
    everyone = preview_unsaved(session.loaded)
    assert (ben.rejudge.judge_verdicts, ben.rejudge.people_verdicts) == (2, 4)
    assert (everyone.rejudge.judge_verdicts, everyone.rejudge.people_verdicts) == (4, 6)


def test_an_edited_rubric_that_does_not_load_is_named_not_read_as_deleted(session: ProjectSession):
    broken = reload_files(session.loaded, {"subtasks/T02/rubric.yaml": "criteria:\n  - id: [\n"})
    with pytest.raises(EditImpactError, match=r"as edited does not load.*\n  subtasks/T02/rubric.yaml:\d+:\d+: "):
        preview_unsaved(broken)


def test_saved_files_that_do_not_load_are_named(session: ProjectSession):
    (session.root / "final/rubric.yaml").write_text("criteria: 3\n", encoding="utf-8")
    fresh = load_project(session.root)
    with pytest.raises(EditImpactError, match="as edited does not load"):
        preview_unsaved(fresh)
    with pytest.raises(EditImpactError, match=r"as saved does not load.*\n  final/rubric.yaml:1:11: criteria must be a list"):
        preview_unsaved(session.loaded)
