"""The column mapping dialog for a workbook of the expert's own layout: the columns guessed from the headers,
the expert's values and words added, the workbook read into the usual diff and applied as one step; the
mapping remembered for the next workbook of the same layout."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.rubric.column_mapping import NO_COLUMN, ColumnMappingDialog
from studio.gui.rubric.import_dialog import RubricImportDialog
from studio.sheets.mapping import default_store, sheet_headers
from studio.store.workspace import sample_project
from tests.sheets.test_column_mapping import GOOD, workbook


@pytest.fixture
def context(tmp_path: Path) -> ProjectContext:
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    return ProjectContext(ProjectSession(root))


def test_map_read_apply_and_remember(qtbot, context: ProjectContext, tmp_path: Path) -> None:
    path = workbook(tmp_path / "ours.xlsx", GOOD)
    dialog = ColumnMappingDialog(path, sheet_headers(path))
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.focusWidget() is dialog.sheet_box and dialog.sheet_box.currentText() == "Criteria"
    guessed = {name: box.currentText() for name, box in dialog.columns.items() if box.currentText() != NO_COLUMN}
    assert guessed == {"rubric": "Task", "text": "Criterion", "weight": "Points", "dimension": "Category",
                       "review.note": "Notes"}
    assert not dialog.values["text"].isEnabled() and dialog.values["target"].isEnabled()
    dialog.columns["review.note"].setCurrentText(NO_COLUMN)  # the notes are the expert's own
    dialog.values["target"].setText("checkpoint")
    dialog.words["dimension"].setText("Accuracy=correctness; Completeness=completeness")
    mapping = dialog.mapping()
    importer = RubricImportDialog(context, path, mapping=mapping)
    qtbot.addWidget(importer)
    assert importer.diff is not None and [a.criterion for a in importer.diff.added] == ["T02-C07", "T03-C07"]
    before = context.session.documents.read_bytes("subtasks/T02/rubric.yaml")
    importer.accept()
    added = context.session.loaded.project.checkpoint_rubrics["T02"].criteria[-1]
    assert (added.key, added.dimension.value, added.review.note) == ("T02-C07", "correctness", None)
    context.undo_stack.undo()
    assert context.session.documents.read_bytes("subtasks/T02/rubric.yaml") == before
    # the next workbook of this layout opens with the mapping as the expert left it
    second = workbook(tmp_path / "second.xlsx", GOOD[:1])
    remembered = default_store().find(second)
    assert remembered is not None and remembered.values == {"target": "checkpoint"}
    again = ColumnMappingDialog(second, sheet_headers(second), remembered)
    qtbot.addWidget(again)
    assert again.columns["review.note"].currentText() == NO_COLUMN
    assert again.words["dimension"].text() == "Accuracy=correctness; Completeness=completeness"


def test_a_mapping_without_the_text_column_is_not_read(qtbot, tmp_path: Path) -> None:
    path = workbook(tmp_path / "ours.xlsx", GOOD)
    dialog = ColumnMappingDialog(path, sheet_headers(path))
    qtbot.addWidget(dialog)
    dialog.columns["text"].setCurrentText(NO_COLUMN)
    dialog._accept()
    assert "map the column that holds each criterion's text" in dialog.message.text() and not dialog.result()
