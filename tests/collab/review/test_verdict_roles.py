"""Each given verdict records the role of whoever gave it (author, rater, adjudicator), and verdict files
written before roles were recorded still read, by the fast reader and the full one alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.judging.queue import ReviewQueue
from studio.judging.verdict_lines import read_lines
from studio.judging.verdict_store import VerdictStore
from tests.collab.review.review_work_project import cli, review_work_project
from tests.judging.projects import RUN_ID, criterion_id


def test_give_and_adjudicate_record_the_role(tmp_path: Path):
    root = review_work_project(tmp_path)
    assert cli("verdicts", "give", str(root), RUN_ID, "T01", criterion_id(1), "fail", "--rater", "Anna Berg")[0] == 0
    assert cli("verdicts", "give", str(root), RUN_ID, "T01", criterion_id(1), "pass", "--rater", "Ben Ode",
               "--role", "author")[0] == 0
    assert cli("verdicts", "adjudicate", str(root), RUN_ID, "T01", criterion_id(1), "pass", "--by", "Cleo Park")[0] == 0
    store = VerdictStore(root)
    assert "    role: rater\n" in store.path(RUN_ID, "Anna Berg").read_text()
    assert [v.role for v in store.read(RUN_ID, "Anna Berg")] == ["rater"]
    assert [v.role for v in store.read(RUN_ID, "Ben Ode")] == ["author"]
    settled = store.read(RUN_ID, "adjudicated")
    assert [(v.role, v.by) for v in settled] == [("adjudicator", "Cleo Park")]
    assert {v.role for v in store.read(RUN_ID, "judge:test-model")} == {None}  # a model has no role
    code, _, err = cli("verdicts", "give", str(root), RUN_ID, "T01", criterion_id(2), "pass", "--rater", "Anna Berg",
                       "--role", "adjudicator")
    assert code == 2 and "invalid choice: 'adjudicator'" in err


def test_the_queue_refuses_a_role_an_expert_cannot_give_in(tmp_path: Path):
    from studio.judging.errors import JudgingError

    queue = ReviewQueue.of_project(review_work_project(tmp_path))
    with pytest.raises(JudgingError, match="as rater or author"):
        queue.give(queue.find(RUN_ID, "T01", criterion_id(1)), "Anna Berg", "pass", role="adjudicator")


OLD_FILE = """\
# Verdicts of Anna Berg on {run}: one block per verdict (dbstudio verdict store).
format: 1
submission: {run}
rater: "Anna Berg"
verdicts:
  - scope: T01
    criterion: {criterion}
    verdict: pass
    time: "2026-11-30T21:00:00Z"
    criterion_version: {version}
    note: "written before roles were recorded"
"""


@pytest.mark.parametrize("hand_edited", [False, True])
def test_a_verdict_file_without_roles_still_loads(tmp_path: Path, hand_edited: bool):
    root = review_work_project(tmp_path)
    queue = ReviewQueue.of_project(root)
    decision = queue.find(RUN_ID, "T01", criterion_id(3))
    text = OLD_FILE.format(run=RUN_ID, criterion=criterion_id(3), version=decision.criterion.version)
    if hand_edited:  # a layout the fast reader leaves to the full YAML reader
        text = text.replace("verdict: pass", "verdict: 'pass'")
    assert (read_lines(text) is None) == hand_edited
    path = VerdictStore(root).path(RUN_ID, "Anna Berg")
    path.write_text(text)
    (old,) = VerdictStore(root).read(RUN_ID, "Anna Berg")
    assert (old.verdict, old.role, old.note) == ("pass", None, "written before roles were recorded")
    queue = ReviewQueue.of_project(root)
    assert queue.find(RUN_ID, "T01", criterion_id(3)).ratings["Anna Berg"].verdict == "pass"
    # a verdict given now goes beside it with its role; the old one reads as before
    queue.give(queue.find(RUN_ID, "T01", criterion_id(4)), "Anna Berg", "fail")
    by_criterion = {v.criterion: v.role for v in VerdictStore(root).read(RUN_ID, "Anna Berg")}
    assert by_criterion == {criterion_id(3): None, criterion_id(4): "rater"}


def test_the_fast_reader_and_the_full_one_agree_on_a_file_with_roles(tmp_path: Path):
    root = review_work_project(tmp_path)
    assert cli("verdicts", "give", str(root), RUN_ID, "T01", criterion_id(1), "fail", "--rater", "Anna Berg",
               "--role", "author", "--note", "mine")[0] == 0
    text = VerdictStore(root).path(RUN_ID, "Anna Berg").read_text()
    fast = read_lines(text)
    assert fast is not None
    _, verdicts = fast
    full = VerdictStore(root).read(RUN_ID, "Anna Berg")
    assert [v.model_dump() for v in verdicts] == [v.model_dump() for v in full]
    assert verdicts[0].role == "author"
