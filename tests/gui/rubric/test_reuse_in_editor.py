"""A reused final criterion made in the rubric editor: from the table's context menu on a checkpoint
criterion, or picked from the checkpoint criteria not judged again yet; one undo step."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.rubric.editor import RubricEditor
from studio.model.vocabulary import FINAL_SCOPE
from studio.store.workspace import sample_project


@pytest.fixture
def editor(tmp_path: Path, qtbot) -> RubricEditor:
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    widget = RubricEditor(ProjectContext(ProjectSession(root)))
    qtbot.addWidget(widget)
    widget.resize(1400, 800)
    widget.show()
    return widget


def final_keys(editor: RubricEditor) -> list[str]:
    return editor.model.keys(FINAL_SCOPE)


def test_judge_again_from_the_context_menu(editor: RubricEditor) -> None:
    assert editor.action_reuse in editor.table.actions()  # in the table's context menu
    editor.select_criterion("T09-C01")
    assert editor.action_reuse.isEnabled()
    before = list(final_keys(editor))
    editor.action_reuse.trigger()
    assert final_keys(editor) == [*before, "T09-C01"]
    final = editor.context.session.loaded.project.final_rubric.criteria[-1]
    assert (final.reuse_of, final.covers) == ("T09-C01", ["F5"])
    row = editor.current_row()
    assert row is not None and editor.model.locate(row) == (FINAL_SCOPE, len(before))
    assert not editor.action_reuse.isEnabled()  # a final row cannot be reused again
    editor.context.undo_stack.undo()
    assert final_keys(editor) == before


def test_a_criterion_already_reused_is_refused_with_the_reason(editor: RubricEditor) -> None:
    editor.select_criterion("T06-C02")
    editor.action_reuse.trigger()
    assert "already in the final rubric" in editor.message.text()


def test_the_picker_offers_what_is_not_reused_yet(editor: RubricEditor, qtbot) -> None:
    dialog = editor.pick_reuse()
    combo = dialog.findChild(QComboBox)
    items = [combo.itemText(i) for i in range(combo.count())]
    assert any(item.startswith("T09-C01: ") for item in items)
    assert not any(item.startswith("T06-C02: ") for item in items)  # reused already
    dialog.setTextValue(next(item for item in items if item.startswith("T09-C01: ")))
    dialog.accept()
    assert final_keys(editor)[-1] == "T09-C01"
