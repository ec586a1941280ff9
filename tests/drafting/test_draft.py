"""Criteria drafted by an LLM (a loopback chat-completions server speaking the hosted API): each draft a
draft criterion in the rubric import's diff, checked before it is offered, never written without --apply,
with the request's cost; the prompt carries the instruction, the reference deliverable and the dependency
map; a refusal or an answer that is no JSON leaves the rubric as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from studio.drafting.draft import DraftError, draft
from studio.editing.session import ProjectSession
from studio.judging.judge import JudgeSettings
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from tests.helpers import run_cli
from tests.judging.chat_server import ChatServer, Reply, Request, api_error, completion

USAGE = {"prompt_tokens": 1234, "completion_tokens": 210, "total_tokens": 1444}


def answer(criteria: list[dict]) -> ChatServer:
    def reply(request: Request) -> Reply:
        return Reply(body=completion(json.dumps({"criteria": criteria}), model="drafter-1", usage=USAGE))
    return ChatServer(reply)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


GOOD = {"text": "The register gives the Venlo works estimate of EUR 1.8m and its 30 June 2026 deadline.",
        "dimension": "completeness", "weight": 4, "covers": ["T03:outputs/open_issues_register.md"]}
NEGATIVE = {"text": "The summary presents the reported EBITDA of EUR 41.8m as the agreed basis.",
            "dimension": "correctness", "weight": -6, "covers": ["T03:outputs/diligence_summary.md"]}
BAD = [{"text": "Zero weight.", "dimension": "correctness", "weight": 0, "covers": []},
       {"text": "Odd dimension.", "dimension": "beauty", "weight": 2, "covers": []},
       {"text": "Elsewhere.", "dimension": "usability", "weight": 2, "covers": ["T09:outputs/x.md"]}]


def settings(server: ChatServer) -> JudgeSettings:
    return JudgeSettings(base_url=server.url, model="drafter", timeout_s=10.0, backoff_s=0.05)


def test_checkpoint_drafts_are_checked_and_offered_as_drafts(sample: Path) -> None:
    reference = sample / "evaluator/reference/T03/outputs/open_issues_register.md"
    reference.parent.mkdir(parents=True)
    reference.write_text("| ID | Issue | Status |\n| --- | --- | --- |\n| OI-01 | Venlo permit | Open |\n")
    with answer([GOOD, NEGATIVE, *BAD]) as server:
        result = draft(ProjectSession(sample).loaded, "checkpoint", "T03", settings(server))
        prompt = server.requests[0].user_text
    assert "## Instruction" in prompt and "Venlo permit | Open" in prompt  # the reference deliverable is shown
    assert [(a.rubric, a.criterion, a.values["weight"], a.values["review.status"]) for a in result.diff.added] == [
        ("T03", "T03-C07", 4, "draft"), ("T03", "T03-C08", -6, "draft")]
    assert result.diff.added[0].after == "T03-C06"  # after the rubric's last criterion
    assert len(result.dropped) == 3
    assert "weight 0 is not a whole number from -10 to 10 other than 0" in result.dropped[0]
    assert "dimension 'beauty'" in result.dropped[1] and "only T03:outputs/" in result.dropped[2]
    assert (result.prompt_tokens, result.completion_tokens, result.model) == (1234, 210, "drafter-1")


def test_propagation_drafts_check_the_correction_downstream(sample: Path) -> None:
    criterion = {"text": "The revised model uses FY2025 EBITDA of EUR 38.9m, not 41.8m.", "dimension": "correctness",
                 "weight": 7, "covers": ["T06:outputs/financing_model.xlsx"]}
    with answer([criterion]) as server:
        result = draft(ProjectSession(sample).loaded, "propagation", "M12", settings(server))
        prompt = server.requests[0].user_text
    assert "It corrects M02, M09." in prompt and "- T07:outputs/lender_presentation.md" in prompt
    (added,) = result.diff.added
    assert (added.rubric, added.values["propagates"], added.values["target"]) == ("T06", ["M12"], "checkpoint")
    with pytest.raises(DraftError, match="is no material that corrects another: give one of M12"):
        draft(ProjectSession(sample).loaded, "propagation", "M01", settings(server))


def test_acceptance_drafts_test_the_items_no_criterion_tests(sample: Path) -> None:
    with pytest.raises(DraftError, match="every acceptance item is tested"):
        draft(ProjectSession(sample).loaded, "acceptance", None, JudgeSettings(base_url="http://127.0.0.1:9", model="m"))
    rubric = sample / "final/rubric.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8").replace("    tests:\n      - AC3\n", ""), encoding="utf-8")
    proposal = {"text": "The Venlo permit condition stays visible from diligence to the checklist.",
                "dimension": "completeness", "weight": 5, "covers": ["package"], "tests": ["AC3"]}
    with answer([proposal, {**proposal, "tests": ["AC1"]}]) as server:
        result = draft(ProjectSession(sample).loaded, "acceptance", None, settings(server))
    (added,) = result.diff.added
    assert added.values["tests"] == ["AC3"] and added.criterion.startswith("P-")
    assert "tests ['AC1']: name the acceptance items it tests (AC3)" in result.dropped[0]


def test_the_command_line_prints_then_applies_with_the_cost(sample: Path, capsys) -> None:
    with answer([GOOD]) as server:
        flags = ["--endpoint", server.url, "--model", "drafter"]
        code, out, err = run_cli(capsys, "draft", str(sample), "--subtask", "T03", *flags)
        assert code == 0 and "+ T03 T03-C07" in out and "nothing written" in err
        assert "1,234 prompt and 210 completion tokens (drafter-1)" in err
        assert "T03-C07" not in (sample / "subtasks/T03/rubric.yaml").read_text(encoding="utf-8")
        code, out, err = run_cli(capsys, "draft", str(sample), "--subtask", "T03", "--apply", *flags)
    assert code == 0
    added = load_project(sample).project.checkpoint_rubrics["T03"].criteria[-1]
    assert (added.key, added.review.status.value) == ("T03-C07", "draft")


def test_a_refusal_or_no_json_leaves_the_rubric_alone(sample: Path, capsys) -> None:
    before = (sample / "subtasks/T03/rubric.yaml").read_bytes()

    def refuse(request: Request) -> Reply:
        return api_error(400, "The request was rejected by the safety system.", code="content_policy_violation")
    with ChatServer(refuse) as server:
        code, _, err = run_cli(capsys, "draft", str(sample), "--subtask", "T03", "--endpoint", server.url,
                               "--model", "drafter", "--apply")
    assert code == 2 and "rejected by the safety system" in err
    with ChatServer(lambda request: Reply(body=completion("Sure! Here are some criteria."))) as server:
        with pytest.raises(DraftError, match="not JSON"):
            draft(ProjectSession(sample).loaded, "checkpoint", "T03", settings(server))
    assert (sample / "subtasks/T03/rubric.yaml").read_bytes() == before
