"""Crash logs for a native crash (studio.crashlog.enable_native_crash_log): a process that
segfaults on purpose leaves a log naming the crash and where it happened; a run that ends well,
or was killed without crashing, leaves none."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(code: str, logs: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DBSTUDIO_LOG_DIR": str(logs), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def native_logs(logs: Path) -> list[Path]:
    return sorted(logs.glob("crash-*-native.log"))


def test_a_segmentation_fault_is_written_to_a_crash_log_in_the_crash_log_folder(tmp_path: Path):
    result = run("from studio.crashlog import enable_native_crash_log\n"
                 "import ctypes\n"
                 "print(enable_native_crash_log('dbstudio gui'), flush=True)\n"
                 "ctypes.string_at(0)  # a native crash on purpose\n", tmp_path)
    assert result.returncode == -signal.SIGSEGV
    [log] = native_logs(tmp_path)
    assert result.stdout.strip() == str(log)
    text = log.read_text(encoding="utf-8")
    assert f"native crash log of process {result.stdout.strip().rsplit('-', 2)[-2]}" in text
    assert "command: dbstudio gui" in text
    assert "Fatal Python error: Segmentation fault" in text
    assert "in string_at" in text and 'File "<string>", line 4' in text
    assert oct(log.stat().st_mode & 0o777) == oct(0o600)  # stacks can quote the user's paths


def test_a_normal_exit_leaves_no_log_and_a_killed_run_s_empty_log_goes_at_the_next_start(tmp_path: Path):
    assert run("from studio.crashlog import enable_native_crash_log\nenable_native_crash_log()\n",
               tmp_path).returncode == 0
    assert native_logs(tmp_path) == []
    # A run killed with SIGKILL (no exit handler) leaves its log with the header only.
    killed = subprocess.Popen([sys.executable, "-c", "from studio.crashlog import enable_native_crash_log\n"
                               "import sys\nprint(enable_native_crash_log(), flush=True)\nsys.stdin.read()\n"],
                              env={**os.environ, "DBSTUDIO_LOG_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)},
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert killed.stdout is not None
    left = Path(killed.stdout.readline().strip())
    killed.kill()
    killed.wait(timeout=60)
    assert left.is_file()
    crashed = run("from studio.crashlog import enable_native_crash_log\nimport ctypes\n"
                  "enable_native_crash_log()\nctypes.string_at(0)\n", tmp_path)
    assert crashed.returncode == -signal.SIGSEGV
    assert not left.exists()  # crash-free, its process gone: removed
    [kept] = native_logs(tmp_path)
    assert run("from studio.crashlog import enable_native_crash_log\nenable_native_crash_log()\n",
               tmp_path).returncode == 0
    assert native_logs(tmp_path) == [kept]  # a log with a crash in it is kept


def test_the_crash_log_folder_follows_the_environment(monkeypatch, tmp_path) -> None:
    from studio.crashlog import log_folder

    monkeypatch.setenv("DBSTUDIO_LOG_DIR", str(tmp_path / "logs"))
    assert log_folder() == tmp_path / "logs"
    monkeypatch.delenv("DBSTUDIO_LOG_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert log_folder() == tmp_path / "state" / "dbstudio"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert log_folder() == tmp_path / "home" / ".local" / "state" / "dbstudio"
