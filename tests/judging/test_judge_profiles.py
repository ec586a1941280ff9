"""Judge profiles and the requests they shape, against loopback servers that keep each API's documented
rules: every preset's requests are accepted by its API, the request of earlier versions is refused by a
reasoning model after one request with the server's message, profile files are checked with file:line
errors, and the flags beat the profile."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from studio.cli.judge_cmd import configure, settings_of
from studio.judging.client import EndpointError
from studio.judging.errors import JudgingError
from studio.judging.judge import JudgeSettings, judge_submission
from studio.judging.profiles import PRESETS, load_profile
from studio.judging.submission import Submission, submission_of_folder
from studio.judging.verdict_store import VerdictStore
from tests.helpers import write
from tests.judging.chat_server import API_OF_PRESET, ApiRules, ChatServer, Reply, Request
from tests.judging.projects import SCOPE, judged_project, load, submission_folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return judged_project(tmp_path / "project", 20)


@pytest.fixture
def submission(tmp_path: Path) -> Submission:
    return submission_of_folder(submission_folder(tmp_path / "sub-A"), SCOPE)


@pytest.fixture
def servers() -> Iterator[Callable[[Callable[[Request], Reply]], ChatServer]]:
    started: list[ChatServer] = []

    def make(reply: Callable[[Request], Reply]) -> ChatServer:
        server = ChatServer(reply).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


def preset_settings(name: str, server: ChatServer, **more: object) -> JudgeSettings:
    profile = PRESETS[name].with_changes(endpoint=server.url, timeout_s=10.0)
    return JudgeSettings.from_profile(profile, base_url=server.url, model="local-model", name=name,
                                      backoff_s=0.01, **more)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_is_accepted_by_its_api(preset: str, project: Path, submission: Submission,
                                            servers: Callable[..., ChatServer]) -> None:
    rules = API_OF_PRESET[preset]
    server = servers(rules.reply)
    summary = judge_submission(load(project), submission, preset_settings(preset, server), VerdictStore(project))
    assert (summary.judged, summary.missing, summary.refusals) == (20, 0, [])
    assert len(server.requests) == 3  # batches of 8, 8, 4: nothing refused, nothing asked again
    body = server.requests[0].body
    wanted = PRESETS[preset]
    assert ("temperature" in body) == (wanted.temperature is not None)
    assert body.get("reasoning_effort") == wanted.reasoning_effort
    assert body[wanted.output_tokens_parameter] == wanted.max_output_tokens
    other = {"max_tokens", "max_completion_tokens"} - {wanted.output_tokens_parameter}
    assert not other & set(body)
    form = body.get("response_format")
    if wanted.structured_output == "json_schema":
        assert form["type"] == "json_schema" and form["json_schema"]["strict"] is True
    else:
        assert form is None
    served = rules.served_model or wanted.model or "local-model"
    assert summary.raters == [f"judge:{served}"]


def test_the_request_of_earlier_versions_is_refused_by_a_reasoning_model_once(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    # temperature 0 and max_tokens, as before profiles: OpenAI's reasoning models answer HTTP 400
    server = servers(API_OF_PRESET["openai-reasoning"].reply)
    settings = JudgeSettings(base_url=server.url, model="gpt-5-mini", temperature=0, max_output_tokens=4000,
                             timeout_s=10.0, parallel=1)
    with pytest.raises(EndpointError) as error:
        judge_submission(load(project), submission, settings, VerdictStore(project))
    assert len(server.requests) == 1
    assert "Unsupported value: 'temperature' does not support 0 with this model" in str(error.value)
    assert "judge profile" in str(error.value)


def test_max_tokens_is_refused_where_max_completion_tokens_is_wanted(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    server = servers(API_OF_PRESET["openai-reasoning"].reply)
    settings = preset_settings("openai-reasoning", server, parallel=1, output_tokens_parameter="max_tokens")
    with pytest.raises(EndpointError, match="Use 'max_completion_tokens' instead"):
        judge_submission(load(project), submission, settings, VerdictStore(project))
    assert len(server.requests) == 1


def test_the_newest_claude_refuses_temperature_once_on_the_anthropic_endpoint(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    server = servers(API_OF_PRESET["anthropic"].reply)
    settings = JudgeSettings.from_profile(PRESETS["anthropic"].with_changes(endpoint=server.url, temperature=0.0,
                                                                           parallel=1, timeout_s=10.0),
                                          base_url=server.url, model="m")
    with pytest.raises(EndpointError, match="does not support the temperature parameter"):
        judge_submission(load(project), submission, settings, VerdictStore(project))
    assert len(server.requests) == 1


def args_of(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure(parser)
    return parser.parse_args(argv)


def test_a_profile_file_starts_from_a_preset_and_the_flags_beat_it(project: Path) -> None:
    write(project, "judging/profiles/paper.yaml",
          "# the paper's judge\npreset: openai-reasoning\nmodel: o3\nattempts: 3\n")
    settings = settings_of(args_of(str(project), "--costs", "--profile", "paper", "--reasoning-effort", "medium",
                                   "--batch", "4"), project)
    assert (settings.model, settings.reasoning_effort, settings.attempts, settings.batch) == ("o3", "medium", 3, 4)
    assert settings.temperature is None and settings.output_tokens_parameter == "max_completion_tokens"
    assert settings.timeout_s == 1200 and settings.profile == "paper"
    assert settings.base_url == "https://api.openai.com/v1"


def test_no_profile_sends_no_temperature_and_waits_1200_s(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    settings = settings_of(args_of(str(project), "--costs"), project)
    assert settings.temperature is None and settings.timeout_s == 1200 and settings.model == "gpt-4o-mini"
    assert "temperature" not in settings.shape.body(settings.model, [])


@pytest.mark.parametrize(("text", "line", "words"), [
    ("model: o3\ntemperature: 3\n", 2, "temperature"),
    ("model: o3\nreasoning_effort: extreme\n", 2, "reasoning_effort"),
    ("model: o3\n\nbatchsize: 4\n", 3, "unknown key 'batchsize'"),
    ("preset: openai-resoning\n", 1, "unknown preset 'openai-resoning': give one of openai-reasoning"),
    ("model: o3\napi_key: sk-live-123\n", 2, "never holds the API key"),
    ("model: [o3\n", 1, "YAML syntax"),
])
def test_a_bad_profile_file_is_named_with_its_line_and_the_fix(project: Path, text: str, line: int,
                                                               words: str) -> None:
    path = write(project, "judging/profiles/bad.yaml", text)
    with pytest.raises(JudgingError) as error:
        load_profile(project, "bad")
    message = str(error.value)
    assert message.startswith(f"{path}:{line}:"), message
    assert words in message and "sk-live-123" not in message


def test_an_unknown_profile_lists_the_presets_and_the_projects(project: Path) -> None:
    write(project, "judging/profiles/mine.yaml", "model: m\n")
    with pytest.raises(JudgingError, match=r"no judge profile 'other'.*openai-reasoning.*the project's: mine"):
        load_profile(project, "other")


def test_the_rules_server_refuses_a_reasoning_effort_a_non_reasoning_model_lacks() -> None:
    # the loopback API is itself strict: a request it would refuse at OpenAI is refused here
    rules = ApiRules("openai", refuses_reasoning_effort=True)
    request = Request("/v1/chat/completions", {}, {"model": "m", "messages": [{"role": "user", "content": "x"}],
                                                   "reasoning_effort": "high"}, 1)
    assert rules.reply(request).status == 400


def test_a_verdict_is_judged_again_at_another_reasoning_effort(
        project: Path, submission: Submission, servers: Callable[..., ChatServer]) -> None:
    server = servers(API_OF_PRESET["openai-reasoning"].reply)
    store = VerdictStore(project)
    high = preset_settings("openai-reasoning", server)
    assert judge_submission(load(project), submission, high, store).judged == 20
    assert judge_submission(load(project), submission, high, store).reused == 20
    low = preset_settings("openai-reasoning", server, reasoning_effort="low")
    assert judge_submission(load(project), submission, low, store).judged == 20
    assert len(server.requests) == 6 and server.requests[-1].body["reasoning_effort"] == "low"


def test_judge_with_a_project_profile_sends_what_it_pins(
        project: Path, tmp_path: Path,
        servers: Callable[..., ChatServer], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from studio.cli.main import main

    monkeypatch.setenv("OPENAI_API_KEY", "sk-profile-test")
    monkeypatch.setenv("OPENAI_MODEL", "ignored-by-the-profile")
    server = servers(API_OF_PRESET["openai-reasoning"].reply)
    write(project, "judging/profiles/paper.yaml", f"preset: openai-reasoning\nendpoint: {server.url}\nmodel: o3\n")
    folder = submission_folder(tmp_path / "sub-P")
    code = main(["judge", str(project), "--submission", str(folder), "--scope", SCOPE, "--profile", "paper"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"judging with o3 at {server.url} (profile paper): no temperature, reasoning effort high" in out
    bodies = [request.body for request in server.requests]
    assert len(bodies) == 3 and all(b["model"] == "o3" and "temperature" not in b and
                                    b["max_completion_tokens"] == 32000 for b in bodies)
