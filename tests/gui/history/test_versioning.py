"""The versioning panel on a real git repository: history of the project, of a file and of a
subtask; the field-by-field diff; restore as one undoable edit; commit with a message."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit, QTableView

from studio.editing.fields import set_field
from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.history.versioning import VersioningPanel
from studio.store.workspace import sample_project
from tests.helpers import git, replace_in

SUBTASK = "subtasks/T03/subtask.yaml"
RUBRIC = "subtasks/T03/rubric.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The sample in a repository of its own: the first commit as shipped, the second changes
    T03's time limit and a weight of its rubric, the third only T05."""
    root = tmp_path / "kestrel"
    shutil.copytree(sample_project(), root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "First version")
    replace_in(root, SUBTASK, "time_limit_minutes: 180", "time_limit_minutes: 200")
    replace_in(root, RUBRIC, "    weight: 5\n", "    weight: 6\n")
    git(root, "commit", "-q", "-am", "T03: more time, heavier criterion")
    replace_in(root, "subtasks/T05/subtask.yaml", "title: ", "title: Revised ")
    git(root, "commit", "-q", "-am", "T05: retitled")
    return root


@pytest.fixture
def panel(qtbot, project: Path) -> VersioningPanel:
    context = ProjectContext(ProjectSession(project))
    runner = TaskRunner()
    widget = VersioningPanel(context, runner)
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.show()
    yield widget
    runner.wait()


def _history(panel: VersioningPanel) -> QTableView:
    return panel.findChild(QTableView, "historyView")


def _wait_rows(qtbot, panel: VersioningPanel, count: int) -> None:
    qtbot.waitUntil(lambda: _history(panel).model().rowCount() == count, timeout=10000)


def _messages(panel: VersioningPanel) -> list[str]:
    model = _history(panel).model()
    return [model.index(row, 3).data() for row in range(model.rowCount())]


