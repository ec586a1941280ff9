"""The review queue (studio.judging.queue) on a project with one judged run: its decisions, the
reading an expert gets, filters, and verdicts recorded into the verdict store."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.judging.decisions import choose
from studio.judging.errors import JudgingError
from studio.judging.queue import QueueFilter, ReviewQueue, check_expert
from studio.judging.verdict_store import VerdictStore
from tests.judging.projects import RUN_ID, criterion_id
from tests.judging.review_project import JUDGE, JUDGE_VERDICTS, WEIGHTS, review_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return review_project(tmp_path)


def test_the_queue_lists_each_criterion_of_the_judged_scope_with_what_the_expert_reads(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    assert [d.key for d in queue.decisions] == [(RUN_ID, "T01", criterion_id(n)) for n in range(1, 11)]
    first = queue.decisions[0]
    assert first.criterion.text == "The report states item 1 of the brief."
    assert (first.criterion.weight, first.criterion.target, first.criterion.dimension) == (
        5,
        "checkpoint",
        "completeness",
    )
    assert [d.criterion.weight for d in queue.decisions] == [WEIGHTS[n] for n in range(1, 11)]
    judge = first.judge_verdict()
    assert judge is not None and judge.rater == JUDGE and judge.verdict == "pass"
    assert judge.note == "Rationale 1: the report says so." and judge.evidence == ["outputs/report.txt#L1-L2"]
    instruction = queue.instruction("T01")
    instruction_md = (project / "subtasks" / "T01" / "instruction.md").read_text(encoding="utf-8")
    assert instruction.title.startswith("Instruction of subtask T01") and instruction.text == instruction_md
    assert queue.instruction("final").title == "Delivery contract"
    assert queue.experts() == [] and queue.raters() == [JUDGE]


def test_an_expert_verdict_goes_to_the_experts_own_file_and_leaves_the_judges_alone(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    store = VerdictStore(project)
    judge_file = store.path(RUN_ID, JUDGE)
    before = judge_file.read_bytes()
    decision = queue.decisions[2]
    verdict = queue.give(decision, "Marta Lindqvist", "pass", note="  The item is stated on line 3.  ")
    assert store.path(RUN_ID, "Marta Lindqvist") == project / "verdicts" / RUN_ID / "marta-lindqvist.yaml"
    assert judge_file.read_bytes() == before
    assert store.read(RUN_ID, "Marta Lindqvist") == [verdict]
    assert verdict.note == "The item is stated on line 3." and verdict.criterion_version == decision.criterion.version
    assert decision.ratings["Marta Lindqvist"] == verdict
    # read back from the files: the judge said fail, the expert pass
    again = ReviewQueue.of_project(project)
    assert again.find(RUN_ID, "T01", criterion_id(3)).judge_and_expert_disagree()
    assert [d.criterion.id for d in again.filtered(QueueFilter(disagree=True))] == [criterion_id(3)]
    assert len(again.filtered(QueueFilter(not_reviewed_by="Marta Lindqvist"))) == 9
    assert again.experts() == ["Marta Lindqvist"]


def test_adjudication_lists_decisions_where_raters_differ_and_settles_them(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    one, two, three = queue.decisions[:3]
    queue.give(one, "Anna", "pass")  # agrees with the judge (pass)
    queue.give(one, "Ben", "pass")
    queue.give(two, "Anna", "pass")  # the judge said pass: experts differ
    queue.give(two, "Ben", "fail")
    queue.give(three, "Anna", "na")  # the judge said fail: judge and expert differ
    assert [d.criterion.id for d in queue.adjudication()] == [criterion_id(2), criterion_id(3)]
    assert choose(two.ratings).value is None
    settled = queue.adjudicate(two, "fail", by="Carla Ruiz", note="Ben is right: item 2 is only implied.")
    assert settled.rater == "adjudicated" and (project / "verdicts" / RUN_ID / "adjudicated.yaml").is_file()
    # who settled it is part of the record, read back from the file
    (stored,) = VerdictStore(project).read(RUN_ID, "adjudicated")
    assert (stored.verdict, stored.by) == ("fail", "Carla Ruiz")
    assert '    by: "Carla Ruiz"\n' in (project / "verdicts" / RUN_ID / "adjudicated.yaml").read_text(encoding="utf-8")
    assert choose(ReviewQueue.of_project(project).find(RUN_ID, "T01", criterion_id(2)).ratings).value == "fail"


def test_filters_narrow_by_run_scope_criterion_target_and_dimension(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    assert len(queue.filtered(QueueFilter(submission=RUN_ID[:8]))) == 10
    assert queue.filtered(QueueFilter(submission="nothing")) == []
    assert queue.filtered(QueueFilter(scope="T02")) == []
    assert [d.criterion.id for d in queue.filtered(QueueFilter(criterion=criterion_id(4)))] == [criterion_id(4)]
    assert len(queue.filtered(QueueFilter(target="checkpoint", dimension="completeness"))) == 10
    assert queue.filtered(QueueFilter(dimension="accuracy")) == []
    fails = [n for n, value in JUDGE_VERDICTS.items() if value == "fail"]
    for n in fails:
        queue.give(queue.decisions[n - 1], "Anna", "pass")
    assert [d.criterion.id for d in queue.filtered(QueueFilter(disagree=True))] == [criterion_id(n) for n in fails]


def test_a_verdict_needs_an_experts_name_and_pass_fail_or_na(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    decision = queue.decisions[0]
    for name in ("", "   ", "judge:me", "adjudicated", "a\nb", "???"):
        with pytest.raises(JudgingError):
            queue.give(decision, name, "pass")
    with pytest.raises(JudgingError, match="give pass, fail or na"):
        queue.give(decision, "Anna", "maybe")
    with pytest.raises(JudgingError, match="give pass, fail or na"):
        queue.adjudicate(decision, "missing", by="Carla")
    for name in ("", "  ", "judge:me", "adjudicated"):
        with pytest.raises(JudgingError, match="adjudicator|reserved"):
            queue.adjudicate(decision, "pass", by=name)
    for name in ("../tmp/evil", "C:\\x", "a:b", "Anna <a@b>", "tab\tname"):
        with pytest.raises(JudgingError, match=r"a name may hold letters, digits, spaces and - _ \. @, not"):
            queue.give(decision, name, "pass")  # the app's review gives through here too (ReviewSession.give)
        with pytest.raises(JudgingError, match="a name may hold"):
            queue.adjudicate(decision, "pass", by=name)
    assert not list((project / "verdicts").rglob("tmp-evil*"))
    assert VerdictStore(project).raters(RUN_ID) == [JUDGE]
    assert check_expert(" Anna ") == "Anna"
    with pytest.raises(JudgingError, match="no decision"):
        queue.find(RUN_ID, "T02", criterion_id(1))


def test_a_decision_opens_the_runs_checkpoint_files(project: Path) -> None:
    queue = ReviewQueue.of_project(project)
    submission = queue.submission(queue.decisions[0])
    assert (submission.folder / "outputs" / "report.txt").read_text(encoding="utf-8").startswith("Line 1: item 1")
    (project / "verdicts" / "handed-over").mkdir()
    VerdictStore(project).put("handed-over", [queue.decisions[0].judge_verdict()])  # type: ignore[list-item]
    queue.reload()
    other = queue.find("handed-over", "T01", criterion_id(1))
    with pytest.raises(JudgingError, match="no run of this project"):
        queue.submission(other)
