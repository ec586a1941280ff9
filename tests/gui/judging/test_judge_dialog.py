"""Judge… in the window, against a real chat-completions server on loopback: the dialog opens with the
focus in its first field, judges a run on the background helper with progress, stops on request
keeping the verdicts received, and the API key is in no file it leaves behind."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu

from studio.gui.judging.judge_dialog import JudgeDialog
from studio.gui.main_window import MainWindow
from studio.judging.verdict_store import VerdictStore
from tests.gui.shell_support import git_identity, idle, open_window, shown_dialog, type_into
from tests.helpers import copy_blank, git
from tests.judging.chat_server import ChatServer, Reply, Request, answer_all
from tests.judging.projects import RUN_ID, make_run

KEY = "sk-judge-gui-secret-4b1e8d0a"
JUDGE = "judge:local-judge"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    git_identity(monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    root = copy_blank(tmp_path / "project")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "project")
    make_run(root, tmp_path)
    return root


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def _open_dialog(qtbot, window: MainWindow, server: ChatServer) -> JudgeDialog:
    action = window.findChild(QAction, "judgeAction")
    assert action is not None and action.isEnabled()
    assert action in window.findChild(QMenu, "menuJudging").actions()
    action.trigger()
    dialog = shown_dialog(qtbot, "judgeDialog")
    assert isinstance(dialog, JudgeDialog)
    assert QApplication.focusWidget() is dialog.run_box  # the focus in the first field
    qtbot.waitUntil(lambda: dialog.judge_button.isEnabled(), timeout=20000)
    assert dialog.run_box.currentText() == RUN_ID
    type_into(dialog.endpoint_edit, server.url)
    type_into(dialog.model_edit, "local-judge")
    return dialog


def _files_holding(folder: Path, text: str) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file() and text.encode() in path.read_bytes()]


def test_a_run_is_judged_from_the_window_with_progress(qtbot, project: Path, tmp_path: Path,
                                                      server: ChatServer) -> None:
    window = open_window(qtbot, project)
    dialog = _open_dialog(qtbot, window, server)
    reports: list[tuple[int, int | None]] = []
    dialog.judge_button.click()
    assert dialog.task is not None and not dialog.judge_button.isEnabled() and dialog.stop_button.isEnabled()
    dialog.task.on_progress = lambda report, show=dialog.task.on_progress: (reports.append(
        (report.done, report.total)), show(report))
    with qtbot.waitSignal(dialog.judged, timeout=30000) as judged:
        pass
    summary = judged.args[0].summary
    assert (summary.judged, summary.missing, summary.cancelled) == (9, 0, False)
    assert dialog.status.text().startswith("Done: judged 9, reused 0, missing 0")
    assert reports and reports[-1] == (4, 4)  # the final rubric's 4 criteria, last
    assert (dialog.bar.value(), dialog.bar.maximum()) == (4, 4)
    verdicts = VerdictStore(project).read(RUN_ID, JUDGE)
    assert sorted({v.scope for v in verdicts}) == ["T01", "T02", "final"] and len(verdicts) == 9
    assert all(request.headers["authorization"] == f"Bearer {KEY}" for request in server.requests)
    idle(qtbot, window)
    assert _files_holding(project, KEY) == [] and _files_holding(tmp_path / "qsettings", KEY) == []


def test_stop_keeps_the_verdicts_received_and_judges_no_further(qtbot, project: Path) -> None:
    arrived, release = threading.Event(), threading.Event()

    def held(request: Request) -> Reply:  # the first request waits until the test has pressed Stop
        arrived.set()
        release.wait(10)
        return answer_all(request)

    with ChatServer(held) as server:
        window = open_window(qtbot, project)
        dialog = _open_dialog(qtbot, window, server)
        dialog.judge_button.click()
        qtbot.waitUntil(arrived.is_set, timeout=20000)
        dialog.stop_button.click()
        assert dialog.task is not None and dialog.task.stopping
        release.set()
        with qtbot.waitSignal(dialog.judged, timeout=30000) as judged:
            pass
    summary = judged.args[0].summary
    assert summary.cancelled and summary.judged == 1
    assert dialog.status.text().startswith("Stopped: judged 1")
    assert len(server.requests) == 1
    assert [(v.scope, v.criterion) for v in VerdictStore(project).read(RUN_ID, JUDGE)] == [("T01", "T01-C01")]
    assert dialog.judge_button.isEnabled() and not dialog.stop_button.isEnabled()


def test_a_profile_picked_in_the_dialog_is_what_the_requests_send(qtbot, project: Path) -> None:
    from studio.judging.profiles import PRESETS
    from tests.judging.chat_server import API_OF_PRESET

    # the project pins its own judge: OpenAI's reasoning preset at medium effort
    (project / "judging" / "profiles").mkdir(parents=True)
    (project / "judging" / "profiles" / "pinned.yaml").write_text(
        "preset: openai-reasoning\nreasoning_effort: medium\n", encoding="utf-8")
    rules = API_OF_PRESET["openai-reasoning"]  # refuses temperature and max_tokens, as OpenAI documents
    with ChatServer(rules.reply) as server:
        window = open_window(qtbot, project)
        dialog = _open_dialog(qtbot, window, server)
        box = dialog.profile_box
        names = [box.itemData(i) for i in range(box.count())]
        assert names == [None, "pinned", *PRESETS]  # none, the project's, then every preset
        box.setCurrentIndex(box.findData("pinned"))
        assert dialog.model_edit.text() == "gpt-5-mini"
        assert dialog.endpoint_edit.text() == "https://api.openai.com/v1"
        summary = dialog.profile_summary.text()
        assert "no temperature" in summary and "reasoning effort medium" in summary
        assert "max_completion_tokens 32,000" in summary and "(profile pinned)" in summary
        label = dialog.profile_summary  # the wrapped summary shows whole: the dialog grew to hold it
        assert label.height() >= label.heightForWidth(label.width())
        type_into(dialog.endpoint_edit, server.url)  # the field goes over the profile, as --endpoint does
        dialog.endpoint_edit.textEdited.emit(server.url)
        assert server.url in dialog.profile_summary.text()
        dialog.judge_button.click()
        with qtbot.waitSignal(dialog.judged, timeout=30000) as judged:
            pass
    summary_of_run = judged.args[0].summary
    assert (summary_of_run.judged, summary_of_run.missing, summary_of_run.refusals) == (9, 0, [])
    body = server.requests[0].body
    assert "temperature" not in body and "max_tokens" not in body
    assert body["reasoning_effort"] == "medium" and body["max_completion_tokens"] == 32000
    # the rater is the model that answered; the tokens spent are shown
    assert summary_of_run.raters == ["judge:gpt-5-mini-2025-08-07"]
    costs = summary_of_run.costs
    assert costs.prompt_tokens > 0 and f"Spent {costs.prompt_tokens:,} prompt tokens" in dialog.status.text()


def test_a_profile_file_that_does_not_read_is_named_in_the_dialog(qtbot, project: Path, server: ChatServer) -> None:
    (project / "judging" / "profiles").mkdir(parents=True)
    (project / "judging" / "profiles" / "broken.yaml").write_text("model: m\nbatch: -2\n", encoding="utf-8")
    window = open_window(qtbot, project)
    dialog = _open_dialog(qtbot, window, server)
    dialog.profile_box.setCurrentIndex(dialog.profile_box.findData("broken"))
    assert "broken.yaml:2" in dialog.profile_summary.text()
    dialog.judge_button.click()
    assert dialog.task is None and "broken.yaml:2" in dialog.status.text()
    assert QApplication.focusWidget() is dialog.profile_box


def test_judge_run_in_the_runs_panel_opens_judge_on_that_run(qtbot, project: Path) -> None:
    import json
    import shutil

    from studio.gui.runs.panel import RunsPanel

    other = "20261129-090000-0f0f0f"  # a second run of the project, so that the choice is the panel's
    shutil.copytree(project / "runs" / RUN_ID, project / "runs" / other, symlinks=True)
    record = json.loads((project / "runs" / other / "run.json").read_text(encoding="utf-8"))
    record["run_id"] = other
    (project / "runs" / other / "run.json").write_text(json.dumps(record), encoding="utf-8")
    window = open_window(qtbot, project)
    panel = window.findChild(RunsPanel, "runsPanel")
    qtbot.waitUntil(lambda: panel.runs_model.rowCount() == 2, timeout=20000)
    action = window.findChild(QAction, "runJudgeAction")
    assert action is not None and action in window.findChild(QMenu, "menuRuns").actions()
    for run_id in (RUN_ID, other):
        panel.select_run(run_id)
        assert action.isEnabled()
        action.trigger()  # the runs feature asks through the project context; the judging feature answers
        dialog = shown_dialog(qtbot, "judgeDialog")
        assert isinstance(dialog, JudgeDialog) and dialog.chosen_run == run_id
        qtbot.waitUntil(lambda dialog=dialog: dialog.judge_button.isEnabled(), timeout=20000)
        assert dialog.run_box.count() == 2 and dialog.run_box.currentText() == run_id
        dialog.reject()
        qtbot.waitUntil(lambda: not any(w.objectName() == "judgeDialog" and w.isVisible()
                                        for w in QApplication.topLevelWidgets()), timeout=5000)
