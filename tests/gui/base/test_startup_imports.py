"""The window is drawn before the project core is imported (docs/gui.md, start-up): a fresh Python
shows a MainWindow offscreen, and only then, on opening a project, do the models, the loader, the
review and the YAML and spreadsheet libraries load, and git once the project is shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from studio.store.workspace import sample_project

ROOT = Path(__file__).resolve().parents[3]  # the checkout: tests/gui/base/ is three below it
PROJECT_CORE = ("pydantic", "git", "ruamel", "openpyxl", "numpy", "matplotlib", "studio.store.loader", "studio.review")
# Not needed to draw the first window (difflib comes with the project core), nor, the first three,
# to show the project: each loads on first use.
LATER = ("studio.gui.judging.judge_dialog", "subprocess", "studio.store.git_state", "difflib")

CHILD = """
import json, sys, tempfile
from PySide6.QtCore import QSettings
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

QSettings.setDefaultFormat(QSettings.Format.IniFormat)
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
app = QApplication(sys.argv[:1])
from studio.gui.main_window import MainWindow

core = json.loads(sys.argv[1])
later = json.loads(sys.argv[3])
window = MainWindow()
window.show()
exposed = QTest.qWaitForWindowExposed(window)
app.processEvents()
shown = {"exposed": exposed, "title": window.windowTitle(), "loaded": [name for name in core if name in sys.modules],
         "later": [name for name in later if name in sys.modules]}
opened = []
at_opened = []
frozen = []
def on_opened(folder):
    import gc
    opened.append(folder)
    at_opened.extend(name for name in core + later if name in sys.modules)
    frozen.append(gc.get_freeze_count())
window.project_opened.connect(on_opened)
window.open_project(sys.argv[2])
busy = window.status.busy_label.text()
for _ in range(2000):
    if opened and window.status.git_label.text():
        break
    QTest.qWait(10)
import builtins
print(json.dumps({"hook_dropped": builtins.__import__ is builtins.__orig_import__, "shown": shown, "busy": busy, "opened": opened, "title": window.windowTitle(),
                  "at_opened": at_opened, "frozen": frozen, "git": window.status.git_label.text(),
                  "loaded": [name for name in core if name in sys.modules]}))
"""


def run_child(tmp_path: Path) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "DBSTUDIO_WORKSPACE": str(tmp_path / "workspace")}
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(PROJECT_CORE), str(sample_project()),
                           json.dumps(LATER)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_window_is_shown_before_the_project_core_is_imported(tmp_path: Path):
    report = run_child(tmp_path)
    shown = report["shown"]
    assert shown["exposed"] is True
    assert shown["title"] == "DeliverBench Studio"
    assert shown["loaded"] == []
    # Opening the project is what imports the core (on the TaskRunner): the check above can fail.
    assert report["busy"] == f"Opening {sample_project().name}…"
    assert report["opened"] == [str(sample_project())]
    assert report["title"].startswith("Kestrel Freight Group")
    # The project is shown and editable without GitPython; the repository's state follows.
    assert {"pydantic", "ruamel", "studio.store.loader"} <= set(report["at_opened"])
    assert "git" not in report["at_opened"]
    assert report["git"].startswith("git: ") and "git" in report["loaded"]


def test_what_is_first_used_later_is_imported_neither_for_the_window_nor_for_the_project(tmp_path: Path):
    report = run_child(tmp_path)
    assert report["shown"]["later"] == []
    assert report["opened"] == [str(sample_project())]
    assert not set(LATER[:3]) & set(report["at_opened"])


HOOK_CHILD = """
import builtins, json, sys
import studio.gui.app  # as `dbstudio gui` does: the app's package before Qt
before = builtins.__import__ is builtins.__orig_import__ if hasattr(builtins, "__orig_import__") else None
from PySide6.QtWidgets import QApplication
hooked = builtins.__import__ is not builtins.__orig_import__
from studio.gui.base.feature_hook import drop_feature_import_hook
dropped = drop_feature_import_hook()
import colorsys  # a module nothing has imported yet
feature = sys.modules["shibokensupport.feature"]
print(json.dumps({"before": before, "hooked": hooked, "dropped": dropped, "again": drop_feature_import_hook(),
                  "restored": builtins.__import__ is builtins.__orig_import__,
                  "read": "colorsys" in feature.pyside_feature_dict}))
"""


def test_pysides_feature_import_hook_is_dropped_once_qt_is_loaded(tmp_path: Path):
    """PySide's hook read the source of every module imported after Qt (about 0.4 ms each, some
    100 ms of the start-up's CPU); the app selects no PySide feature, so run_app drops it."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", HOOK_CHILD], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"before": None, "hooked": True, "dropped": True, "again": False, "restored": True,
                      "read": False}


def test_the_window_imported_after_qt_drops_the_hook_itself(tmp_path: Path):
    report = run_child(tmp_path)
    assert report["hook_dropped"] is True


def test_the_project_cores_modules_are_set_aside_from_the_collector_once_imported(tmp_path: Path):
    """The UI thread's collector walked the objects of the core's modules (pydantic's schemas, the
    models) while the project loaded, and again later: 60-120 ms on the way to an interactive
    window (bench/gui_bench.py). Imported once, they are frozen out of its walks."""
    report = run_child(tmp_path)
    assert report["opened"] == [str(sample_project())]
    assert report["frozen"][0] > 10_000


def test_a_workspace_that_cannot_hold_the_sample_is_a_message_and_exit_code_2(qapp, tmp_path: Path,
                                                                              monkeypatch) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from studio.gui.app import run_app

    # The sample is copied on the TaskRunner after the window is drawn; a refusal still ends the app.
    (tmp_path / "not-a-folder").write_text("a file where the workspace should be")
    monkeypatch.setenv("DBSTUDIO_WORKSPACE", str(tmp_path / "not-a-folder"))
    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)  # run_app sets it (restored after the test)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # run_app installs the crash hook
    messages: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda _parent, _title, text: messages.append(text))
    deadline = QTimer()  # an app that never ends fails here instead of hanging
    deadline.setSingleShot(True)
    deadline.timeout.connect(lambda: qapp.exit(99))
    deadline.start(20000)
    try:
        assert run_app(None) == 2
    finally:
        deadline.stop()
    assert len(messages) == 1 and "not-a-folder" in messages[0] and "was not created" in messages[0]
    # The app looks for no pydantic plugin: the search read every installed distribution's entry points.
    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__"
    for widget in QApplication.topLevelWidgets():
        widget.close()
