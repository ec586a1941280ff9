"""The judge's cost in the review: under the judge's rationale (`judgeCost`), the request that gave the
verdict — the model that answered, its fingerprint, the tokens the server counted, the attempts — and
what the whole judging cost. The run of tests/judging/review_project.py is judged for real by
`dbstudio judge` against a loopback chat-completions server (batches of 4 criteria: 3 requests for
T01's ten), then reviewed; blind review hides it with the verdict; a new judging shows its own request.

Usage by hand (priced below): a request of n criteria counts 800 + 10n prompt tokens, 40n completion
tokens, 3 reasoning; the first request of the judging holds C001-C004 (n = 4): 840 prompt, 160
completion; the judging: 3 requests, 2,500 prompt (840 + 840 + 820), 400 completion (160 + 160 + 80)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.review_models import ReviewSession
from studio.gui.judging.review_view import ReviewView
from studio.judging.provenance import Provenance
from studio.judging.queue import ReviewQueue
from tests.judging.chat_server import ChatServer, Reply, Request, completion, verdicts_json
from tests.judging.projects import RUN_ID, criterion_id
from tests.judging.review_project import review_project

SERVED = "gpt-5-mini-2025-08-07"


def priced(request: Request) -> Reply:
    count = len(request.ids)
    usage = {"prompt_tokens": 800 + 10 * count, "completion_tokens": 40 * count, "total_tokens": 800 + 50 * count,
             "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 3}}
    return Reply(body=completion(verdicts_json(request.ids), SERVED, usage, fingerprint="fp_review1"))


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer(priced) as running:
        yield running


@pytest.fixture
def project(tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-review-cost")
    root = review_project(tmp_path)
    judge(root, server)
    return root


def judge(root: Path, server: ChatServer, model: str = "gpt-5-mini", batch: int = 4) -> None:
    code = main(["judge", str(root), "--run", RUN_ID, "--scope", "T01", "--endpoint", server.url,
                 "--model", model, "--batch", str(batch), "--parallel", "1"])
    assert code == 0


def open_review(qtbot, root: Path, blind: bool) -> ReviewView:
    session = ReviewSession(ReviewQueue.of_project(root))
    session.identity.set_name("Anna")
    session.set_blind(blind)
    view = ReviewView(session, TaskRunner())
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    qtbot.waitUntil(lambda: view.current is not None, timeout=30000)
    return view


def show(view: ReviewView, number: int) -> None:
    """Put the decision on criterion `number` of T01 on the right (the served model's verdict is the
    one shown: judges by name, and judge:gpt-5… comes before judge:test-model)."""
    (decision,) = [d for d in view.model.decisions if d.scope == "T01" and d.criterion.id == criterion_id(number)]
    assert decision.judge_rater() == f"judge:{SERVED}"
    assert view.select_decision(decision)
    assert view.current is decision


def test_the_request_and_the_judging_cost_are_shown_with_the_verdict(qtbot, project: Path):
    view = open_review(qtbot, project, blind=False)
    show(view, 2)
    text = view.judge_cost.text()
    assert "Request 1 of 3 of this judging, with 3 other criteria: answered by " + SERVED in text
    assert "fingerprint fp_review1" in text
    assert "840 prompt tokens (0 cached), 160 completion (3 reasoning)" in text
    assert "1 HTTP attempt" in text
    assert not view.judge_trace.isVisible()  # the batch judge keeps no trace: there was no conversation
    # the judging: 3 requests, 2,500 prompt and 400 completion tokens
    assert "3 requests (3 HTTP attempts), 2,500 prompt tokens (0 cached), 400 completion tokens (9 reasoning)" in text
    show(view, 9)  # the third request: C009, C010
    assert "Request 3 of 3 of this judging, with 1 other criterion" in view.judge_cost.text()
    assert "820 prompt tokens" in view.judge_cost.text()


def test_blind_review_hides_the_judges_cost_with_its_verdict(qtbot, project: Path):
    view = open_review(qtbot, project, blind=True)
    show(view, 2)
    assert "hidden" in view.judge_verdict.text()
    assert view.judge_cost.text() == ""


def test_a_new_judging_is_read_once_its_file_is_written(qtbot, project: Path, server: ChatServer):
    provenance = Provenance(project)
    first = provenance.judged_by(RUN_ID, "T01", criterion_id(1), f"judge:{SERVED}")
    assert first is not None and first.number == 1
    assert provenance.judged_by(RUN_ID, "T01", criterion_id(1), f"judge:{SERVED}") is first  # read once
    # asked for another model (the server answers with the same one): judged again, in batches of 5
    judge(project, server, "gpt-5", 5)
    again = provenance.judged_by(RUN_ID, "T01", criterion_id(6), f"judge:{SERVED}")
    assert again is not None and again.judging.started > first.judging.started
    assert (again.number, len(again.judging.requests), again.judging.requested_model) == (2, 2, "gpt-5")
    # nothing recorded for a rater who never judged, or a criterion outside the judging
    assert provenance.judged_by(RUN_ID, "T01", criterion_id(1), "judge:test-model") is None
    assert provenance.judged_by(RUN_ID, "final", criterion_id(1), f"judge:{SERVED}") is None


def test_the_agent_judges_trace_is_shown_with_its_verdict(qtbot, project: Path):
    """The run judged again by the agent judge (tests/judging/agent_server.py's scripted model: it lists
    the files, reads the report, and says a criterion holds only when line 7 reached it through a tool):
    the review shows that conversation's steps and calls."""
    from tests.judging.agent_server import ScriptedAgent, tool_results

    def plan(request: Request) -> list[tuple[str, object]]:
        results = tool_results(request)
        if not results:
            return [("list_files", {})]
        if len(results) == 1:
            return [("read_lines", {"path": "outputs/report.txt", "first": 1, "last": 40})]
        return []

    agent = ScriptedAgent(plan, "Line 7: item 7 of the brief.")
    with ChatServer(agent.reply) as running:
        code = main(["judge", str(project), "--run", RUN_ID, "--scope", "T01", "--endpoint", running.url,
                     "--model", "agent-model", "--agent", "--batch", "10", "--parallel", "1"])
    assert code == 0
    view = open_review(qtbot, project, blind=False)
    (decision,) = [d for d in view.model.decisions if d.scope == "T01" and d.criterion.id == criterion_id(3)]
    assert decision.judge_rater() == "judge:agent-model"  # shown first: judges by name
    assert view.select_decision(decision)
    assert view.judge_trace.isVisible()
    lines = view.judge_trace.toPlainText().splitlines()
    assert lines[0].startswith(", ".join(criterion_id(n) for n in range(1, 11)) + ": answered")
    assert [line.split("(")[0].strip() for line in lines if line.startswith("    ")] == ["list_files", "read_lines"]
    assert 'read_lines({"path": "outputs/report.txt", "first": 1, "last": 40}) returned' in view.judge_trace.toPlainText()
    # each step is a request of the judging; the answer came in the third, after two tool results:
    # 1,000 + 10 x 2 prompt tokens (the scripted usage)
    assert "Request 3 of 3 of this judging, with 9 other criteria: answered by agent-model" in view.judge_cost.text()
    assert "1,020 prompt tokens" in view.judge_cost.text()
    # a blind rater sees neither the trace nor the cost before giving a verdict
    blind = open_review(qtbot, project, blind=True)
    blind.select_decision(next(d for d in blind.model.decisions if d.criterion.id == criterion_id(3)))
    assert not blind.judge_trace.isVisible() and blind.judge_cost.text() == ""
