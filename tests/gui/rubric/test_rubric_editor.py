"""The rubric editor driven as an expert drives it: keys into the table's editors, the filter
line and combo boxes, the actions; every edit one undo step that keeps the YAML's comments."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QLineEdit, QTableView

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.rubric.delegates import IdPicker, WeightSpinBox
from studio.gui.rubric.editor import BulkEditDialog, RubricEditor
from studio.gui.rubric.model import COLUMN
from studio.model.weights import weight_out_of_range
from studio.sheets.cells import CellProblem, read_weight
from studio.store.workspace import sample_project

T01 = "subtasks/T01/rubric.yaml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


@pytest.fixture
def editor(sample: Path, qtbot) -> RubricEditor:
    context = ProjectContext(ProjectSession(sample))
    widget = RubricEditor(context)
    qtbot.addWidget(widget)
    widget.resize(1400, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def table(editor: RubricEditor) -> QTableView:
    return editor.findChild(QTableView, "rubricTable")


def go_to(editor: RubricEditor, criterion_id: str, column: str) -> None:
    editor.select_criterion(criterion_id)
    view = table(editor)
    view.setCurrentIndex(view.currentIndex().siblingAtColumn(COLUMN[column]))
    view.setFocus()


def press(widget, key: Qt.Key) -> None:
    """A key to a cell editor; the delegate commits and closes it on the next turn of the event loop."""
    QTest.keyClick(widget, key)
    QApplication.processEvents()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # the closed editor goes


def cell_problem(weight: int) -> str:
    """What the Excel import says of a weight cell holding `weight`."""
    with pytest.raises(CellProblem) as refused:
        read_weight(weight)
    return str(refused.value)


def visible_ids(editor: RubricEditor) -> list[str]:
    model = table(editor).model()
    return [model.index(row, COLUMN["id"]).data() for row in range(model.rowCount())]


def test_the_automation_names_are_there(editor):
    for name in ("rubricTable", "rubricTotals"):
        assert editor.findChild(QTableView, name) is not None
    assert editor.findChild(QLineEdit, "rubricFilter") is not None
    for name in ("rubricScopeFilter", "rubricTargetFilter", "rubricDimensionFilter", "rubricStatusFilter"):
        assert editor.findChild(QComboBox, name) is not None
    names = {action.objectName() for action in editor.actions()}
    assert {"actionAddCriterion", "actionDuplicateCriterion", "actionDeleteCriterion", "actionMoveCriterionUp",
            "actionMoveCriterionDown", "actionBulkEdit"} <= names


def test_typing_a_weight_is_one_undo_step_that_keeps_comments_and_undo_restores_the_bytes(editor, sample: Path):
    before = (sample / T01).read_bytes()
    go_to(editor, "T01-C02", "weight")
    view = table(editor)
    QTest.keyClick(view, Qt.Key.Key_F2)
    spin = view.findChild(WeightSpinBox)
    assert spin is not None and spin.value() == -6
    spin.selectAll()
    QTest.keyClicks(spin, "-9")
    press(spin, Qt.Key.Key_Return)
    context = editor.context
    assert context.undo_stack.count() == 1
    assert view.currentIndex().data() == "-9"
    context.save()
    text = (sample / T01).read_text(encoding="utf-8")
    assert text.startswith("# Checkpoint rubric of T01.\n")
    assert "    weight: -9\n" in text and "    weight: -6\n" not in text
    context.undo_stack.undo()
    context.save()
    assert (sample / T01).read_bytes() == before


def test_a_weight_out_of_range_typed_in_the_grid_is_refused_with_the_imports_words(editor, sample: Path):
    before = (sample / T01).read_bytes()
    go_to(editor, "T01-C02", "weight")  # weight -6
    view = table(editor)
    QTest.keyClick(view, Qt.Key.Key_F2)
    spin = QApplication.focusWidget()
    assert isinstance(spin, WeightSpinBox)
    spin.selectAll()
    QTest.keyClicks(spin, "15")
    press(spin, Qt.Key.Key_Return)
    # Not saved as 1 (or 10) without a word: refused, with the Excel import's message, nothing changed.
    assert editor.message.text() == weight_out_of_range(15) == cell_problem(15)
    assert editor.context.undo_stack.count() == 0
    assert view.currentIndex().data() == "-6"
    editor.context.save()
    assert (sample / T01).read_bytes() == before


def test_the_weight_spin_box_steps_over_zero(editor):
    go_to(editor, "T01-C07", "weight")  # weight 3
    view = table(editor)
    QTest.keyClick(view, Qt.Key.Key_F2)
    spin = view.findChild(WeightSpinBox)
    for _ in range(3):
        QTest.keyClick(spin, Qt.Key.Key_Down)
    assert spin.value() == -1  # 3, 2, 1, then -1: 0 is only for gates
    press(spin, Qt.Key.Key_Escape)
    assert editor.context.undo_stack.count() == 0


def test_pickers_offer_only_valid_ids(editor):
    view = table(editor)
    go_to(editor, "T01-C02", "requires")
    QTest.keyClick(view, Qt.Key.Key_F2)
    picker = view.findChild(IdPicker)
    assert picker.choices == ["T01-C01", "T01-C03", "T01-C04", "T01-C05", "T01-C06", "T01-C07"]
    picker.item(0).setCheckState(Qt.CheckState.Checked)
    press(picker, Qt.Key.Key_Return)
    assert view.currentIndex().data() == "T01-C01"
    project = editor.model.project
    go_to(editor, "T01-C02", "propagates")
    QTest.keyClick(view, Qt.Key.Key_F2)
    picker = view.findChild(IdPicker)
    released = [m.id for m in project.materials.materials if project.release_position(m) <= 1]
    assert picker.choices == released and "M12" not in picker.choices  # M12 arrives before T06
    press(picker, Qt.Key.Key_Escape)
    go_to(editor, "A-01", "covers")
    QTest.keyClick(view, Qt.Key.Key_F2)
    picker = view.findChild(IdPicker)
    assert picker.choices == [d.id for d in project.info.delivery.final_deliverables] + ["package"]
    press(picker, Qt.Key.Key_Escape)
    go_to(editor, "A-01", "target")
    QTest.keyClick(view, Qt.Key.Key_F2)
    combo = view.findChild(QComboBox, "rubricEditor_target")
    assert [combo.itemText(n) for n in range(combo.count())] == ["artifact", "cross-file", "package"]


def test_add_duplicate_move_and_delete_through_the_actions(editor, qtbot):
    model, context = editor.model, editor.context
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    go_to(editor, "T05-C08", "id")
    rows = model.rowCount()
    with qtbot.waitSignal(model.rowsInserted):
        editor.findChild(type(editor.action_add), "actionAddCriterion").trigger()
    assert model.keys("T05")[-1] == "T05-C09"  # the next id after T05-C08
    # The new criterion's text is open for typing.
    line = table(editor).findChild(QLineEdit, "rubricEditor_text")
    line.selectAll()
    QTest.keyClicks(line, "The model shows the minimum liquidity in every month.")
    press(line, Qt.Key.Key_Return)
    assert model.project.rubric("T05").criteria[-1].text == "The model shows the minimum liquidity in every month."
    editor.action_duplicate.trigger()
    assert model.keys("T05")[-2:] == ["T05-C09", "T05-C10"] and model.rowCount() == rows + 2
    press(table(editor).findChild(QLineEdit, "rubricEditor_text"), Qt.Key.Key_Escape)
    editor.action_up.trigger()
    assert model.keys("T05")[-3:] == ["T05-C08", "T05-C10", "T05-C09"]
    assert model.index(editor.current_row(), COLUMN["id"]).data() == "T05-C10"  # the selection moved with it
    with qtbot.waitSignal(model.rowsRemoved):
        editor.action_delete.trigger()
    assert "T05-C10" not in model.keys("T05") and model.rowCount() == rows + 1
    assert context.undo_stack.count() == 5  # add, text, duplicate, move, delete
    for _ in range(5):
        context.undo_stack.undo()
    assert model.rowCount() == rows and model.keys("T05")[-1] == "T05-C08"
    assert not resets


def test_bulk_edit_of_a_selection_is_one_undo_step_and_leaves_reused_rows(editor):
    model, context, view = editor.model, editor.context, table(editor)
    editor.show_scope("final")
    selection = view.selectionModel()
    view.selectAll()
    rows = editor.selected_rows()
    reused = sum(1 for row in rows if model.shown(row).reused)
    assert 0 < reused < len(rows)

    def fill_dialog() -> None:
        dialog = editor.findChild(BulkEditDialog, "rubricBulkEdit")
        dialog.findChild(QComboBox, "bulkStatus").setCurrentText("reviewed")
        QTest.keyClicks(dialog.findChild(QLineEdit, "bulkReviewer"), "Kai Brenner")
        dialog.accept()

    QTimer.singleShot(0, fill_dialog)
    editor.action_bulk.trigger()
    assert context.undo_stack.count() == 1
    final = model.project.final_rubric.criteria
    assert all(c.review.status.value == "reviewed" and c.review.reviewer == "Kai Brenner" for c in final if not c.reuse_of)
    assert "reused" in editor.findChild(type(editor.message), "rubricMessage").text()
    context.undo_stack.undo()
    assert not any(c.review.reviewer == "Kai Brenner" for c in model.project.final_rubric.criteria)
    assert selection is view.selectionModel()


def test_typing_in_the_filter_narrows_the_table(editor):
    line = editor.findChild(QLineEdit, "rubricFilter")
    everything = len(visible_ids(editor))
    QTest.keyClicks(line, "headroom")
    narrowed = visible_ids(editor)
    assert 0 < len(narrowed) < everything
    assert all("headroom" in table(editor).model().index(r, COLUMN["text"]).data().lower()
               for r in range(len(narrowed)))
    editor.findChild(QComboBox, "rubricScopeFilter").setCurrentIndex(
        editor.findChild(QComboBox, "rubricScopeFilter").findData("final"))
    assert set(visible_ids(editor)) < set(narrowed) or visible_ids(editor) == []
    line.clear()
    editor.show_scope(None)
    assert len(visible_ids(editor)) == everything


def test_select_criterion_clears_a_filter_that_hides_it(editor):
    QTest.keyClicks(editor.findChild(QLineEdit, "rubricFilter"), "T02-")
    editor.select_criterion("T07-C03")
    view = table(editor)
    assert view.currentIndex().data() == "T07-C03"
    assert editor.findChild(QLineEdit, "rubricFilter").text() == ""


def test_totals_follow_an_edit(editor):
    totals = editor.totals_model
    before = totals.row_named("Rubric T01")
    positive = before.positive
    go_to(editor, "T01-C01", "weight")  # weight 8
    table(editor).model().setData(table(editor).currentIndex(), 10)
    assert totals.row_named("Rubric T01").positive == positive + 2


def test_space_on_the_gate_cell_makes_a_gate_with_weight_0(editor):
    go_to(editor, "T01-C07", "gate")
    view = table(editor)
    QTest.keyClick(view, Qt.Key.Key_Space)
    criterion = editor.model.project.rubric("T01").criteria[6]
    assert (criterion.key, criterion.gate, criterion.weight) == ("T01-C07", True, 0)
    assert editor.context.undo_stack.count() == 1
    assert editor.totals_model.row_named("Rubric T01").gates == 1


def test_the_insert_key_in_the_table_adds_a_criterion_below_the_current_one(editor):
    go_to(editor, "T03-C02", "weight")
    QTest.keyClick(table(editor), Qt.Key.Key_Insert)
    assert editor.model.keys("T03")[:3] == ["T03-C01", "T03-C02", "T03-C07"]
    assert editor.context.undo_stack.count() == 1
