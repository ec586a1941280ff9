"""Blind review's rule (studio.judging.visibility) and the computations that ask it: the scores, the
agreement and the calibration a blind rater sees, against hand computations.

The project of tests/judging/review_project.py (T01: C1..C10, weights 5, 3, 2, 4, -2, 1, 3, 2, 5, -3,
W+ = 25), with:

    criterion   1  2  3  4  5  6..10
    judge       P  P  F  P  F  P F P P F
    Anna        P  P  P  -  -  -
    Ben         P  F  F  F  F  -
    adjudicated    F (by Carla)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.judging.dashboards import compute_agreement, compute_calibration, compute_scores
from studio.judging.errors import JudgingError
from studio.judging.queue import ReviewQueue
from studio.judging.verdict_store import VerdictStore
from studio.judging.visibility import EVERYTHING, Viewer
from tests.judging.projects import RUN_ID, criterion_id, load
from tests.judging.review_project import JUDGE, review_project

ANNA = Viewer("Anna", "rater", blind=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = review_project(tmp_path)
    queue = ReviewQueue.of_project(root)
    decisions = queue.decisions
    for number, value in enumerate(("pass", "pass", "pass")):
        queue.give(decisions[number], "Anna", value)
    for number, value in enumerate(("pass", "fail", "fail", "fail", "fail")):
        queue.give(decisions[number], "Ben", value)
    queue.adjudicate(decisions[1], "fail", by="Carla")
    return root


def ratings_of(root: Path, number: int) -> dict:
    return ReviewQueue.of_project(root).find(RUN_ID, "T01", criterion_id(number)).ratings


def test_a_blind_rater_sees_only_their_own_verdict_until_they_have_given_it(project: Path) -> None:
    rated, unrated = ratings_of(project, 2), ratings_of(project, 4)
    assert set(rated) == {JUDGE, "Anna", "Ben", "adjudicated"}
    assert ANNA.visible(rated) == rated  # given: the judge, Ben and the adjudicated verdict show
    assert ANNA.visible(unrated) == {} and not ANNA.sees_all(unrated)  # not given: nothing of anyone
    assert Viewer("", "rater", blind=True).visible(rated) == {}  # no name yet: no verdict of theirs either
    assert Viewer("Anna", "rater", blind=False).visible(unrated) == unrated  # out of blind mode: all
    assert Viewer("Carla", "adjudicator", blind=True).visible(unrated) == unrated  # the adjudicator: all
    assert not ANNA.is_adjudicator and ANNA.hides_any() and not EVERYTHING.hides_any()


def test_the_scores_of_a_blind_rater_count_only_the_decisions_they_rated(project: Path) -> None:
    loaded = load(project).project
    sheet, _, _ = compute_scores(project, loaded, None, ANNA)
    (run,) = sheet.runs
    # Anna sees C1 (experts P: +5), C2 (adjudicated F) and C3 (experts differ: missing); C4..C10 are
    # missing to her. Lowest: 5 - 2 (C5) - 3 (C10) = 0; highest: 5 + 2 + 4 + 1 + 3 + 2 + 5 = 22 -> 88%.
    assert run.checkpoints[0].scope == "T01" and run.checkpoints[0].text() == "0.0–88.0"
    sheet, _, _ = compute_scores(project, loaded, None, EVERYTHING)
    # every verdict: C1 +5, C2 F, C3 missing (experts differ), C4 F, C5 F, C6 +1, C7 F, C8 +2, C9 +5, C10 F:
    # 13 of 25, and C3 (weight 2) could add 2: 52 to 60
    assert sheet.runs[0].checkpoints[0].text() == "52.0–60.0"


def test_the_agreement_of_a_blind_rater_is_over_the_decisions_they_rated(project: Path) -> None:
    loaded = load(project).project
    report = compute_agreement(project, loaded, None, 0, 0, ANNA).report
    assert report.decisions == 3 and report.raters == [JUDGE, "Anna", "Ben"]
    # judge-Anna agree on C1, C2; judge-Ben on C1, C3; Anna-Ben on C1
    pairs = report.pooled["pairwise"]
    assert [(p["n"], p["agree"]) for p in pairs.values()] == [(3, 2), (3, 2), (3, 1)]
    assert compute_agreement(project, loaded, None, 0, 0, EVERYTHING).report.decisions == 10
    with pytest.raises(JudgingError, match="blind review"):
        compute_agreement(project, loaded, None, 0, 0, Viewer("Dora"))


def test_the_calibration_of_a_blind_rater_is_over_the_decisions_they_rated(project: Path) -> None:
    loaded = load(project).project
    # settled by people: C1 (experts agree), C2 (adjudicated); C3 experts differ; C4, C5 Ben alone
    assert sorted(compute_calibration(project, loaded, ANNA)) == [("T01", criterion_id(1)), ("T01", criterion_id(2))]
    assert sorted(compute_calibration(project, loaded, EVERYTHING)) == [("T01", criterion_id(n)) for n in (1, 2, 4, 5)]
    assert compute_calibration(project, loaded, Viewer("Dora")) == {}


def test_the_adjudicator_is_recorded_and_an_older_file_without_one_still_loads(project: Path) -> None:
    store = VerdictStore(project)
    (settled,) = store.read(RUN_ID, "adjudicated")
    assert (settled.verdict, settled.by) == ("fail", "Carla")
    path = store.path(RUN_ID, "adjudicated")
    older = "".join(line for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
                    if not line.strip().startswith("by:"))
    path.write_text(older, encoding="utf-8")
    (settled,) = store.read(RUN_ID, "adjudicated")
    assert (settled.verdict, settled.by) == ("fail", None)