def _select(panel: VersioningPanel, *rows: int) -> None:
    view = _history(panel)
    view.clearSelection()
    for row in rows:
        view.selectionModel().select(view.model().index(row, 0),
                                     QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


def _diff(qtbot, panel: VersioningPanel) -> dict[str, tuple[str, str]]:
    view = panel.findChild(QTableView, "diffView")
    qtbot.waitUntil(lambda: "Comparing" not in panel.diff_label.text(), timeout=10000)
    model = view.model()
    return {model.index(r, 0).data(): (model.index(r, 1).data(), model.index(r, 2).data())
            for r in range(model.rowCount())}


def test_project_history_lists_every_commit(qtbot, panel, qtmodeltester):
    _wait_rows(qtbot, panel, 3)
    assert _messages(panel) == ["T05: retitled", "T03: more time, heavier criterion", "First version"]
    assert len(_history(panel).model().index(0, 0).data()) == 8  # the short sha
    qtmodeltester.check(_history(panel).model())


def test_file_history_and_the_field_diff_between_two_revisions(qtbot, panel, qtmodeltester):
    _wait_rows(qtbot, panel, 3)
    panel.show_file(SUBTASK)
    _wait_rows(qtbot, panel, 2)
    assert _messages(panel) == ["T03: more time, heavier criterion", "First version"]
    _select(panel, 0, 1)
    diff = _diff(qtbot, panel)
    assert diff == {"time_limit_minutes": ("180", "200")}
    qtmodeltester.check(panel.findChild(QTableView, "diffView").model())


def test_subtask_history_has_only_its_changes_and_the_diff_includes_its_rubric(qtbot, panel):
    _wait_rows(qtbot, panel, 3)
    panel.show_object("subtask", "T03")
    _wait_rows(qtbot, panel, 2)
    assert _messages(panel) == ["T03: more time, heavier criterion", "First version"]
    _select(panel, 0, 1)
    diff = _diff(qtbot, panel)
    assert diff["time_limit_minutes"] == ("180", "200")
    weight = [field for field in diff if field.startswith("rubric.") and field.endswith(".weight")]
    assert len(weight) == 1 and diff[weight[0]] == ("5", "6")


def _criterion_weighing_six(project: Path) -> str:
    """The id of the criterion whose weight the fixture's last commit set to 6."""
    text = (project / RUBRIC).read_text(encoding="utf-8")
    before_weight = text[: text.index("weight: 6\n")]
    return before_weight[before_weight.rindex("- id: ") + 6:].split("\n", 1)[0].strip()


def test_criterion_history_lists_the_revisions_where_it_changed(qtbot, panel, project):
    criterion = _criterion_weighing_six(project)
    _wait_rows(qtbot, panel, 3)
    panel.show_object("criterion", criterion)
    _wait_rows(qtbot, panel, 2)
    _select(panel, 1)  # the first version against the working copy
    assert _diff(qtbot, panel) == {"weight": ("5", "6")}


def test_restore_is_one_undo_step_and_undo_gives_back_the_current_bytes(qtbot, panel, project):
    current = (project / SUBTASK).read_bytes()
    panel.show_file(SUBTASK)
    _wait_rows(qtbot, panel, 2)
    _select(panel, 1)
    assert panel.action_restore.isEnabled()
    panel.action_restore.trigger()
    context = panel.context
    qtbot.waitUntil(lambda: context.undo_stack.count() == 1, timeout=10000)
    documents = context.session.documents
    assert documents.read_bytes(SUBTASK) == git(project, "show", f"HEAD~2:{SUBTASK}").encode("utf-8")
    assert context.session.loaded.project.subtasks["T03"].time_limit_minutes == 180
    assert (project / SUBTASK).read_bytes() == current  # nothing written until saved
    context.undo_stack.undo()
    assert documents.read_bytes(SUBTASK) == current
    assert context.session.loaded.project.subtasks["T03"].time_limit_minutes == 200


def test_commit_saves_and_records_a_revision(qtbot, panel, project):
    _wait_rows(qtbot, panel, 3)
    context = panel.context
    context.push(set_field(context.session.documents, "subtask", "T03", "title", "Diligence summary"))
    message = panel.findChild(QLineEdit, "commitMessage")
    message.setFocus()
    QTest.keyClicks(message, "T03: shorter title")
    panel.action_commit.trigger()
    _wait_rows(qtbot, panel, 4)
    assert _messages(panel)[0] == "T03: shorter title"
    assert git(project, "log", "-1", "--format=%s").strip() == "T03: shorter title"
    assert "title: Diligence summary\n" in git(project, "show", f"HEAD:{SUBTASK}")
    assert git(project, "status", "--porcelain").strip() == ""
    assert context.undo_stack.isClean()
    assert "Committed" in panel.status.text()


def test_commit_without_a_message_is_refused(qtbot, panel, project):
    _wait_rows(qtbot, panel, 3)
    panel.action_commit.trigger()
    assert "message" in panel.status.text()
    assert git(project, "rev-list", "--count", "HEAD").strip() == "3"


def test_restoring_a_criterion_changes_only_its_entry(qtbot, panel, project):
    text = (project / RUBRIC).read_text(encoding="utf-8")
    criterion = _criterion_weighing_six(project)
    _wait_rows(qtbot, panel, 3)
    panel.show_object("criterion", criterion)
    _wait_rows(qtbot, panel, 2)
    _select(panel, 1)
    panel.action_restore.trigger()
    context = panel.context
    qtbot.waitUntil(lambda: context.undo_stack.count() == 1, timeout=10000)
    restored = context.session.documents.text(RUBRIC)
    assert restored == text.replace("    weight: 6\n", "    weight: 5\n")
    context.undo_stack.undo()
    assert context.session.documents.text(RUBRIC) == text


def test_the_working_copy_includes_unsaved_edits(qtbot, panel):
    _wait_rows(qtbot, panel, 3)
    context = panel.context
    context.push(set_field(context.session.documents, "material", "M12", "title", "Restatement email"))
    _select(panel, 0)  # the last commit against the working copy, before any save
    diff = _diff(qtbot, panel)
    assert diff == {"materials.yaml: materials.M12.title": ("CFO email restating FY2025 EBITDA", "Restatement email")}


def _cli_history(capsys, project: Path, object_id: str) -> list[str]:
    import json

    from studio.cli.main import main

    capsys.readouterr()
    assert main(["history", str(project), "--object", object_id, "--format", "json"]) == 0
    return [entry["sha"] for entry in json.loads(capsys.readouterr().out)]


@pytest.mark.parametrize("kind", ["subtask", "criterion"])
def test_dbstudio_history_object_lists_what_the_panel_lists(qtbot, panel, project, capsys, kind):
    object_id = "T03" if kind == "subtask" else _criterion_weighing_six(project)
    _wait_rows(qtbot, panel, 3)
    panel.show_object(kind, object_id)
    _wait_rows(qtbot, panel, 2)
    shown = [panel.history_model.entry(row).sha for row in range(2)]
    listed = _cli_history(capsys, project, object_id)
    # the T03 commit and the first version; not the T05 one (it touched neither)
    assert listed == shown
    assert [git(project, "log", "-1", "--format=%s", sha).strip() for sha in listed] == [
        "T03: more time, heavier criterion", "First version"]


def test_dbstudio_history_object_refuses_what_is_no_subtask_or_criterion(project, capsys):
    from studio.cli.main import main

    assert main(["history", str(project), "--object", "NOPE-C99"]) == 2
    assert "no subtask or criterion 'NOPE-C99'" in capsys.readouterr().err
    assert main(["history", str(project), "--object", "../T03"]) == 2
    assert "is not a subtask or criterion id" in capsys.readouterr().err
