"""A whole authoring session driven like an expert drives it: actions, dialogs, key clicks, a drop
from the desktop, the rubric table's cell editors; nothing calls into the core while the session
runs. Afterwards the folder, git and a reopened window are read from outside."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QInputDialog,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableView,
    QWidget,
)

from studio.gui.main_window import MainWindow
from studio.gui.rubric.model import COLUMN
from studio.validation.validate import validate_project
from tests.gui.shell_support import (
    back_to,
    child,
    drag_and_drop,
    git,
    git_identity,
    idle,
    open_window,
    press,
    sample_copy,
    shown_dialog,
    type_into,
    visible_rows,
)

STAGES_COMMENT = "# Second stage added in the window; keep this note (written by hand)."
MATERIALS_COMMENT = "  # M01 stays the first record: the brief quotes it (hand-written)."
MESSAGE = "Add the review stage, its memo, the rate sheet and three criteria"


def _trigger(window: MainWindow, name: str) -> None:
    action = child(window, QAction, name)
    assert action.isEnabled(), name
    action.trigger()


def _enter(qtbot, window: MainWindow, field: QWidget) -> None:
    """Enter in a dialog's field: the dialog takes it as OK and closes; the window is active again."""
    dialog = field.window()
    press(field, Qt.Key.Key_Return)
    assert not shiboken6.isValid(dialog) or not dialog.isVisible(), dialog.objectName()  # closed (or deleted)
    back_to(qtbot, window)


def _comment_by_hand(root: Path) -> None:
    """What an expert does in a text editor: a comment line in stages.yaml and materials.yaml."""
    stages = root / "stages.yaml"
    stages.write_text(stages.read_text(encoding="utf-8").replace("stages:\n", f"{STAGES_COMMENT}\nstages:\n", 1),
                      encoding="utf-8")
    materials = root / "materials.yaml"
    materials.write_text(materials.read_text(encoding="utf-8").replace(
        "materials:\n", f"materials:\n{MATERIALS_COMMENT}\n", 1), encoding="utf-8")


def _add_criterion(window: MainWindow, qtbot, text: str) -> QTableView:
    """Insert in the rubric table: a draft criterion whose requirement is open for typing."""
    table = child(window, QTableView, "rubricTable")
    table.setFocus()
    QTest.keyClick(table, Qt.Key.Key_Insert)  # actionAddCriterion
    line = child(table, QLineEdit, "rubricEditor_text")
    assert line is not None and line.isVisible()
    line.selectAll()
    QTest.keyClicks(line, text)
    press(line, Qt.Key.Key_Return)
    assert table.currentIndex().data() == text
    return table


def _set_weight(table: QTableView, weight: str) -> None:
    """From the requirement cell: Right to the weight, F2, type the weight, Enter."""
    QTest.keyClick(table, Qt.Key.Key_Right)
    assert table.currentIndex().column() == COLUMN["weight"]
    QTest.keyClick(table, Qt.Key.Key_F2)
    spin = child(table, QSpinBox, "rubricEditor_weight")
    assert spin is not None
    spin.selectAll()
    QTest.keyClicks(spin, weight)
    press(spin, Qt.Key.Key_Return)
    assert table.currentIndex().data() == weight


def _criteria(window: MainWindow) -> dict[str, tuple[str, str, str, bool]]:
    """(rubric, requirement, weight, gate) of every row the rubric table shows, by id."""
    table = child(window, QTableView, "rubricTable")
    columns = {name: COLUMN[name] for name in ("rubric", "id", "text", "weight")}
    rows = visible_rows(table, columns)
    model = table.model()
    gates = [model.index(r, COLUMN["gate"]).data(Qt.ItemDataRole.CheckStateRole) for r in range(model.rowCount())]
    return {str(row["id"]): (str(row["rubric"]), str(row["text"]), str(row["weight"]),
                             Qt.CheckState(gate) == Qt.CheckState.Checked) for row, gate in zip(rows, gates, strict=True)}


