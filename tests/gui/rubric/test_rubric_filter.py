"""The rubric filter: its haystack follows the table's edits instead of being read again when the
expert types, its rows stay those a filter built afresh would show, the selection survives typing,
and a painted cell shows what the model says."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QAbstractItemModel, QItemSelectionModel, Qt
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from studio.editing.rubric import add_criterion, move_criterion, remove_criterion
from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.rubric.filter_model import HINTED, RubricFilterModel
from studio.gui.rubric.model import COLUMN, RubricModel
from studio.store.workspace import sample_project


@pytest.fixture
def context(tmp_path: Path) -> ProjectContext:
    return ProjectContext(ProjectSession(Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))))


def ids(proxy: RubricFilterModel) -> list[tuple[str, str]]:
    return [(proxy.index(r, COLUMN["rubric"]).data(), proxy.index(r, COLUMN["id"]).data())
            for r in range(proxy.rowCount())]


def afresh(model: RubricModel, **filters: str | None) -> list[tuple[str, str]]:
    fresh = RubricFilterModel(model)
    fresh.set_filter(**filters)
    return ids(fresh)


def test_typing_after_an_edit_reads_only_the_rows_the_edit_changed(context, monkeypatch):
    model = RubricModel(context)
    proxy = RubricFilterModel(model)
    proxy.set_filter(text="headroom")
    read: list[int] = []
    fields = model.filter_fields
    monkeypatch.setattr(model, "filter_fields", lambda row: read.append(row) or fields(row))
    row, reused = model.find("T06-C02"), model.row_of("final", "T06-C02")
    assert model.setData(model.index(row, COLUMN["text"]), "The memo states the covenant headroom.")
    assert set(read) == {row, reused}  # the edited criterion and the final row that reuses it
    read.clear()
    for typed in ("c", "co", "cov", "cove", "coven", "covena", "covenan", "covenant"):
        proxy.set_filter(text=typed)
    assert read == []  # typing reads the haystack only
    assert ("T06", "T06-C02") in ids(proxy) and ("final", "T06-C02") in ids(proxy)
    assert ids(proxy) == afresh(model, text="covenant")


def test_rows_added_moved_and_removed_under_a_filter_are_those_a_fresh_filter_shows(context):
    model = RubricModel(context)
    proxy = RubricFilterModel(model)
    filters = {"text": "t01", "dimension": "correctness"}
    proxy.set_filter(**filters)
    documents = context.session.documents
    new = {"id": "T01-C99", "text": "The memo names the covenant.", "covers": ["T01:outputs/net_debt_baseline.xlsx"],
           "target": "checkpoint", "dimension": "correctness", "weight": 2}
    steps = [lambda: add_criterion(documents, "T01", new, 1), lambda: move_criterion(documents, "T01", "T01-C99", 5),
             lambda: move_criterion(documents, "T01", "T01-C01", 3), lambda: remove_criterion(documents, "T01", "T01-C99")]
    for step in steps:
        context.push(step())
        assert ids(proxy) == afresh(model, **filters)
    assert ("T01", "T01-C01") in ids(proxy)
    for _ in steps:
        context.undo_stack.undo()
        assert ids(proxy) == afresh(model, **filters)
    proxy.set_filter(text="", dimension=None)
    assert proxy.rowCount() == model.rowCount()


def test_the_selection_stays_on_its_criterion_while_typing_and_goes_when_it_is_filtered_out(context):
    model = RubricModel(context)
    proxy = RubricFilterModel(model)
    selection = QItemSelectionModel(proxy)
    row = model.find("T06-C02")
    text = model.index(row, COLUMN["text"]).data().lower()
    word = next(w for w in text.split() if len(w) > 5 and w.isalpha())
    selection.setCurrentIndex(proxy.mapFromSource(model.index(row, COLUMN["id"])),
                              QItemSelectionModel.SelectionFlag.ClearAndSelect)
    for n in range(1, len(word) + 1):
        proxy.set_filter(text=word[:n])
        current = selection.currentIndex()
        assert current.isValid() and current.data() == "T06-C02" and selection.isSelected(current)
    assert proxy.rowCount() < model.rowCount()
    proxy.set_filter(text=word + " no criterion says this")
    assert proxy.rowCount() == 0 and not selection.currentIndex().isValid() and not selection.hasSelection()


def test_a_painted_cell_shows_the_models_text_and_italics(context):
    model = RubricModel(context)
    proxy = RubricFilterModel(model)
    proxy.set_filter(scope="final")
    delegate = QStyledItemDelegate()
    for row in range(proxy.rowCount()):
        for column in ("id", "text", "weight", "covers"):
            index = proxy.index(row, COLUMN[column])
            option = QStyleOptionViewItem()
            delegate.initStyleOption(option, index)  # reads the cell as a paint does (multiData)
            source = proxy.mapToSource(index)
            assert option.text == (source.data() or "")
            assert option.font.italic() == bool(source.data(Qt.ItemDataRole.FontRole)
                                                and source.data(Qt.ItemDataRole.FontRole).italic())
    assert any(proxy.index(r, COLUMN["text"]).data(Qt.ItemDataRole.FontRole) for r in range(proxy.rowCount()))


def test_the_one_pass_haystack_is_the_row_by_row_one_with_reuses_a_dangling_reuse_and_edits(context):
    model = RubricModel(context)
    documents = context.session.documents
    final = context.session.loaded.project.final_rubric.criteria
    reuse = next(c for c in final if c.reuse_of)
    own = next(c for c in final if not c.reuse_of)
    row_by_row = lambda: [model.filter_fields(row) for row in range(model.rowCount())]  # noqa: E731
    assert model.all_filter_fields() == row_by_row()
    reused = model.row_of("final", reuse.key)
    assert model.all_filter_fields()[reused][0] == "artifact"  # judged again on a final artifact
    assert reuse.reuse_of is not None
    original = context.session.loaded.project.checkpoint_criterion(reuse.reuse_of)
    assert original is not None and original[1].text.lower() in model.all_filter_fields()[reused][3]
    new = {"id": "T01-C99", "text": "The memo names the Covenant.", "covers": ["T01:outputs/net_debt_baseline.xlsx"],
           "target": "checkpoint", "dimension": "correctness", "weight": 2}
    for step in (lambda: add_criterion(documents, "T01", new, 1), lambda: move_criterion(documents, "T01", "T01-C99", 5),
                 lambda: remove_criterion(documents, original[0], reuse.reuse_of or "")):  # the final reuse now dangles
        context.push(step())
        assert model.all_filter_fields() == row_by_row()
    dangling = model.all_filter_fields()[model.row_of("final", reuse.key)]
    assert dangling == ("artifact", "", "", reuse.key.lower())
    assert model.all_filter_fields()[model.row_of("final", own.key)][3].startswith(own.key.lower())



def test_a_filter_key_tells_the_views_only_rows_changed_and_paints_what_a_fresh_table_shows(context, qtbot):
    """The layout change carries the hint that only rows moved (a view's column header then keeps its
    sections instead of laying them out and repainting on every key); the rows painted after it are
    those a table filtered afresh paints."""
    from studio.gui.rubric.editor import RubricEditor

    editor, fresh = RubricEditor(context), RubricEditor(context)
    for widget in (editor, fresh):
        qtbot.addWidget(widget)
        widget.resize(1200, 700)
        widget.show()
        qtbot.waitExposed(widget)
    hints: list[QAbstractItemModel.LayoutChangeHint] = []
    editor.proxy.layoutChanged[HINTED].connect(lambda parents, hint: hints.append(hint))
    shown = editor.table.rowAt(editor.table.viewport().height() - 1) + 1
    texts = [editor.model.filter_fields(row)[3] for row in range(editor.model.rowCount())]
    # a letter most criteria have but not all: the rows change and still fill the table
    letter = next(c for c in "etaoinsrhldcumfpgwybvkxjqz" if shown < sum(c in t for t in texts) < len(texts))
    qtbot.keyClick(editor.filter_edit, letter)
    qtbot.wait(50)
    assert shown < editor.proxy.rowCount() < editor.model.rowCount()
    assert hints == [QAbstractItemModel.LayoutChangeHint.VerticalSortHint]
    fresh.filter_edit.setText(letter)
    qtbot.wait(50)
    assert editor.table.viewport().grab().toImage() == fresh.table.viewport().grab().toImage()
