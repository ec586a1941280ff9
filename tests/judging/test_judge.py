"""The judge against a real chat-completions server on loopback: batches and the parallel limit, failed
attempts (malformed answers, timeouts, 429 and 500) and the single-criterion fallback, unresolved
criteria stored as missing, and verdict reuse with its invalidation by every part of the key."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from studio.judging.client import EndpointError
from studio.judging.judge import JudgeProgress, JudgeSettings, judge_submission, reuse_key
from studio.judging.prompt import PROMPT_VERSION, AskedCriterion
from studio.judging.scope import scope_context
from studio.judging.submission import Submission, submission_of_folder
from studio.judging.verdict_store import VerdictStore
from tests.helpers import replace_in, write
from tests.judging.chat_server import ChatServer, Reply, Request, completion, verdicts_json
from tests.judging.projects import SCOPE, criterion_id, judged_project, load, submission_folder

MODEL = "judge-model"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return judged_project(tmp_path / "project", 20)


@pytest.fixture
def submission(tmp_path: Path) -> Submission:
    return submission_of_folder(submission_folder(tmp_path / "sub-A"), SCOPE)


@pytest.fixture
def servers() -> Iterator[Callable[..., ChatServer]]:
    started: list[ChatServer] = []

    def make(reply: Callable[[Request], Reply] | None = None, latency_s: float = 0.0) -> ChatServer:
        server = ChatServer(reply, latency_s) if reply else ChatServer(latency_s=latency_s)
        started.append(server.start())
        return server

    yield make
    for server in started:
        server.stop()


def settings(server: ChatServer, **options: object) -> JudgeSettings:
    values: dict = {"timeout_s": 10.0, "backoff_s": 0.01, "model": MODEL}
    values.update(options)
    return JudgeSettings(base_url=server.url, **values)


def judge(project: Path, submission: Submission, options: JudgeSettings, **extra: object):  # noqa: ANN201
    return judge_submission(load(project), submission, options, VerdictStore(project), **extra)


def stored(project: Path, submission: Submission, model: str = MODEL) -> dict:
    return {v.criterion: v for v in VerdictStore(project).read(submission.id, f"judge:{model}")}


def test_criteria_go_in_batches_of_8_and_every_verdict_is_stored_with_its_rationale(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    server = servers(lambda r: Reply(body=completion(verdicts_json(
        r.ids, lambda cid: "fail" if cid.endswith("7") else "pass"))))
    summary = judge(project, submission, settings(server))
    assert sorted(len(request.ids) for request in server.requests) == [4, 8, 8]
    asked = [cid for request in server.requests for cid in request.ids]
    assert sorted(asked) == [criterion_id(n) for n in range(1, 21)]
    assert (summary.judged, summary.reused, summary.missing, summary.from_checks) == (20, 0, 0, 0)
    verdicts = stored(project, submission)
    assert len(verdicts) == 20
    assert verdicts[criterion_id(7)].verdict == "fail" and verdicts[criterion_id(17)].verdict == "fail"
    assert verdicts[criterion_id(1)].verdict == "pass"
    first = verdicts[criterion_id(1)]
    assert first.scope == SCOPE and first.rater == "judge:judge-model"
    assert first.note == f"because of {criterion_id(1)}" and first.evidence == ["outputs/report.md#L1"]
    assert first.key and len(first.key) == 64


def test_the_prompt_holds_instruction_criteria_with_weight_sign_evidence_and_the_scopes_references(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    server = servers()
    judge(project, submission, settings(server, batch=20))
    (request,) = server.requests
    system, user = request.body["messages"][0]["content"], request.user_text
    assert '"verdicts"' in system and '"holds": true or false' in system and '"pass"' not in system
    assert (project / "subtasks/T01/instruction.md").read_text().strip() in user
    assert "Reference notes on the revised report" in user  # R01 is assigned to T01
    assert (project / "evaluator/reference-notes.md").read_text().strip() in user
    assert "The client's objective is a refinancing." in user and "outputs/notes.txt" in user
    assert f"- {criterion_id(1)} (requirement, weight +3): The report states item 1 of the brief." in user
    assert f"- {criterion_id(5)} (failure condition, weight -2)" in user


def test_no_reference_is_given_to_a_scope_it_is_not_assigned_to(
        tmp_path: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    project = judged_project(tmp_path / "p2", 3)
    replace_in(project, "evaluator/references.yaml", "      - T01\n", "")
    server = servers()
    judge(project, submission, settings(server))
    assert "Reference notes on the revised report" not in server.requests[0].user_text
    assert "(none for this scope)" in server.requests[0].user_text


def test_no_more_requests_at_once_than_the_parallel_limit(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    # The first three requests wait for one another: the judge must have three going at once.
    barrier = threading.Barrier(3, timeout=10)

    def reply(request: Request) -> Reply:
        if request.number <= 3:
            barrier.wait()
        return Reply(body=completion(verdicts_json(request.ids)))

    server = servers(reply, latency_s=0.02)
    summary = judge(project, submission, settings(server, batch=2, parallel=3))
    assert len(server.requests) == 10 and summary.judged == 20
    assert server.max_concurrent == 3


def test_a_malformed_answer_is_tried_again_and_a_fenced_answer_is_accepted(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    def reply(request: Request) -> Reply:
        if request.number == 1:
            return Reply(body=completion("I think they all pass."))
        return Reply(body=completion("Here you are:\n```json\n" + verdicts_json(request.ids) + "\n```"))

    server = servers(reply)
    summary = judge(project, submission, settings(server, batch=20))
    assert summary.judged == 20 and summary.missing == 0
    assert [len(r.ids) for r in server.requests] == [20, 20]


@pytest.mark.parametrize("failure", [
    Reply(429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"}),
    Reply(500, "internal error"),
])
def test_429_and_500_are_retried_within_the_attempt(project: Path, submission: Submission,
                                                    servers: Callable[..., ChatServer], failure: Reply) -> None:
    server = servers(lambda r: failure if r.number <= 2 else Reply(body=completion(verdicts_json(r.ids))))
    summary = judge(project, submission, settings(server, batch=20, max_retries_http=3))
    assert summary.judged == 20 and len(server.requests) == 3


def test_a_timed_out_batch_is_asked_again(project: Path, submission: Submission,
                                          servers: Callable[..., ChatServer]) -> None:
    server = servers(lambda r: Reply(body=completion(verdicts_json(r.ids)), delay_s=5 if r.number == 1 else 0))
    summary = judge(project, submission, settings(server, batch=20, timeout_s=0.3))
    assert summary.judged == 20 and len(server.requests) == 2


def test_criteria_a_batch_leaves_out_are_asked_one_at_a_time(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    # Answers to several criteria never mention C003 and C004; asked alone, each is answered.
    left_out = {criterion_id(3), criterion_id(4)}

    def reply(request: Request) -> Reply:
        ids = [cid for cid in request.ids if len(request.ids) == 1 or cid not in left_out]
        return Reply(body=completion(verdicts_json(ids, "fail")))

    server = servers(reply)
    summary = judge(project, submission, settings(server))
    # the batch holding them: 8 criteria, then the 2 left in its second attempt, then each alone
    assert sorted(len(r.ids) for r in server.requests) == [1, 1, 2, 4, 8, 8]
    assert sorted(r.ids[0] for r in server.requests if len(r.ids) == 1) == sorted(left_out)
    assert summary.judged == 20 and summary.missing == 0
    assert {stored(project, submission)[cid].verdict for cid in left_out} == {"fail"}


def test_what_stays_unresolved_is_stored_as_missing_never_guessed(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    never = {criterion_id(3), criterion_id(12)}
    server = servers(lambda r: Reply(body=completion(verdicts_json([c for c in r.ids if c not in never]))))
    summary = judge(project, submission, settings(server))
    assert summary.judged == 18 and summary.missing == 2
    assert sorted(summary.missing_ids) == sorted(f"{SCOPE}/{cid}" for cid in never)
    verdicts = stored(project, submission)
    assert len(verdicts) == 20
    for cid in never:
        assert verdicts[cid].verdict == "missing" and verdicts[cid].evidence == []
        assert "unresolved after 2 attempt(s)" in (verdicts[cid].note or "")
    # each was asked twice in its batch and twice alone
    assert sum(criterion_id(3) in r.ids for r in server.requests) == 4
    # judged again, only the missing ones are asked
    again = servers()
    summary = judge(project, submission, settings(again))
    assert (summary.judged, summary.reused, summary.missing) == (2, 18, 0)
    assert sorted(cid for r in again.requests for cid in r.ids) == sorted(never)


def test_answers_with_unknown_ids_wrong_verdict_words_or_contradictions_leave_criteria_unresolved(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    def reply(request: Request) -> Reply:
        items = [{"criterion": cid, "holds": " TRUE", "rationale": "ok", "evidence": []} for cid in request.ids]
        if len(request.ids) > 1:
            items[0]["holds"] = "maybe"
            items.append({"criterion": items[1]["criterion"], "holds": False})
            items.append({"criterion": "NOT-ASKED", "holds": True})
            return Reply(body=completion(json.dumps({"verdicts": items})))
        return Reply(body=completion(json.dumps({"verdicts": items})))

    server = servers(reply)
    summary = judge(project, submission, settings(server, batch=20, attempts=1))
    assert summary.judged == 20 and summary.missing == 0
    assert sorted(len(r.ids) for r in server.requests) == [1, 1, 20]
    assert "NOT-ASKED" not in stored(project, submission)


def test_the_second_judging_reuses_every_verdict_and_sends_nothing(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    judge(project, submission, settings(servers()))
    before = VerdictStore(project).path(submission.id, f"judge:{MODEL}").read_bytes()
    server = servers()
    summary = judge(project, submission, settings(server))
    assert (summary.judged, summary.reused, summary.missing) == (0, 20, 0)
    assert server.requests == []
    assert VerdictStore(project).path(submission.id, f"judge:{MODEL}").read_bytes() == before


def _edit_evidence(project: Path, submission: Submission) -> None:
    write(submission.folder, "outputs/report.md", "# Report\n\nA different report.\n")


def _edit_text(project: Path, submission: Submission) -> None:
    replace_in(project, "subtasks/T01/rubric.yaml", "item 4 of", "item four of")


def _edit_weight(project: Path, submission: Submission) -> None:
    replace_in(project, "subtasks/T01/rubric.yaml", "weight: 3", "weight: 4")  # the first criterion only


def _edit_covers(project: Path, submission: Submission) -> None:  # the first criterion covers the notes instead
    replace_in(project, "subtasks/T01/subtask.yaml", "    title: Report\n",
               "    title: Report\n  - path: outputs/notes.txt\n    title: Notes\n")
    replace_in(project, "subtasks/T01/rubric.yaml", "T01:outputs/report.md", "T01:outputs/notes.txt")


def _edit_instruction(project: Path, submission: Submission) -> None:
    write(project, "subtasks/T01/instruction.md", "# A new instruction\n")


def _edit_reference(project: Path, submission: Submission) -> None:
    write(project, "evaluator/reference-notes.md", "New reference notes.\n")


@pytest.mark.parametrize(("edit", "rejudged"), [
    (_edit_evidence, 20), (_edit_text, 1), (_edit_weight, 1), (_edit_covers, 1), (_edit_instruction, 20),
    (_edit_reference, 20),
])
def test_reuse_ends_when_a_part_of_the_key_changes(
        project: Path, submission: Submission, servers: Callable[..., ChatServer],
        edit: Callable[[Path, Submission], None], rejudged: int) -> None:
    judge(project, submission, settings(servers()))
    edit(project, submission)
    server = servers()
    summary = judge(project, submission, settings(server))
    assert (summary.judged, summary.reused) == (rejudged, 20 - rejudged)
    assert len([cid for r in server.requests for cid in r.ids]) == rejudged


def test_reuse_ends_with_another_prompt_version_or_model(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    judge(project, submission, settings(servers()))
    summary = judge(project, submission, settings(servers(), prompt_version=PROMPT_VERSION + "-next"))
    assert (summary.judged, summary.reused) == (20, 0)
    summary = judge(project, submission, settings(servers(), model="other-model"))
    assert (summary.judged, summary.reused) == (20, 0)
    assert len(stored(project, submission, "other-model")) == 20 and len(stored(project, submission)) == 20
    # the model is in the key itself, not only in the rater's name
    context = scope_context(load(project), SCOPE)
    asked = AskedCriterion(criterion_id(1), "text", 3)
    assert reuse_key("e", asked, "m1", "v", context) != reuse_key("e", asked, "m2", "v", context)
    assert reuse_key("e", asked, "m1", "v", context) == reuse_key("e", asked, "m1", "v", context)


def test_progress_reaches_the_total_and_cancel_stops_before_the_next_request(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    seen: list[JudgeProgress] = []
    judge(project, submission, settings(servers(), parallel=1), progress=seen.append)
    assert seen[-1].done == seen[-1].total == 20 and [p.done for p in seen] == sorted(p.done for p in seen)

    other = submission_of_folder(submission.folder, SCOPE, "sub-B")
    server = servers()
    summary = judge(project, other, settings(server, parallel=1, batch=4), cancel=lambda: len(server.requests) >= 2)
    assert summary.cancelled and summary.judged == 8 and summary.missing == 0
    assert len(server.requests) == 2
    assert len(stored(project, other)) == 8  # nothing asked is stored, not even as missing


def test_a_refused_key_stops_the_judging_with_its_message_and_keeps_what_was_judged(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    server = servers(lambda r: Reply(body=completion(verdicts_json(r.ids))) if r.number == 1
                     else Reply(401, {"error": {"message": "key revoked"}}))
    with pytest.raises(EndpointError, match="key revoked"):
        judge(project, submission, settings(server, parallel=1))
    assert len(stored(project, submission)) == 8


def test_docs_quote_the_prompt_verbatim_with_its_version() -> None:
    from studio.judging.prompt import SYSTEM_PROMPT, USER_TEMPLATE

    docs = (Path(__file__).resolve().parents[2] / "docs" / "judging.md").read_text(encoding="utf-8")
    assert f"### The prompt (version `{PROMPT_VERSION}`)" in docs
    assert f"```text\n{SYSTEM_PROMPT}\n```" in docs and f"```text\n{USER_TEMPLATE}\n```" in docs
