"""Cost and provenance of judging: every request's usage, served model, fingerprint, latency and HTTP
attempts kept beside the verdicts and summed per submission, run and project to hand-computed totals;
the rater named after the model that answered; `judge --dry-run` estimating without a request."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from studio.cli.main import main
from studio.judging.costs import cost_report, costs_dir, read_costs
from studio.judging.verdict_store import VerdictStore
from tests.helpers import git
from tests.judging.chat_server import ChatServer, Reply, Request, completion, verdicts_json
from tests.judging.projects import SCOPE, judged_project, submission_folder

SERVED = "gpt-5-mini-2025-08-07"
REQUESTED = "gpt-5-mini"


def priced(request: Request) -> Reply:
    """Usage a test can add up by hand: 1,000 + 10 per criterion prompt tokens, 50 per criterion answered,
    512 of the prompt cached from the second request on, 3 reasoning tokens."""
    count = len(request.ids)
    usage = {
        "prompt_tokens": 1000 + 10 * count,
        "completion_tokens": 50 * count,
        "total_tokens": 1000 + 60 * count,
        "prompt_tokens_details": {"cached_tokens": 512 if request.number > 1 else 0},
        "completion_tokens_details": {"reasoning_tokens": 3},
    }
    return Reply(body=completion(verdicts_json(request.ids), SERVED, usage, fingerprint="fp_44709d6fcb"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = judged_project(tmp_path / "project", 20)
    git(root, "init", "-q", "-b", "main")
    return root


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer(priced) as running:
        yield running


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-costs-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)


def judge(project: Path, folder: Path, server: ChatServer, *more: str) -> int:
    return main(["judge", str(project), "--submission", str(folder), "--scope", SCOPE, "--endpoint", server.url,
                 "--model", REQUESTED, "--parallel", "1", *more])


def test_usage_is_recorded_per_request_and_summed_exactly(project: Path, tmp_path: Path, server: ChatServer,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    sub_a, sub_b = submission_folder(tmp_path / "sub-A"), submission_folder(tmp_path / "sub-B", "# Other\n")
    assert judge(project, sub_a, server) == 0
    out = capsys.readouterr().out
    # batches of 8, 8, 4: prompt 1,080 + 1,080 + 1,040; completion 400 + 400 + 200; cached 0 + 512 + 512
    assert ("cost: 3 requests (3 HTTP attempts), 3,200 prompt tokens (1,024 cached), 1,000 completion tokens "
            "(9 reasoning)") in out
    assert f"as judge:{SERVED}" in out
    assert "[20/20] sub-A T01 (batch, 4,200 tokens so far)" in out
    assert judge(project, sub_b, server) == 0  # requests 4-6 of the server: all three cached
    capsys.readouterr()

    (file_a,) = costs_dir(project, "sub-A").glob("*.yaml")
    data = yaml.safe_load(file_a.read_text(encoding="utf-8"))
    assert (data["requested_model"], data["served_models"], data["rater"]) == (REQUESTED, [SERVED], f"judge:{SERVED}")
    assert data["totals"]["prompt_tokens"] == 3200 and data["totals"]["cached_tokens"] == 1024
    assert [len(r["criteria"]) for r in data["requests"]] == [8, 8, 4]
    assert all(r["fingerprint"] == "fp_44709d6fcb" and r["attempts"] == 1 and r["latency_s"] > 0
               and r["outcome"] == "answered" and r["usage_reported"] for r in data["requests"])

    report = cost_report(read_costs(project))
    assert report.by_submission["sub-A"].prompt_tokens == 3200
    assert (report.by_submission["sub-B"].prompt_tokens, report.by_submission["sub-B"].cached_tokens) == (3200, 1536)
    total = report.project
    assert (total.requests, total.attempts, total.prompt_tokens, total.completion_tokens, total.cached_tokens,
            total.reasoning_tokens) == (6, 6, 6400, 2000, 2560, 18)

    assert main(["judge", str(project), "--costs"]) == 0
    shown = capsys.readouterr().out
    assert "sub-A T01: 3 requests (3 HTTP attempts), 3,200 prompt tokens (1,024 cached)" in shown
    assert "sub-B T01: 3 requests (3 HTTP attempts), 3,200 prompt tokens (1,536 cached)" in shown
    assert ("project (2 judgings): 6 requests (6 HTTP attempts), 6,400 prompt tokens (2,560 cached), "
            "2,000 completion tokens (18 reasoning)") in shown
    # under git with the verdicts: nothing of it is ignored
    assert git(project, "check-ignore", str(file_a), check=False).strip() == ""


def test_the_rater_is_the_model_that_answered_and_its_verdicts_are_reused(
        project: Path, tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]) -> None:
    folder = submission_folder(tmp_path / "sub-A")
    assert judge(project, folder, server) == 0
    store = VerdictStore(project)
    assert len(store.read("sub-A", f"judge:{SERVED}")) == 20
    assert store.read("sub-A", f"judge:{REQUESTED}") == []
    capsys.readouterr()
    assert judge(project, folder, server) == 0  # the same model asked again: everything reused
    assert "reused 20" in capsys.readouterr().out and len(server.requests) == 3


def test_a_dry_run_sends_nothing_and_estimates_what_judging_sends(
        project: Path, tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]) -> None:
    folder = submission_folder(tmp_path / "sub-A")
    assert judge(project, folder, server, "--dry-run", "--max-output-tokens", "2000") == 0
    out = capsys.readouterr().out
    assert server.requests == [] and not (project / "verdicts").exists()
    assert "would send 3 requests" in out and "at most 6,000 output tokens" in out
    estimate = int(out.split("would send 3 requests")[1].split("about ")[1].split(" prompt")[0].replace(",", ""))
    assert judge(project, folder, server) == 0  # the real judging sends what the dry run estimated
    (cost,) = read_costs(project)
    assert sum(r.estimated_prompt_tokens for r in cost.requests) == estimate > 0


def test_a_dry_run_names_the_criteria_whose_request_cannot_fit(
        project: Path, tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]) -> None:
    folder = submission_folder(tmp_path / "sub-A")
    assert judge(project, folder, server, "--dry-run", "--context-window", "300") == 1
    err = capsys.readouterr().err
    assert server.requests == []
    assert "too large for the context window of 300 tokens: T01/T01-C001" in err


def test_progress_carries_the_tokens_spent_so_far(project: Path, tmp_path: Path, server: ChatServer) -> None:
    from studio.judging.judge import JudgeProgress, JudgeSettings, judge_submission
    from studio.judging.submission import submission_of_folder
    from tests.judging.projects import load

    seen: list[JudgeProgress] = []
    settings = JudgeSettings(base_url=server.url, model=REQUESTED, parallel=1, timeout_s=10.0)
    submission = submission_of_folder(submission_folder(tmp_path / "sub-A"), SCOPE)
    judge_submission(load(project), submission, settings, VerdictStore(project), seen.append)
    assert [p.tokens for p in seen] == [1080 + 400, 2 * (1080 + 400), 2 * (1080 + 400) + 1040 + 200]


def test_a_dry_run_of_a_run_sends_nothing(project: Path, tmp_path: Path, server: ChatServer) -> None:
    from studio.judging.judge import JudgeSettings
    from studio.judging.run_judging import judge_run
    from tests.judging.projects import RUN_ID, make_run

    make_run(project, tmp_path, done=("T01",), final=False)
    settings = JudgeSettings(base_url=server.url, model=REQUESTED, timeout_s=10.0)
    result = judge_run(project, RUN_ID, "all", settings, dry_run=True)
    assert server.requests == [] and result.summary.planned_requests == 3
    assert result.summary.estimated_prompt_tokens > 0 and not (project / "verdicts").exists()


def test_a_broken_cost_file_is_named_with_the_fix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = costs_dir(project, "sub-A") / "20261201T000000000000Z-t01-judge-m-0000.yaml"
    broken.parent.mkdir(parents=True)
    broken.write_text("format: 1\nsubmission: [\n", encoding="utf-8")
    assert main(["judge", str(project), "--costs"]) == 2
    err = capsys.readouterr().err
    assert f"{broken}: not a readable cost file" in err and "restore it from git or delete it" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("option", "words"), [
    ({"structured_output": "xml"}, "give json_schema, json_object or none"),
    ({"output_tokens_parameter": "max_output"}, "give max_completion_tokens or max_tokens"),
    ({"max_output_tokens": 0}, "max_output_tokens must be at least 1"),
    ({"temperature": 2.5}, "between 0 and 2"),
])
def test_settings_the_api_cannot_take_are_refused_before_judging(option: dict, words: str) -> None:
    from studio.judging.errors import JudgingError
    from studio.judging.judge import JudgeSettings

    with pytest.raises(JudgingError, match=words):
        JudgeSettings(base_url="http://127.0.0.1:9/v1", model="m", **option)


def test_a_new_snapshot_answering_takes_the_checks_verdicts_under_its_name(tmp_path: Path) -> None:
    from studio.judging.judge import JudgeSettings, judge_submission
    from studio.judging.submission import submission_of_folder
    from tests.helpers import copy_blank, write
    from tests.judging.projects import load
    from tests.judging.test_judge_checks import RUBRIC

    project = copy_blank(tmp_path / "project")
    write(project, "subtasks/T01/rubric.yaml", RUBRIC)
    submission = submission_of_folder(submission_folder(tmp_path / "sub"), "T01")
    snapshot = ["snap-1"]
    with ChatServer(lambda r: Reply(body=completion(verdicts_json(r.ids), snapshot[0]))) as server:
        settings = JudgeSettings(base_url=server.url, model="m", timeout_s=10.0)
        store = VerdictStore(project)
        assert judge_submission(load(project), submission, settings, store).raters == ["judge:snap-1"]
        snapshot[0] = "snap-2"  # the provider moves the name to a new snapshot; the evidence changes
        write(submission.folder, "outputs/report.md", "# Report\n\nA new refinancing plan.\n")
        again = judge_submission(load(project), submission, settings, store)
    assert again.raters == ["judge:snap-2"]
    assert sorted(v.criterion for v in store.read(submission.id, "judge:snap-2")) == [
        "T01-C01", "T01-C02", "T01-C03", "T01-C04"]
    assert len(store.read(submission.id, "judge:snap-1")) == 4  # what the first snapshot said stays its own
