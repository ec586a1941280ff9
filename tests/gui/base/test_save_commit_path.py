"""One save/commit path (the project context's) for the File menu and the Versions panel: the app's
own commit is never reported as an outside edit, a file that does not load is refused with the
message `dbstudio save` gives, and verdicts stored from the app are committed with the project."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from studio.editing.fields import set_field
from studio.gui.main_window import MainWindow
from studio.gui.widgets.dialogs import CommitDialog
from studio.judging.queue import ReviewQueue
from studio.validation.save_check import refusal
from tests.gui.shell_support import git, git_identity, idle, open_window, sample_copy
from tests.judging.review_project import review_project

REFUSAL = refusal(["stages.yaml"])


def _commit_from_panel(qtbot, window: MainWindow, message: str) -> None:
    panel = window.versioning
    assert panel is not None
    panel.commit_message.setText(message)
    panel.action_commit.trigger()
    idle(qtbot, window)


def _commit_from_menu(qtbot, window: MainWindow, message: str) -> None:
    window.action_commit.trigger()
    dialog = window.findChild(CommitDialog)
    dialog.message_edit.setPlainText(message)
    dialog.accept()
    idle(qtbot, window)


def _error_text(qtbot, window: MainWindow) -> str:
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "errorMessage") is not None, timeout=5000)
    return window.findChild(QMessageBox, "errorMessage").text()


def test_a_commit_from_the_versions_panel_is_not_reported_as_changed_on_disk(qtbot, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    context = window.context
    reported: list[list[str]] = []
    window.watcher.files_changed.connect(reported.append)
    context.push(set_field(context.session.documents, "stage", "S2", "title", "Structure"))
    _commit_from_panel(qtbot, window, "S2: retitled")  # returns when the background commit is done
    assert git(root, "log", "-1", "--format=%s").strip() == "S2: retitled"
    assert "stages.yaml" in git(root, "show", "--name-only", "--format=", "HEAD")
    assert window.watcher.check() == []  # the app's own write is known
    idle(qtbot, window)
    assert reported == [] and not window.reload_bar.isVisible()
    assert "Committed" in window.versioning.status.text()


@pytest.mark.parametrize("commit", [_commit_from_panel, _commit_from_menu], ids=["versions-panel", "file-menu"])
def test_a_stage_without_a_title_is_refused_with_the_clis_message(qtbot, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch, commit):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    context = window.context
    head = git(root, "rev-parse", "HEAD")
    context.push(set_field(context.session.documents, "stage", "S2", "title", ""))
    commit(qtbot, window, "S2 without a title")
    shown = window.versioning.status.text() if commit is _commit_from_panel else _error_text(qtbot, window)
    assert shown.startswith(REFUSAL)
    assert "stages.yaml:10:12: stage S2: title must not be empty" in shown
    assert "Traceback" not in shown
    assert git(root, "rev-parse", "HEAD") == head  # nothing committed
    assert "stages.yaml" in git(root, "status", "--porcelain")  # saved to disk, not recorded
    # fixed, the next commit records the file
    context.push(set_field(context.session.documents, "stage", "S2", "title", "Structure"))
    with qtbot.waitSignal(context.committed, timeout=20000):
        commit(qtbot, window, "S2: retitled")
    assert "stages.yaml" in git(root, "show", "--name-only", "--format=", "HEAD")


def test_an_expert_verdict_given_in_the_app_is_committed_with_the_project(qtbot, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    git_identity(monkeypatch)
    root = review_project(tmp_path)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "--", ":!verdicts")
    git(root, "commit", "-q", "-m", "First version")
    window = open_window(qtbot, root)
    queue = ReviewQueue.of_project(root)  # as the review view records a verdict
    queue.give(queue.decisions[1], "Marta Lindqvist", "fail")
    assert git(root, "ls-files", "verdicts/") == ""
    with qtbot.waitSignal(window.committed, timeout=20000):
        _commit_from_menu(qtbot, window, "Marta's verdicts")
    tracked = git(root, "ls-files", "verdicts/").split()
    assert any(path.endswith("/marta-lindqvist.yaml") for path in tracked)
    assert git(root, "status", "--porcelain", "--", "verdicts/") == ""
