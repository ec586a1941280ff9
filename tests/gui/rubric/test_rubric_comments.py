"""The rubric editor's Comments panel: the threads on the selected criterion, opened, answered and
resolved through the project context, written to comments/ as `dbstudio comment` writes them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLineEdit, QPushButton, QTableView

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.rubric.comments_panel import CommentsPanel
from studio.gui.rubric.editor import RubricEditor
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from tests.helpers import git


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Ann Auditor")
    git(root, "config", "user.email", "ann@example.com")
    return root


@pytest.fixture
def editor(sample: Path, qtbot) -> RubricEditor:
    widget = RubricEditor(ProjectContext(ProjectSession(sample)))
    qtbot.addWidget(widget)
    widget.resize(1400, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _panel(editor: RubricEditor) -> CommentsPanel:
    return editor.findChild(CommentsPanel, "commentsPanel")


def test_a_thread_opened_answered_and_resolved_from_the_panel(editor, sample, qtbot, qtmodeltester):
    editor.select_criterion("T03-C01")
    panel = _panel(editor)
    assert panel.target == "T03-C01"
    text = panel.findChild(QLineEdit, "commentText")
    add, reply, resolve = (panel.findChild(QPushButton, name) for name in ("commentAdd", "commentReply", "commentResolve"))
    assert not add.isEnabled()  # no text yet
    text.setText("factual support?")
    with qtbot.waitSignal(editor.context.comments_changed) as opened:
        add.click()
    assert opened.args == ["T03-C01"]
    threads = panel.findChild(QTableView, "commentThreads")
    assert threads.model().rowCount() == 1 and text.text() == ""
    text.setText("the term sheet, p. 3")
    assert reply.isEnabled()  # the new thread is selected
    reply.click()
    resolve.click()
    qtmodeltester.check(threads.model())

    (thread,) = load_project(sample).project.comments.values()  # on disk, as the CLI reads it
    assert thread.target == "T03-C01" and thread.resolved_by == "Ann Auditor"
    assert [m.text for m in thread.messages] == ["factual support?", "the term sheet, p. 3"]
    model = threads.model()
    assert [model.index(row, 3).data() for row in range(model.rowCount())] == [
        "factual support?", "the term sheet, p. 3"]
    assert "resolved by Ann Auditor" in model.index(0, 0).data()
    assert resolve.text() == "Reopen"

    editor.select_criterion("T03-C02")
    assert panel.target == "T03-C02" and model.rowCount() == 0  # another criterion's threads
    editor.select_criterion("T03-C01")
    assert model.rowCount() == 2


def test_a_refusal_is_shown_and_nothing_is_written(editor, sample, monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(sample / "no-config"))
    git(sample, "config", "--unset", "user.name")
    git(sample, "config", "--unset", "user.email")
    editor.select_criterion("T01-C01")
    panel = _panel(editor)
    panel.findChild(QLineEdit, "commentText").setText("who am I?")
    panel.findChild(QPushButton, "commentAdd").click()
    assert "git config" in panel.message.text()
    assert not (sample / "comments").exists()
