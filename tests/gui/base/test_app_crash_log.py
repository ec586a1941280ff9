"""The app enables the native crash log at start (studio/gui/app.py): a segmentation fault in the
running app, which no crash dialog can catch, still leaves a log in the crash-log folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from studio.store.workspace import create_project
from tests.helpers import SCAFFOLD

ROOT = Path(__file__).resolve().parents[3]
CRASHING_APP = """
import ctypes, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from studio.gui.app import run_app
QTimer.singleShot(0, lambda: ctypes.string_at(0))  # once the window runs: a native crash on purpose
sys.exit(run_app(sys.argv[1]))
"""


def test_a_native_crash_of_the_running_app_is_logged(tmp_path: Path):
    project = tmp_path / "audit"
    create_project(project, "audit", "Revenue audit", template=SCAFFOLD)
    logs = tmp_path / "logs"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT), "DBSTUDIO_LOG_DIR": str(logs),
           "DBSTUDIO_WORKSPACE": str(tmp_path / "workspace"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    result = subprocess.run([sys.executable, "-c", CRASHING_APP, str(project)], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == -signal.SIGSEGV, result.stderr[-3000:]
    [log] = logs.glob("crash-*-native.log")
    text = log.read_text(encoding="utf-8")
    assert f"command: dbstudio gui {project}" in text
    assert "Fatal Python error: Segmentation fault" in text and "in string_at" in text
    assert "in run_app" in text  # the stack shows it happened inside the running app