def test_a_whole_authoring_session_through_the_window(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    git_identity(monkeypatch)
    folder = tmp_path / "projects" / "harbor-credit"
    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitActive(window):  # shortcuts reach the active window only
        window.show()
        window.activateWindow()

    # 1. A new project from the template, every field typed.
    _trigger(window, "actionNewProject")
    dialog = shown_dialog(qtbot, "newProjectDialog")
    type_into(child(dialog, QLineEdit, "newProjectTitle"), "Harbor Bank, credit review")
    type_into(child(dialog, QLineEdit, "newProjectId"), "harbor-credit")
    type_into(child(dialog, QLineEdit, "newProjectFolder"), str(folder))
    template = child(dialog, QComboBox, "newProjectTemplate")
    QTest.keyClicks(template, "finance-transaction")
    assert template.currentText() == "finance-transaction"
    with qtbot.waitSignal(window.project_opened, timeout=20000):
        _enter(qtbot, window, template)  # the form's default button: OK
    assert window.windowTitle().startswith("Harbor Bank, credit review")
    idle(qtbot, window)

    # The expert annotates two files in a text editor; the window offers to reload them.
    assert window.watcher is not None and window.context is not None
    with qtbot.waitSignal(window.watcher.files_changed, timeout=10000):
        _comment_by_hand(folder)
    qtbot.waitUntil(lambda: window.reload_bar.isVisible(), timeout=10000)
    with qtbot.waitSignal(window.context.reloaded, timeout=20000):
        QTest.mouseClick(child(window, QPushButton, "reloadButton"), Qt.MouseButton.LeftButton)
    assert not window.reload_bar.isVisible()

    # 2. A stage and two subtasks, through the actions' dialogs (the template has S1-S2, T01-T02
    # and M01-M03: the new ones take the next free ids).
    _trigger(window, "actionAddStage")
    answer = shown_dialog(qtbot, "addStageDialog")
    type_into(child(answer, QLineEdit), "Credit review")
    _enter(qtbot, window, child(answer, QLineEdit))
    assert window.current_object() == ("stage", "S3")
    QTest.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)  # actionAddSubtask
    answer = shown_dialog(qtbot, "addSubtaskDialog")
    type_into(child(answer, QLineEdit), "Rate analysis")
    _enter(qtbot, window, child(answer, QLineEdit))
    assert window.current_object() == ("subtask", "T03")
    _trigger(window, "actionAddSubtask")
    answer = shown_dialog(qtbot, "addSubtaskDialog")
    assert child(window, QInputDialog, "addSubtaskDialog") is answer  # found by name: no closed one lingers
    type_into(child(answer, QLineEdit), "Credit memo")
    _enter(qtbot, window, child(answer, QLineEdit))
    assert window.current_object() == ("subtask", "T04")
    stage = window.explorer_model.find("stage", "S3")
    assert [stage.model().index(r, 0, stage).data() for r in range(stage.model().rowCount(stage))] == [
        "T03  Rate analysis", "T04  Credit memo"]

    # 3. A file dragged from the desktop onto the second subtask; the dialog answered by keyboard.
    sheet = tmp_path / "desktop" / "rate_sheet.csv"
    sheet.parent.mkdir()
    sheet.write_text("date,rate\n2026-04-20,2.31\n2026-04-21,2.29\n", encoding="utf-8")
    target = window.explorer_model.find("subtask", "T04")
    window.explorer.scrollTo(target)
    drop = drag_and_drop(window.explorer.viewport(), window.explorer.visualRect(target).center(), [sheet])
    assert drop.isAccepted()
    dialog = shown_dialog(qtbot, "materialImportDialog")
    type_into(child(dialog, QLineEdit, "materialTitle"), "Daily rate sheet")
    kind = child(dialog, QComboBox, "materialKind")
    QTest.keyClicks(kind, "new")
    assert kind.currentText() == "new evidence"
    release = child(dialog, QComboBox, "materialRelease")
    assert release.currentText().startswith("Before T04")
    _enter(qtbot, window, release)
    assert window.current_object() == ("material", "M04")
    assert window.explorer_model.find("material", "M04").parent().data() == "Before T04"

    # 4. A handoff from the first new subtask's output to the second.
    _trigger(window, "actionAddHandoff")
    dialog = shown_dialog(qtbot, "handoffDialog")
    source = child(dialog, QComboBox, "handoffFrom")
    QTest.keyClicks(source, "T03")
    assert source.currentText() == "T03:outputs/T03.md"
    to = child(dialog, QComboBox, "handoffTo")
    QTest.keyClicks(to, "T04")
    assert to.currentText() == "T04"
    type_into(child(dialog, QLineEdit, "handoffCarries"), "the rates used")
    _enter(qtbot, window, child(dialog, QLineEdit, "handoffCarries"))
    assert window.current_object() == ("handoff", "T03:outputs/T03.md>T04")

    # 5. Three criteria in the rubric table of T03: a weight, a negative weight, a gate.
    QTest.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # actionOpenRubric
    scope = child(window, QComboBox, "rubricScopeFilter")
    assert scope is not None and scope.isVisible()
    QTest.keyClicks(scope, "T03")
    assert scope.currentText() == "T03"
    table = _add_criterion(window, qtbot, "The analysis lists the daily rate of every business day.")
    _set_weight(table, "4")
    table = _add_criterion(window, qtbot, "The analysis uses a rate from after its cut-off date.")
    _set_weight(table, "-3")
    table = _add_criterion(window, qtbot, "The analysis names its source, the rate sheet M04.")
    QTest.keyClick(table, Qt.Key.Key_Right)
    QTest.keyClick(table, Qt.Key.Key_Right)
    assert table.currentIndex().column() == COLUMN["gate"]
    QTest.keyClick(table, Qt.Key.Key_Space)  # the gate's check box
    criteria = _criteria(window)
    assert criteria == {
        "T03-C01": ("T03", "The analysis lists the daily rate of every business day.", "4", False),
        "T03-C02": ("T03", "The analysis uses a rate from after its cut-off date.", "-3", False),
        "T03-C03": ("T03", "The analysis names its source, the rate sheet M04.", "0", True)}

    # 6. Undo and redo with the keyboard: the table follows, step by step.
    undo = (Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    press(window, *undo)  # the gate goes: weight 1 again
    assert _criteria(window)["T03-C03"][2:] == ("1", False)
    press(window, *undo)  # the typed requirement goes
    assert _criteria(window)["T03-C03"][1] == "New requirement: say what must hold."
    press(window, *undo)  # the third criterion goes
    assert "T03-C03" not in _criteria(window)
    for _ in range(3):
        press(window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert _criteria(window) == criteria
    assert window.isWindowModified()

    # 7. Save and commit, the message typed.
    QTest.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = shown_dialog(qtbot, "commitDialog")
    message = child(dialog, QPlainTextEdit, "commitMessage")
    QTest.keyClicks(message, MESSAGE)
    ok = child(dialog, QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    with qtbot.waitSignal(window.committed, timeout=20000):
        QTest.mouseClick(ok, Qt.MouseButton.LeftButton)
    back_to(qtbot, window)
    assert not window.isWindowModified()
    idle(qtbot, window)

    # 8. Close, then open the folder again through File > Open.
    with qtbot.waitSignal(window.project_closed, timeout=10000):
        QTest.keyClick(window, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)  # actionCloseProject
    assert window.context is None and window.explorer_model.rowCount() == 0
    _trigger(window, "actionOpenProject")
    chooser = shown_dialog(qtbot, "openProjectDialog")
    name = child(chooser, QLineEdit, "fileNameEdit")
    type_into(name, str(folder))
    with qtbot.waitSignal(window.project_opened, timeout=20000):
        _enter(qtbot, window, name)
    idle(qtbot, window)

    # From outside the window: the folder validates, git has the commit, the comments are there.
    assert validate_project(folder) == []
    result = subprocess.run([str(Path(sys.executable).with_name("dbstudio")), "validate", str(folder)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert git(folder, "log", "-1", "--format=%s").strip() == MESSAGE
    committed = git(folder, "show", "--name-only", "--format=", "HEAD").split()
    assert {"stages.yaml", "materials.yaml", "dependencies.yaml", "materials/rate_sheet.csv",
            "subtasks/T03/rubric.yaml", "subtasks/T04/subtask.yaml"} <= set(committed)
    assert git(folder, "status", "--porcelain").strip() == ""
    stages_text = (folder / "stages.yaml").read_text(encoding="utf-8")
    assert STAGES_COMMENT in stages_text and "Credit review" in stages_text
    materials_text = (folder / "materials.yaml").read_text(encoding="utf-8")
    assert MATERIALS_COMMENT in materials_text and "rate_sheet.csv" in materials_text

    # The reopened window shows the stage, the subtasks, the material, the handoff and the criteria.
    model = window.explorer_model
    assert model.find("stage", "S3").data() == "S3  Credit review"
    assert model.find("subtask", "T03").data() == "T03  Rate analysis"
    assert model.find("subtask", "T04").data() == "T04  Credit memo"
    assert model.find("material", "M04").parent().data() == "Before T04"
    assert model.find("handoff", "T03:outputs/T03.md>T04").isValid()
    QTest.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    shown = _criteria(window)
    assert {key: value for key, value in shown.items() if value[0] == "T03"} == criteria
    assert "T01-C01" in shown and "PKG-01" in shown  # every rubric, the template's too


def test_files_chosen_by_keyboard_in_the_import_and_reference_file_dialogs(qtbot, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    """Ctrl+I and Add Evaluator Reference open file dialogs that take a typed path and Enter."""
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    desk = tmp_path / "desk"
    desk.mkdir()
    (desk / "lender-call.md").write_text("# Call with the lender\n", encoding="utf-8")
    (desk / "model-answer.md").write_text("# What a strong memo says\n", encoding="utf-8")
    assert window.select_in_explorer("subtask", "T03")

    press(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)  # actionImportMaterial
    chooser = shown_dialog(qtbot, "importMaterialFileDialog")
    name = child(chooser, QLineEdit, "fileNameEdit")
    type_into(name, str(desk / "lender-call.md"))
    press(name, Qt.Key.Key_Return)
    dialog = shown_dialog(qtbot, "materialImportDialog")
    release = child(dialog, QComboBox, "materialRelease")
    assert child(dialog, QLineEdit, "materialTitle").text() == "Lender call"
    assert release.currentText().startswith("Before T03")  # the subtask selected in the explorer
    _enter(qtbot, window, release)
    assert window.current_object() == ("material", "M19")

    _trigger(window, "actionAddReference")
    chooser = shown_dialog(qtbot, "referenceFileDialog")
    name = child(chooser, QLineEdit, "fileNameEdit")
    type_into(name, str(desk / "model-answer.md"))
    press(name, Qt.Key.Key_Return)
    answer = shown_dialog(qtbot, "addReferenceDialog")
    type_into(child(answer, QLineEdit), "Model answer of the memo")
    _enter(qtbot, window, child(answer, QLineEdit))
    kind, reference = window.current_object() or ("", "")
    assert kind == "reference"
    window.action_save.trigger()
    assert (root / "materials" / "lender-call.md").read_bytes() == (desk / "lender-call.md").read_bytes()
    references = (root / "evaluator" / "references.yaml").read_text(encoding="utf-8")
    assert f"id: {reference}" in references and "Model answer of the memo" in references
    assert (root / "evaluator" / "model-answer.md").is_file()
