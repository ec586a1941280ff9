"""The Delete crash of issue 21 (several criteria selected from the first row, Delete: a
segmentation fault). The steps are a pytest-qt test in rubric_delete_scenario.py, run here in a
pytest subprocess: a native crash there fails this test and names the signal, instead of ending
the whole test run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

SCENARIO = Path(__file__).with_name("rubric_delete_scenario.py")
ROOT = Path(__file__).resolve().parents[3]


def test_deleting_criteria_selected_from_the_first_row_neither_crashes_nor_loses_undo():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(SCENARIO)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    crash = f"killed by {signal.Signals(-result.returncode).name}\n" if result.returncode < 0 else ""
    assert result.returncode == 0, crash + result.stdout[-4000:] + result.stderr[-4000:]
    assert "3 passed" in result.stdout
