"""Every way a command ends maps to one exit code: 0 ok, 1 problems, 2 unusable input, 70 a bug.

A bug (any exception that is not a StudioError) gets a short report on stderr and a log file
with the traceback, never a traceback on the terminal and never exit 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import studio.cli.review_cmd as review_cmd
import studio.cli.validate_cmd as validate_cmd
from studio.cli.crash import LOG_DIR_VARIABLE, log_folder
from studio.cli.exit_codes import ExitCode
from studio.cli.main import main
from studio.errors import StudioError
from tests.helpers import REPO_ROOT, replace_in

SAMPLE = REPO_ROOT / "projects" / "kestrel-refinancing"


@pytest.fixture
def log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "logs"
    monkeypatch.setenv(LOG_DIR_VARIABLE, str(folder))
    return folder


def crash(args: object) -> int:
    raise ZeroDivisionError("injected fault for the test")


def test_the_codes_are_distinct_and_fixed() -> None:
    assert [int(c) for c in ExitCode] == [0, 1, 2, 70, 130]


def test_ok_problems_and_unusable_input(blank_project: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(blank_project)]) == ExitCode.OK
    replace_in(blank_project, "subtasks/T01/rubric.yaml", "weight: 5", "weight: 42")
    assert main(["validate", str(blank_project)]) == ExitCode.PROBLEMS
    assert main(["validate", str(tmp_path / "nowhere")]) == ExitCode.UNUSABLE
    assert "no such folder" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["no-such-command"], ["validate"], ["validate", ".", "--format", "xml"],
                                  ["score", "t.csv", "--bootstrap", "3"]])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == ExitCode.UNUSABLE
    assert "usage: dbstudio" in capsys.readouterr().err


def test_a_studio_error_is_a_message_with_exit_2(monkeypatch: pytest.MonkeyPatch, log_dir: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    class RefusedError(StudioError):
        pass

    def refuse(args: object) -> int:
        raise RefusedError("the project is locked by another window: close it first")

    monkeypatch.setattr(validate_cmd, "run", refuse)
    assert main(["validate", "somewhere"]) == ExitCode.UNUSABLE
    captured = capsys.readouterr()
    assert captured.err == "dbstudio validate: the project is locked by another window: close it first\n"
    assert captured.out == "" and not log_dir.exists()


def test_a_bug_gets_exit_70_a_short_report_and_a_log(monkeypatch: pytest.MonkeyPatch, log_dir: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(validate_cmd, "run", crash)
    assert main(["validate", "some folder"]) == ExitCode.INTERNAL
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.out == ""
    assert "dbstudio validate: internal error" in captured.err and "bug" in captured.err
    assert "ZeroDivisionError: injected fault for the test" in captured.err
    (log,) = log_dir.glob("crash-*.log")
    assert str(log) in captured.err
    text = log.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and 'raise ZeroDivisionError("injected fault' in text
    assert "command: dbstudio validate 'some folder'" in text
    assert oct(log.stat().st_mode & 0o777) == oct(0o600)


def test_a_crash_in_review_is_not_findings(monkeypatch: pytest.MonkeyPatch, log_dir: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    def broken_review(path: str) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(review_cmd, "review_project", broken_review)
    assert main(["review", str(SAMPLE)]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "RecursionError" in err and "Traceback" not in err
    assert len(list(log_dir.glob("crash-*.log"))) == 1


def test_log_folder_follows_xdg_state_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(LOG_DIR_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert log_folder() == tmp_path / "state" / "dbstudio"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")  # ignored, as the XDG spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert log_folder() == tmp_path / "home" / ".local" / "state" / "dbstudio"


def test_unwritable_log_folder_falls_back_to_the_temp_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(LOG_DIR_VARIABLE, str(blocker / "logs"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(validate_cmd, "run", crash)
    assert main(["validate", "x"]) == ExitCode.INTERNAL
    (log,) = (tmp_path / "tmp" / "dbstudio").glob("crash-*.log")
    assert str(log) in capsys.readouterr().err


def test_no_writable_folder_still_exits_70_without_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(LOG_DIR_VARIABLE, str(blocker / "logs"))
    monkeypatch.setattr(tempfile, "tempdir", str(blocker / "tmp"))
    monkeypatch.setattr(validate_cmd, "run", crash)
    assert main(["validate", "x"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "No crash log could be written" in err and LOG_DIR_VARIABLE in err and "Traceback" not in err


def test_old_crash_logs_are_pruned(monkeypatch: pytest.MonkeyPatch, log_dir: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    log_dir.mkdir()
    for i in range(25):
        (log_dir / f"crash-20200101-0000{i:02d}-1.log").write_text("old")
    (log_dir / "notes.txt").write_text("not ours")
    monkeypatch.setattr(validate_cmd, "run", crash)
    assert main(["validate", "x"]) == ExitCode.INTERNAL
    logs = sorted(log_dir.glob("crash-*.log"))
    assert len(logs) == 20 and "crash-20200101" not in logs[-1].name  # the new one is kept
    assert (log_dir / "notes.txt").exists()


def test_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(validate_cmd, "run", interrupted)
    assert main(["validate", "x"]) == ExitCode.INTERRUPTED
    assert capsys.readouterr().err == "dbstudio: interrupted\n"


# A real process: the same fault, patched in before the entry point runs as it does from a shell.
FAULTY = """
import runpy, sys
import studio.cli.validate_cmd as validate_cmd
def run(args):
    return {}["no such key"]
