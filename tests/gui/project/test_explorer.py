"""The explorer model: lazy, passes the model tester, and follows edits row by row (no reset)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt

from studio.editing.timeline import add_stage, add_subtask, remove_subtask
from studio.gui.project.explorer_model import ID_ROLE, KIND_ROLE, REFERENCE_COLOUR, ExplorerModel
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from tests.gui.shell_support import open_window, sample_copy


def _fetch_all(model: ExplorerModel, parent: QModelIndex = QModelIndex()) -> int:
    if model.canFetchMore(parent):
        model.fetchMore(parent)
    return sum(1 + _fetch_all(model, model.index(row, 0, parent)) for row in range(model.rowCount(parent)))


def test_explorer_model_passes_the_model_tester(qtmodeltester):
    model = ExplorerModel()
    model.set_project(load_project(sample_project()).project)
    assert model.rowCount() == 6  # project, materials, handoffs, deliverables, final rubric, references
    assert _fetch_all(model) > 80
    qtmodeltester.check(model)


def test_children_are_built_only_when_asked_for():
    model = ExplorerModel()
    model.set_project(load_project(sample_project()).project)
    project = model.index(0, 0)
    assert model.hasChildren(project) and model.rowCount(project) == 0 and model.canFetchMore(project)
    model.fetchMore(project)
    assert model.rowCount(project) == 4 and not model.canFetchMore(project)


def test_evaluator_references_are_kept_apart_and_marked():
    model = ExplorerModel()
    model.set_project(load_project(sample_project()).project)
    group = model.index(model.rowCount() - 1, 0)
    assert "never shown to the agent" in group.data()
    reference = model.find("reference", "R01")
    assert reference.parent() == group
    assert reference.data(Qt.ItemDataRole.ForegroundRole).color() == REFERENCE_COLOUR
    assert "never shown to the agent" in reference.data(Qt.ItemDataRole.ToolTipRole)
    material = model.find("material", "M01")
    assert material.data(Qt.ItemDataRole.ForegroundRole) is None
    assert material.parent().data() == "At the start"
    assert model.find("material", "M06").parent().data() == "Before T02"


def test_an_edit_inserts_and_removes_rows_without_a_reset(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    model, context = window.explorer_model, window.context
    stage = model.find("stage", "S2")
    assert model.rowCount(stage) == 3
    resets, inserted, removed, changed = [], [], [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.rowsInserted.connect(lambda parent, first, last: inserted.append((parent.data(), first, last)))
    model.rowsRemoved.connect(lambda parent, first, last: removed.append((parent.data(), first, last)))
    model.dataChanged.connect(lambda top, _bottom, _roles=(): changed.append(top.data()))

    context.push(add_subtask(context.session.documents, "S2", "T11", "Covenant sensitivity", 1))
    assert inserted == [(stage.data(), 1, 1)]
    assert model.index(1, 0, stage).data() == "T11  Covenant sensitivity"
    assert stage.data() == "S2  Financing structure and model"
    assert "S2  Financing structure and model" in changed or "10 subtasks" not in model.index(0, 1).data()
    context.push(add_stage(context.session.documents, "S5", "Closing"))
    assert model.find("stage", "S5").isValid() and model.rowCount(model.index(0, 0)) == 5

    window.action_undo.trigger()
    window.action_undo.trigger()
    assert not model.find("subtask", "T11").isValid()
    assert (stage.data(), 1, 1) in removed
    context.push(remove_subtask(context.session.documents, "T10", force=True))
    assert not model.find("subtask", "T10").isValid()
    assert resets == []


def test_a_material_whose_release_moves_changes_group(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from studio.editing.materials import set_release

    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    model, context = window.explorer_model, window.context
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    context.push(set_release(context.session.documents, "M01", "T03"))
    moved = model.find("material", "M01")
    assert moved.parent().data() == "Before T03"
    assert model.rowCount(model.find("material", "M02").parent()) == 4  # four left at the start
    assert moved.data(KIND_ROLE) == "material" and resets == []


def test_a_rubric_edit_changes_only_its_rubric_row(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from studio.editing.rubric import remove_criterion

    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    model, context = window.explorer_model, window.context
    rubric = model.find("rubric", "T03")
    assert model.index(rubric.row(), 1, rubric.parent()).data() == "6 criteria"
    changed: list[tuple[str, str]] = []
    model.dataChanged.connect(lambda top, _bottom, _roles=(): changed.append((top.data(KIND_ROLE),
                                                                             top.data(ID_ROLE))))
    context.push(remove_criterion(context.session.documents, "T03", "T03-C01"))
    assert model.index(rubric.row(), 1, rubric.parent()).data() == "5 criteria"
    assert changed == [("rubric", "T03")]
