"""The agent judge against a real loopback server speaking the chat-completions tools API: a fact only the
tools can reach (deep in a report too large for the batch judge's evidence) is read and judged; budgets that
run out leave the verdicts missing with the reason; calls outside the tree or with bad arguments come back
to the model as tool results; the trace is on disk and printed by the CLI; every step's usage is summed."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from studio.cli.main import main
from studio.judging.costs import read_costs
from studio.judging.judge import JudgeSettings, judge_submission
from studio.judging.submission import Submission, submission_of_folder
from studio.judging.traces import decision_trace, traces_dir, traces_for
from studio.judging.verdict_store import VerdictStore
from tests.helpers import git, write
from tests.judging.agent_server import ScriptedAgent, answering, asked_ids, calling, tool_results
from tests.judging.chat_server import ChatServer, Reply, Request, api_error
from tests.judging.projects import SCOPE, criterion_id, judged_project, load, rubric_yaml

MODEL = "agent-model"
FACT = "The covenant headroom at closing is 2.7x (FACT-7Q)."
FACT_LINE = 4321
CID = criterion_id(1)
PAGE = 300  # lines the scripted reader asks for at a time
READS = -(-FACT_LINE // PAGE)  # reads until the one holding the fact: 15
FACT_READ = f"{(READS - 1) * PAGE + 1}-{READS * PAGE}"  # "4201-4500"
STEPS = 1 + READS + 1  # the list of files, the reads, the answer


def big_report(lines: int = 10_000) -> str:
    """A report of `lines` short lines, the fact on line FACT_LINE only: over 400,000 characters whole, more
    than the batch judge's evidence holds."""
    rows = [f"Section {n:05d}: routine text, nothing to see here." for n in range(1, lines + 1)]
    rows[FACT_LINE - 1] = FACT
    return "\n".join(rows) + "\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = judged_project(tmp_path / "project", 1)
    write(root, "subtasks/T01/rubric.yaml", rubric_yaml(1, "The report states the covenant headroom at closing."))
    git(root, "init", "-q", "-b", "main")
    return root


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    sub = tmp_path / "sub"
    write(sub, "outputs/report.md", big_report())
    write(sub, "outputs/notes.txt", "working notes\n")
    return sub


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-agent-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)


_RANGE = re.compile(r"^(?P<path>\S+) lines (?P<first>\d+)-(?P<last>\d+) of (?P<total>[\d,]+)")


def pager(request: Request) -> list[tuple[str, Any]]:
    """A reader that lists the files, then reads the report PAGE lines at a time until it meets the fact."""
    results = tool_results(request)
    if not results:
        return [("list_files", {})]
    last = results[-1]
    if FACT in last:
        return []
    body = last.split("\n", 1)[1]
    match = _RANGE.match(body)
    if match is None:  # the list of files: start at the top of the report it names
        assert "outputs/report.md (markdown," in body
        return [("read_lines", {"path": "outputs/report.md", "first": 1, "last": PAGE})]
    following = int(match["last"]) + 1
    if following > int(match["total"].replace(",", "")):
        return []
    return [("read_lines", {"path": match["path"], "first": following, "last": following + PAGE - 1})]


def settings(server: ChatServer, **options: Any) -> JudgeSettings:
    values: dict[str, Any] = dict(base_url=server.url, model=MODEL, timeout_s=10.0, backoff_s=0.01, parallel=1,
                                  mode="agent")
    return JudgeSettings(**(values | options))


def judge(project: Path, submission: Submission, options: JudgeSettings):  # noqa: ANN201
    return judge_submission(load(project), submission, options, VerdictStore(project))


def stored(project: Path, submission: Submission) -> dict:
    return {v.criterion: v for v in VerdictStore(project).read(submission.id, f"judge:{MODEL}")}


def token_of(request: Request) -> str:
    return request.body["messages"][0]["content"].rsplit(" ", 1)[1]


@pytest.fixture
def agent() -> ScriptedAgent:
    return ScriptedAgent(pager, FACT)


@pytest.fixture
def server(agent: ScriptedAgent) -> Iterator[ChatServer]:
    with ChatServer(agent.reply) as running:
        yield running


