"""Deleting a selection of criteria that starts at the first row, with the Delete key: the steps
that crashed the app (issue 21). Not collected with the suite (the name has no `test_` prefix):
test_rubric_delete.py runs this file in a pytest subprocess, so a segmentation fault is reported
as a failing test instead of ending the whole run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.rubric.editor import RubricEditor
from studio.gui.rubric.model import COLUMN
from studio.store.workspace import sample_project

T01 = "subtasks/T01/rubric.yaml"
T02 = "subtasks/T02/rubric.yaml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


@pytest.fixture
def editor(sample: Path, qtbot) -> RubricEditor:
    widget = RubricEditor(ProjectContext(ProjectSession(sample)))
    qtbot.addWidget(widget)
    widget.resize(1400, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def select_down_from_the_first_row(editor: RubricEditor, count: int) -> None:
    """Click the first row's requirement, then Shift+Down: the current cell ends on the last row
    picked, which is the row the selection model moves off when the rows go."""
    view = editor.table
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, COLUMN["text"]))
    for _ in range(count - 1):
        QTest.keyClick(view, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert editor.selected_rows() == list(range(count))


@pytest.mark.parametrize("count", [4, 7, 9], ids=["within-T01", "all-of-T01", "into-T02"])
def test_delete_from_the_first_row_removes_the_rows_and_undo_gives_the_bytes_back(editor, sample, qtbot, count):
    model, stack, documents = editor.model, editor.context.undo_stack, editor.context.session.documents

    def texts() -> dict[str, str]:  # the rubric files as a save would write them now
        return {rel: documents.text(rel) for rel in (T01, T02)}

    before = texts()
    assert before == {rel: (sample / rel).read_text(encoding="utf-8") for rel in (T01, T02)}
    rows = model.rowCount()
    picked = [model.index(row, COLUMN["id"]).data() for row in range(count)]
    remaining = [model.index(row, COLUMN["id"]).data() for row in range(count, rows)]
    select_down_from_the_first_row(editor, count)
    with qtbot.waitSignal(model.rowsRemoved):
        QTest.keyClick(editor.table, Qt.Key.Key_Delete)
    assert model.rowCount() == rows - count
    assert [model.index(row, COLUMN["id"]).data() for row in range(model.rowCount())] == remaining
    assert all(model.find(key) is None for key in picked)
    assert all(key not in "".join(texts().values()) for key in picked)
    assert stack.count() == 1  # one undo step for the whole selection
    stack.undo()
    assert texts() == before
    assert [model.index(row, COLUMN["id"]).data() for row in range(model.rowCount())] == picked + remaining
    stack.redo()
    assert model.rowCount() == rows - count and all(model.find(key) is None for key in picked)
    stack.undo()
    assert texts() == before
