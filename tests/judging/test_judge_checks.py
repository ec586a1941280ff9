"""Programmatic checks in judging: a check `as: criterion` is the verdict (the model is not asked), a check
`as: evidence` is given to the judge on the criterion's line and is part of its reuse key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.judging.judge import JudgeSettings, judge_submission
from studio.judging.submission import submission_of_folder
from studio.judging.verdict_store import VerdictStore
from tests.helpers import copy_blank, write
from tests.judging.chat_server import ChatServer
from tests.judging.projects import load, submission_folder

RUBRIC = """\
criteria:
  - id: T01-C01
    text: The report names the refinancing.
    covers: [T01:outputs/report.md]
    target: checkpoint
    dimension: completeness
    weight: 3
    check: {kind: contains, path: outputs/report.md, value: refinancing}
  - id: T01-C02
    text: The report has an appendix file.
    covers: [T01:outputs/report.md]
    target: checkpoint
    dimension: completeness
    weight: 2
    check: {kind: file_exists, path: outputs/appendix.md}
  - id: T01-C03
    text: The report states the corrected figure 4,417.
    covers: [T01:outputs/report.md]
    target: checkpoint
    dimension: correctness
    weight: 5
    check: {kind: contains, path: outputs/report.md, value: "4,417", as: evidence}
  - id: T01-C04
    text: The report is written for the client.
    covers: [T01:outputs/report.md]
    target: checkpoint
    dimension: professionalism
    weight: 1
"""


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def test_checks_decide_their_criteria_and_inform_the_judge(tmp_path: Path, server: ChatServer) -> None:
    project = copy_blank(tmp_path / "project")
    write(project, "subtasks/T01/rubric.yaml", RUBRIC)
    submission = submission_of_folder(submission_folder(tmp_path / "sub"), "T01")
    settings = JudgeSettings(base_url=server.url, model="m")
    store = VerdictStore(project)
    summary = judge_submission(load(project), submission, settings, store)
    assert (summary.from_checks, summary.judged, summary.missing) == (2, 2, 0)
    asked = [cid for request in server.requests for cid in request.ids]
    assert sorted(asked) == ["T01-C03", "T01-C04"]
    line = next(text for text in server.requests[0].user_text.splitlines() if "Programmatic check:" in text)
    assert "4,417" in line and "FAILED" in line.upper()
    verdicts = {v.criterion: v for v in store.read(submission.id, "judge:m")}
    assert verdicts["T01-C01"].verdict == "pass" and verdicts["T01-C02"].verdict == "fail"
    assert "appendix.md" in (verdicts["T01-C02"].note or "") and verdicts["T01-C01"].key is None
    before = store.path(submission.id, "judge:m").read_bytes()

    again = judge_submission(load(project), submission, settings, store)
    assert (again.from_checks, again.reused, again.judged) == (2, 2, 0)
    assert store.path(submission.id, "judge:m").read_bytes() == before  # the checks' verdicts are not rewritten

    write(submission.folder, "outputs/appendix.md", "# Appendix\n")
    third = judge_submission(load(project), submission, settings, store)
    assert third.from_checks == 2 and store.read(submission.id, "judge:m")[1].verdict == "pass"