validate_cmd.run = run
sys.argv[0] = "dbstudio"
runpy.run_module("studio.cli.main", run_name="__main__", alter_sys=True)
"""


def test_internal_error_in_a_real_process(tmp_path: Path) -> None:
    env = {**os.environ, LOG_DIR_VARIABLE: str(tmp_path / "logs")}
    proc = subprocess.run([sys.executable, "-c", FAULTY, "validate", str(SAMPLE)], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 70
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("dbstudio validate: internal error") and "KeyError: 'no such key'" in proc.stderr
    (log,) = (tmp_path / "logs").glob("crash-*.log")
    assert str(log) in proc.stderr and "Traceback" in log.read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["score", "agreement"])
def test_a_missing_or_folder_table_is_unusable_input(command: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, str(tmp_path / "absent.csv")])
    assert exit_.value.code == ExitCode.UNUSABLE
    assert f"{tmp_path / 'absent.csv'}: no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main([command, str(tmp_path)])
    assert exit_.value.code == ExitCode.UNUSABLE
    assert "is a folder: give the CSV or xlsx file" in capsys.readouterr().err


@pytest.mark.parametrize("command, header", [("score", "system,project\n"), ("agreement", "criterion,item\n")])
def test_a_table_with_problems_exits_1_and_computes_nothing(command: str, header: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "t.csv"
    table.write_text(header + "a,b\n", encoding="utf-8")
    assert main([command, str(table)]) == ExitCode.PROBLEMS
    out, err = capsys.readouterr()
    assert out == "" and "header lacks column(s)" in err and "nothing was" in err


def test_schemas_out_a_file_is_unusable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "schemas.json"
    target.write_text("{}")
    assert main(["schemas", "--out", str(target)]) == ExitCode.UNUSABLE
    assert "is a file, not a folder" in capsys.readouterr().err and target.read_text() == "{}"


def test_a_failing_crash_report_still_exits_70(monkeypatch: pytest.MonkeyPatch, log_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import studio.cli.crash as crash_module

    def broken_log(*args: object) -> Path:
        raise UnicodeEncodeError("ascii", "é", 0, 1, "cannot encode")

    monkeypatch.setattr(crash_module, "write_crash_log", broken_log)
    monkeypatch.setattr(validate_cmd, "run", crash)
    assert main(["validate", "x"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert err == "dbstudio validate: internal error (a bug): ZeroDivisionError\n"
