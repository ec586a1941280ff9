"""`dbstudio benchmark judge`'s profile: with `judge: {rater, profile: NAME}`, each project's own
judging/profiles/NAME.yaml is the one its pairs are judged with (not the first project's for all);
`judge.settings` pins settings over it for every project alike; a project lacking the profile, or a
pinned setting that is no judge setting, refuses the command before anything is asked. Real run
folders and checkpoint stores, a loopback chat-completions server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.cli.exit_codes import ExitCode
from tests.helpers import copy_blank, line_of, replace_in, run_cli, write
from tests.judging.chat_server import ChatServer
from tests.judging.projects import RUN_ID, make_run


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-benchmark-profile-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def suite(base: Path, judge: str, temperatures: dict[str, float | None]) -> Path:
    """Projects p01, p02, ... each with one completed run (RUN_ID) of system a and, where its
    temperature is not None, a profile `house` of its own sending that temperature."""
    for name, temperature in temperatures.items():
        root = copy_blank(base / name)
        replace_in(root, "project.yaml", "id: new-project", f"id: {name}")
        make_run(root, base / "work" / name)
        if temperature is not None:
            write(root, "judging/profiles/house.yaml", f"temperature: {temperature}\n")
    outcomes = "".join(f"  - {{system: a, project: {name}, submission: {RUN_ID}}}\n" for name in temperatures)
    path = base / "benchmark.yaml"
    path.write_text(f"id: s\ntitle: S\nprojects: [{', '.join(temperatures)}]\njudge: {judge}\nsystems:\n"
                    "  - {id: a, name: Agent A, model: none, harness: 'script:h.sh'}\n"
                    f"outcomes:\n{outcomes}")
    return path


def temperatures_asked(server: ChatServer) -> list[float | None]:
    """Each request's temperature, in the order sent (pairs are judged one after the other)."""
    return [r.body.get("temperature") for r in server.requests]


def test_each_project_is_judged_with_its_own_profile(tmp_path: Path, capsys, server: ChatServer):
    bench = suite(tmp_path, "{rater: judge:m1, profile: house}", {"p01": 0.1, "p02": 0.9})
    code, out, err = run_cli(capsys, "benchmark", "judge", str(bench), "--endpoint", server.url)
    assert code == ExitCode.OK, out + err
    asked = temperatures_asked(server)
    # p01's pair first, with p01's profile; then p02's with p02's, never p01's for both
    assert asked and set(asked) == {0.1, 0.9} and asked == sorted(asked)
    assert all(r.body["model"] == "m1" for r in server.requests)  # the pinned rater's model
    assert "the projects' profiles differ" in out
    assert "  p01: m1 at " in out and "(profile house): temperature 0.1" in out
    assert "  p02: m1 at " in out and "(profile house): temperature 0.9" in out
    assert "2 of 2 pair(s) judged in full" in out


def test_pinned_settings_hold_for_every_project(tmp_path: Path, capsys, server: ChatServer):
    bench = suite(tmp_path, "{rater: judge:m1, profile: house, settings: {temperature: 0.3}}",
                  {"p01": 0.1, "p02": 0.9})
    code, out, err = run_cli(capsys, "benchmark", "judge", str(bench), "--endpoint", server.url)
    assert code == ExitCode.OK, out + err
    assert set(temperatures_asked(server)) == {0.3}
    assert "judging 2 pair(s) with m1 at " in out and "(profile house): temperature 0.3" in out


def test_a_project_without_the_profile_refuses_before_anything_is_asked(tmp_path: Path, capsys,
                                                                        server: ChatServer):
    bench = suite(tmp_path, "{rater: judge:m1, profile: house}", {"p01": 0.1, "p02": None})
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, out, err = run_cli(capsys, "benchmark", "judge", str(bench), "--endpoint", server.url)
    assert code == ExitCode.UNUSABLE and out == "" and "Traceback" not in err
    assert f"dbstudio benchmark judge: project p02 ({tmp_path / 'p02'}): no judge profile 'house': write " \
           "judging/profiles/house.yaml, or give a preset" in err
    assert server.requests == [] and {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_pinned_setting_that_is_wrong_is_named_at_its_line(tmp_path: Path, capsys, server: ChatServer):
    for n, (settings, why) in enumerate((("{temprature: 0.3}", "judge.settings: 'temprature' is not a judge setting: use one of "
                                                 "model, endpoint, temperature"),
                          ("{temperature: 7}", "judge.settings: temperature: Input should be less than or equal "
                                               "to 2")), 1):
        bench = suite(tmp_path / f"case{n}", "{rater: judge:m1,\n  settings: " + settings + "}", {"p01": None})
        code, out, err = run_cli(capsys, "benchmark", "judge", str(bench), "--endpoint", server.url)
        assert code == ExitCode.UNUSABLE and out == "", out + err
        line = line_of(bench.read_text(), "settings:")
        assert err.startswith(f"dbstudio benchmark judge: {bench}:{line}:") and why in err
    assert server.requests == []