def test_a_fact_only_the_tools_reach_is_read_and_judged(project: Path, folder: Path, server: ChatServer) -> None:
    submission = submission_of_folder(folder, SCOPE)
    # the batch judge cannot show the report whole: its criterion is not judged, and the fact is sent nowhere
    with ChatServer() as batch_server:
        batch = judge(project, submission, JudgeSettings(base_url=batch_server.url, model=MODEL, timeout_s=10.0))
        assert batch.missing == 1 and "outputs/report.md" in batch.not_judged[f"{SCOPE}/{CID}"]
        assert all(FACT not in str(request.body) for request in batch_server.requests)

    summary = judge(project, submission, settings(server))
    assert (summary.judged, summary.missing) == (1, 0)
    verdict = stored(project, submission)[CID]
    assert verdict.verdict == "pass" and verdict.note == f"read for {CID}"
    first = server.requests[0].body
    assert FACT not in str(first["messages"])  # the first request lists the files, no content
    assert [tool["function"]["name"] for tool in first["tools"]] == [
        "list_files", "read_lines", "read_sheet", "search_pdf", "read_pdf_pages", "open_image"]
    assert all(tool["type"] == "function" and tool["function"]["strict"] for tool in first["tools"])
    assert first["tool_choice"] == "auto"
    # one list, then PAGE lines a read until line 4,321, and the answer
    assert len(server.requests) == STEPS == 17
    last = server.requests[-1].body["messages"]
    reading = [m for m in last if m["role"] == "assistant"][-1]["tool_calls"][0]
    assert reading["function"]["name"] == "read_lines" and '"first": 4201' in reading["function"]["arguments"]
    token = token_of(server.requests[-1])
    tool_message = last[-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == reading["id"]
    assert tool_message["content"].startswith(f"<<<TOOL RESULT {token}>>>\noutputs/report.md lines {FACT_READ} ")
    assert tool_message["content"].endswith(f"<<<END OF TOOL RESULT {token}>>>")
    assert f"{FACT_LINE}: {FACT}" in tool_message["content"]


def test_a_model_that_reads_nothing_cannot_pass(project: Path, folder: Path) -> None:
    lazy = ScriptedAgent(lambda _request: [], FACT)
    with ChatServer(lazy.reply) as running:
        summary = judge(project, submission_of_folder(folder, SCOPE), settings(running))
    assert summary.judged == 1
    assert stored(project, submission_of_folder(folder, SCOPE))[CID].verdict == "fail"


def test_a_spent_step_budget_asks_for_the_answer_without_tools_and_stores_missing(
    project: Path, folder: Path
) -> None:
    stubborn = ScriptedAgent(pager, FACT, final_text="I still need to read the rest of the report.")
    with ChatServer(stubborn.reply) as running:
        summary = judge(project, submission_of_folder(folder, SCOPE), settings(running, agent_steps=3))
        requests = running.requests
    assert (summary.judged, summary.missing) == (0, 1)
    assert [r.body["tool_choice"] for r in requests] == ["auto", "auto", "auto", "none"]  # one conversation, no retry
    assert "The step budget of 3 tool steps is spent: no more tools." in requests[-1].body["messages"][-1]["content"]
    note = stored(project, submission_of_folder(folder, SCOPE))[CID].note
    assert note.startswith("agent judge: the step budget of 3 tool steps is spent, and the final answer asked for "
                           "then gave no verdict (the answer is not a JSON object")
    assert summary.refusals == [] and summary.budget_spent == [note]


def test_a_spent_token_budget_stops_the_tools_exactly_when_reached(project: Path, folder: Path) -> None:
    stubborn = ScriptedAgent(pager, FACT, final_text="not yet")
    with ChatServer(stubborn.reply) as running:
        judge(project, submission_of_folder(folder, SCOPE), settings(running, agent_tokens=3_100))
        requests = running.requests
    # steps cost 1,040, 1,050, 1,060 tokens: 3,150 after the third, which reaches 3,100
    assert [r.body["tool_choice"] for r in requests] == ["auto", "auto", "auto", "none"]
    note = stored(project, submission_of_folder(folder, SCOPE))[CID].note
    assert "the token budget of 3,100 tokens is spent (3,150 used)" in note


def test_the_answer_given_when_the_budget_is_spent_is_stored(project: Path, folder: Path, server: ChatServer) -> None:
    summary = judge(project, submission_of_folder(folder, SCOPE), settings(server, agent_steps=2))
    assert (summary.judged, summary.missing) == (1, 0)  # it answered from what it read: the fact not yet reached
    assert stored(project, submission_of_folder(folder, SCOPE))[CID].verdict == "fail"


def test_calls_outside_the_tree_and_bad_calls_are_refused_as_tool_results(
    project: Path, folder: Path, tmp_path: Path
) -> None:
    secret = write(tmp_path, "secret.txt", "SECRET-OF-THE-MACHINE\n")
    os.symlink(secret, folder / "outputs" / "link.md")
    calls = [
        ("read_lines", {"path": "../secret.txt", "first": 1, "last": 5}),
        ("read_lines", {"path": "outputs/link.md", "first": 1, "last": 5}),
        ("read_lines", {"path": str(secret), "first": 1, "last": 5}),
        ("delete_files", {}),
        ("read_lines", "{not json"),
        ("read_lines", {"path": "outputs/report.md", "first": "one", "last": 2, "page": 1}),
        ("read_lines", {"path": "outputs/report.md", "first": "one", "last": 2}),
        ("read_sheet", {"path": "outputs/report.md", "sheet": "", "range": "A1:B2"}),
        ("list_files", {}),  # the ninth call of the turn
    ]
    past_end = [("read_lines", {"path": "outputs/report.md", "first": 20000, "last": 20001})]

    def plan(request: Request) -> list[tuple[str, Any]]:
        done = len(tool_results(request))
        return calls if done == 0 else past_end if done == len(calls) else []

    script = ScriptedAgent(plan, FACT)
    with ChatServer(script.reply) as running:
        summary = judge(project, submission_of_folder(folder, SCOPE), settings(running))
        requests = running.requests
    assert (summary.judged, summary.missing) == (1, 0)
    assert all("SECRET-OF-THE-MACHINE" not in str(request.body) for request in requests)
    results = [text.split("\n")[1] for text in tool_results(requests[-1])]
    assert results == [
        "error: ../secret.txt leads out of the submission (through ..): not read",
        "error: outputs/link.md is a link to a file outside the submission: not read",
        f"error: {secret} is an absolute path: give a path inside the submission, as list_files gives it",
        "error: there is no tool 'delete_files'; the tools are list_files, read_lines, read_sheet, search_pdf, "
        "read_pdf_pages, open_image",
        "error: the arguments of read_lines are not JSON: '{not json'; give a JSON object with path, first, last",
        "error: the arguments of read_lines: unknown page (it takes path, first, last)",
        "error: 'first' and 'last' must be whole numbers of lines",
        "error: outputs/report.md is a file of kind markdown; this tool reads xlsx files",
        "error: at most 8 tool calls are served in one turn; call this one again in the next",
        "error: outputs/report.md has 10,000 lines: line 20,000 is past its end",
    ]
    (conversation,) = traces_for(project, "sub", SCOPE)[0].conversations
    assert [call.error for call in conversation.steps[0].calls] == [True] * 9
    assert [call.error for call in conversation.steps[1].calls] == [True]
    # a listing never follows the link either: it names it as not readable
    assert "outputs/link.md (not readable: outputs/link.md is a link to a file outside" in str(requests[0].body)


def test_the_trace_is_kept_beside_the_verdicts_and_printed(
    project: Path, folder: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["judge", str(project), "--submission", str(folder), "--scope", SCOPE, "--endpoint", server.url,
                 "--model", MODEL, "--agent", "--parallel", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "agent judge: the model reads the files through tools, at most 20 tool steps and 300,000 tokens" in out
    (path,) = traces_dir(project, "sub").glob("*.yaml")
    assert git(project, "status", "--porcelain", "--untracked-files=all").count("verdicts/sub/traces/") == 1
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    (conversation,) = data["conversations"]
    assert conversation["criteria"] == [CID] and conversation["outcome"] == "answered"
    assert [len(step["calls"]) for step in conversation["steps"]] == [1] * (STEPS - 1) + [0]
    read = conversation["steps"][STEPS - 2]["calls"][0]
    assert read["name"] == "read_lines" and read["head"].startswith(f"outputs/report.md lines {FACT_READ} of 10,000")
    assert len(read["digest"]) == 16 and read["chars"] > 10_000 and read["error"] is False
    decided = decision_trace(project, "sub", SCOPE, CID)
    assert decided is not None and decided.steps[STEPS - 2].calls[0].head == read["head"]

    assert main(["judge", str(project), "--trace", "sub", "--scope", SCOPE, "--criterion", CID]) == 0
    printed = capsys.readouterr().out
    assert f"sub {SCOPE} by judge:{MODEL}" in printed
    assert f"  {CID}: answered, " in printed
    assert "    step 1 (1,000 prompt + 40 completion tokens, tool_calls)" in printed
    assert ('      read_lines({"path": "outputs/report.md", "first": 4201, "last": 4500}) returned '
            f"{read['chars']:,} characters [{read['digest']}]: outputs/report.md lines 4201-4500 of 10,000") in printed
    assert "    step 17 (1,160 prompt + 40 completion tokens, stop)" in printed
    assert main(["judge", str(project), "--trace", "sub", "--criterion", "T01-C999"]) == 1


def test_every_steps_usage_is_summed_into_the_costs(project: Path, folder: Path, server: ChatServer,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judge", str(project), "--submission", str(folder), "--scope", SCOPE, "--endpoint", server.url,
                 "--model", MODEL, "--agent", "--parallel", "1"]) == 0
    # 17 steps: prompt 1,000 + 10 per tool result so far (0..16), completion 40 each
    prompt = sum(1000 + 10 * n for n in range(STEPS))
    assert prompt == 18_360
    assert f"cost: 17 requests (17 HTTP attempts), {prompt:,} prompt tokens (0 cached), 680 completion tokens" in (
        capsys.readouterr().out)
    (cost,) = read_costs(project)
    assert [request.outcome for request in cost.requests] == ["tool calls"] * 16 + ["answered"]
    assert cost.totals().prompt_tokens == prompt and cost.totals().completion_tokens == 680
    (trace,) = traces_for(project, "sub")
    assert trace.conversations[0].tokens == prompt + 680


def test_a_profile_in_agent_mode_judges_with_tools(project: Path, folder: Path, server: ChatServer) -> None:
    write(project, "judging/profiles/reader.yaml", "mode: agent\nagent_steps: 1\nstructured_output: json_object\n")
    assert main(["judge", str(project), "--submission", str(folder), "--scope", SCOPE, "--endpoint", server.url,
                 "--model", MODEL, "--profile", "reader", "--parallel", "1"]) == 0
    assert [r.body["tool_choice"] for r in server.requests] == ["auto", "none"]
    assert all(r.body["response_format"] == {"type": "json_object"} for r in server.requests)


def test_results_that_would_overflow_the_context_window_are_replaced_by_an_error(project: Path, folder: Path) -> None:
    def plan(request: Request) -> list[tuple[str, Any]]:
        results = tool_results(request)
        if not results:
            return [("read_lines", {"path": "outputs/report.md", "first": 1, "last": 300})]
        if len(results) == 1:
            assert "do not fit the model's context window" in results[0]
            return [("read_lines", {"path": "outputs/report.md", "first": 1, "last": 20})]
        return []

    script = ScriptedAgent(plan, FACT)
    with ChatServer(script.reply) as running:
        summary = judge(project, submission_of_folder(folder, SCOPE), settings(running, context_window=3000))
        requests = running.requests
    assert summary.judged == 1 and len(requests) == 3
    first_read, second_read = tool_results(requests[-1])
    assert "Section 00001" not in first_read and "\n1: Section 00001: routine text" in second_read
    (conversation,) = traces_for(project, "sub")[0].conversations
    assert [step.calls[0].error for step in conversation.steps[:2]] == [True, False]


def test_a_refusal_mid_conversation_stops_it_with_the_servers_message(project: Path, folder: Path) -> None:
    agent = ScriptedAgent(pager, FACT)

    def reply(request: Request) -> Reply:
        if tool_results(request):
            return api_error(400, "This model's maximum context length is 8192 tokens.", code="context_length_exceeded")
        return agent.reply(request)

    with ChatServer(reply) as running:
        summary = judge(project, submission_of_folder(folder, SCOPE), settings(running))
        requests = running.requests
    assert len(requests) == 2 and (summary.judged, summary.missing) == (0, 1)  # refused for good: not asked again
    note = stored(project, submission_of_folder(folder, SCOPE))[CID].note
    assert "This model's maximum context length is 8192 tokens." in note
    (cost,) = read_costs(project)
    assert [request.outcome for request in cost.requests] == ["tool calls", "refused"]
    (conversation,) = traces_for(project, "sub")[0].conversations
    assert conversation.outcome == "failed" and "maximum context length" in (conversation.reason or "")


def test_a_malformed_tool_call_entry_is_left_out_and_the_rest_served(project: Path, folder: Path) -> None:
    def reply(request: Request) -> Reply:
        if tool_results(request):
            return answering(asked_ids(request), lambda _cid: True, 2)
        good = calling([("list_files", {})], 1)
        assert isinstance(good.body, dict)
        good.body["choices"][0]["message"]["tool_calls"].insert(0, {"id": 7, "type": "function", "function": "x"})
        return good

    with ChatServer(reply) as running:
        summary = judge(project, submission_of_folder(folder, SCOPE), settings(running))
        last = running.requests[-1].body["messages"]
    assert summary.judged == 1
    assert [call["id"] for call in last[2]["tool_calls"]] == ["call_1_0"]
    assert last[3]["tool_call_id"] == "call_1_0" and "outputs/report.md (markdown," in last[3]["content"]


def test_cancelling_ends_a_conversation_between_steps_and_stores_nothing_for_it(project: Path, folder: Path) -> None:
    agent = ScriptedAgent(pager, FACT)
    with ChatServer(agent.reply) as running:
        summary = judge_submission(load(project), submission_of_folder(folder, SCOPE), settings(running),
                                   VerdictStore(project), cancel=lambda: len(running.requests) >= 3)
        sent = len(running.requests)
    assert summary.cancelled and sent == 3 and (summary.judged, summary.missing) == (0, 0)
    assert CID not in stored(project, submission_of_folder(folder, SCOPE))
    (conversation,) = traces_for(project, "sub")[0].conversations
    assert (conversation.outcome, conversation.reason) == ("cancelled", "cancelled after 3 tool steps")


def test_a_dry_run_of_the_agent_judge_says_what_it_estimates(project: Path, folder: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judge", str(project), "--submission", str(folder), "--scope", SCOPE, "--model", MODEL, "--agent",
                 "--agent-steps", "5", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert ("agent judge: 1 conversation, each of up to 6 requests and 300,000 tokens; "
            "the estimate below is of their first requests only") in out


def test_a_damaged_trace_file_is_named_with_the_fix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    damaged = write(traces_dir(project, "sub"), "20261202T000000000000Z-T01-judge-x-0000.yaml", "conversations: [\n")
    assert main(["judge", str(project), "--trace", "sub"]) == 2
    err = capsys.readouterr().err
    assert f"{damaged}: not a readable trace file" in err and "restore it from git or delete it" in err


def test_the_scripted_server_refuses_a_conversation_that_breaks_the_tools_api() -> None:
    from tests.judging.agent_server import protocol_error

    call = {"id": "call_1", "type": "function", "function": {"name": "list_files", "arguments": "{}"}}
    unanswered = [{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": [call]},
                  {"role": "user", "content": "y"}]
    stray = [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "call_9", "content": "z"}]
    answered = unanswered[:2] + [{"role": "tool", "tool_call_id": "call_1", "content": "files"}]
    refusals = [protocol_error(Request("/v1/chat/completions", {}, {"messages": m}, 1))
                for m in (unanswered, stray, answered)]
    assert [refusal.status if refusal else None for refusal in refusals] == [400, 400, None]
