"""`dbstudio judge` on a run's checkpoints and final package (a real run folder and checkpoint store)
and on a folder, against a real chat-completions server on loopback: progress and summary, reuse on the
second call, missing verdicts, clear errors, and the API key in no file the command wrote and nowhere
in the project's git history."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.judging.verdict_store import VerdictStore
from tests.helpers import REPO_ROOT, copy_blank, git, write
from tests.judging.chat_server import ChatServer, Reply, Request, completion, verdicts_json
from tests.judging.projects import RUN_ID, make_run

KEY = "sk-judge-cli-secret-7f3a9c2e1d"
# dbstudio in a process of its own
LAUNCH = "import sys; from studio.cli.main import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_blank(tmp_path / "project")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "project")
    return root


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)


def judge(*args: str) -> int:
    return main(["judge", *args])


def test_a_run_is_judged_scope_by_scope_then_reused(project: Path, tmp_path: Path, server: ChatServer,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    make_run(project, tmp_path)
    code = judge(str(project), "--run", RUN_ID, "--endpoint", server.url, "--model", "local-judge")
    out = capsys.readouterr().out
    assert code == 0, out
    # T01 has 1 criterion, T02 4, the final rubric 4 (2 of them reused checkpoint criteria)
    assert f"{RUN_ID} T01: judged 1, reused 0, missing 0" in out
    assert f"{RUN_ID} T02: judged 4, reused 0, missing 0" in out
    assert f"{RUN_ID} final: judged 4, reused 0, missing 0" in out
    assert "judged 9, reused 0, missing 0, by checks 0" in out
    assert f"[4/4] {RUN_ID} final" in out
    verdicts = VerdictStore(project).read(RUN_ID, "judge:local-judge")
    assert sorted((v.scope, v.criterion) for v in verdicts) == sorted(
        [("T01", "T01-C01"), ("T02", "T02-C01"), ("T02", "T02-C02"), ("T02", "T02-G01"), ("T02", "T02-N01"),
         ("final", "T01-C01"), ("final", "T02-C01"), ("final", "A-01"), ("final", "PKG-01")])
    final_request = next(r for r in server.requests if "Delivery contract" in r.user_text)
    assert "final/report.md" in final_request.user_text and "AC1: The package lets its recipients act" in \
        final_request.user_text
    # the reused final criterion is asked with its checkpoint original's text
    assert "T01-C01 (requirement, weight +5): The report states the client's objective" in final_request.user_text

    asked = len(server.requests)
    assert judge(str(project), "--run", RUN_ID, "--endpoint", server.url, "--model", "local-judge") == 0
    assert "judged 0, reused 9, missing 0" in capsys.readouterr().out
    assert len(server.requests) == asked


def test_the_key_is_sent_but_written_nowhere_and_never_enters_git_history(
        project: Path, tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]) -> None:
    make_run(project, tmp_path)
    assert judge(str(project), "--run", RUN_ID, "--endpoint", server.url, "--model", "m") == 0
    out, err = capsys.readouterr()
    assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}  # the key did travel
    assert KEY not in out + err
    git(project, "add", "-A")  # verdicts/ is under git; runs/ is ignored
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "verdicts")
    assert "verdicts/" in git(project, "log", "--stat", "-1")
    written = [path for path in project.rglob("*") if path.is_file()]
    assert any("runs" in path.parts for path in written) and any("verdicts" in path.parts for path in written)
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in git(project, "log", "-p", "--all")


def test_scope_all_skips_subtasks_the_run_has_not_done(project: Path, tmp_path: Path, server: ChatServer,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    make_run(project, tmp_path, done=("T01",), final=False)
    assert judge(str(project), "--run", RUN_ID[:10], "--endpoint", server.url) == 0
    out = capsys.readouterr().out
    assert "has no checkpoint for T02, final: not judged" in out and "judged 1, reused 0" in out
    assert judge(str(project), "--run", RUN_ID, "--scope", "T02", "--endpoint", server.url) == 2
    assert "no checkpoint of T02" in capsys.readouterr().err


def test_a_folder_is_judged_under_its_name_or_the_given_id(project: Path, tmp_path: Path, server: ChatServer,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    folder = write(tmp_path / "handed-over", "outputs/report.md", "# Report\n").parent.parent
    assert judge(str(project), "--submission", str(folder), "--scope", "T02", "--endpoint", server.url,
                 "--model", "m", "--batch", "2", "--parallel", "1") == 0
    assert "judged 4, reused 0" in capsys.readouterr().out
    assert sorted(len(r.ids) for r in server.requests) == [2, 2]
    assert len(VerdictStore(project).read("handed-over", "judge:m")) == 4
    assert judge(str(project), "--submission", str(folder), "--scope", "T02", "--id", "vendor-x",
                 "--endpoint", server.url, "--model", "m") == 0
    assert len(VerdictStore(project).read("vendor-x", "judge:m")) == 4


def test_missing_verdicts_are_listed_and_exit_1(project: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    def reply(request: Request) -> Reply:
        return Reply(body=completion(verdicts_json([cid for cid in request.ids if cid != "T02-N01"])))

    folder = write(tmp_path / "sub", "outputs/report.md", "# Report\n").parent.parent
    with ChatServer(reply) as server:
        code = judge(str(project), "--submission", str(folder), "--scope", "T02", "--endpoint", server.url)
    out = capsys.readouterr().out
    assert code == 1
    assert "judged 3, reused 0, missing 1" in out and "missing (judge again to retry them): T02/T02-N01" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--submission", "{folder}"], "--submission needs --scope"),
    (["--submission", "{folder}", "--scope", "T09"], "no rubric 'T09': give one of T01, T02, final"),
    (["--submission", "{tmp}/nowhere", "--scope", "T01"], "no such folder"),
    (["--run", "nosuchrun"], "no run nosuchrun"),
])
def test_bad_options_are_refused_with_the_fix(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              args: list[str], message: str) -> None:
    folder = write(tmp_path / "sub", "outputs/report.md", "# Report\n").parent.parent
    filled = [arg.format(folder=folder, tmp=tmp_path) for arg in args]
    assert judge(str(project), *filled, "--endpoint", "http://127.0.0.1:9/v1") == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_an_endpoint_that_is_not_there_is_named_with_what_to_do(project: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    folder = write(tmp_path / "sub", "outputs/report.md", "# Report\n").parent.parent
    with ChatServer() as stopped:
        url = stopped.url
    assert judge(str(project), "--submission", str(folder), "--scope", "T01", "--endpoint", url) == 2
    err = capsys.readouterr().err
    assert f"cannot connect to {url}/chat/completions" in err and "--endpoint or OPENAI_BASE_URL" in err
    # no verdict file (a cost file records the request tried)
    assert not (project / "verdicts").exists() or not any((project / "verdicts").glob("*/*.yaml"))


def test_ctrl_c_stores_what_was_received_and_exits_130(project: Path, tmp_path: Path) -> None:
    folder = write(tmp_path / "sub", "outputs/report.md", "# Report\n").parent.parent
    with ChatServer(latency_s=0.3) as server:
        process = subprocess.Popen(
            [sys.executable, "-c", LAUNCH, "judge", str(project), "--submission", str(folder), "--scope",
             "T02", "--endpoint", server.url, "--model", "m", "--batch", "1", "--parallel", "1"],
            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "OPENAI_API_KEY": KEY})
        try:
            assert process.stdout is not None
            for line in process.stdout:  # the first verdict is in: interrupt
                if "[1/4]" in line:
                    process.send_signal(signal.SIGINT)
                    break
            out, err = process.communicate(timeout=60)
        finally:
            process.kill()
    assert process.returncode == 130, err
    assert "stopping after the requests under way" in err and "interrupted: the verdicts received are stored" in err
    kept = VerdictStore(project).read("sub", "judge:m")
    assert 1 <= len(kept) < 4 and all(v.verdict == "pass" for v in kept)
    assert len(server.requests) == len(kept)


def test_a_project_that_does_not_load_is_refused_with_its_first_problem(project: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "subtasks/T02/rubric.yaml", "criteria:\n  - id: T02-C01\n    weight: 99\n")
    folder = write(tmp_path / "sub", "outputs/report.md", "# Report\n").parent.parent
    assert judge(str(project), "--submission", str(folder), "--scope", "T01", "--endpoint", "http://127.0.0.1:9/v1") == 2
    err = capsys.readouterr().err
    assert "subtasks/T02/rubric.yaml:" in err and "dbstudio validate" in err
