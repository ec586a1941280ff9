"""The rubric table model: every criterion of the project in timeline order, read lazily,
following each edit with inserted / removed / moved / changed rows (never a reset), reused
criteria shown with their original's values and locked, and the filter the expert narrows it with."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt

from bench.review_bench import LARGE_CRITERIA, SEED_UNKNOWN_REUSE, make_large_project
from studio.editing.rubric import add_criterion, move_criterion, remove_criterion, set_criterion_field
from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.rubric.filter_model import RubricFilterModel
from studio.gui.rubric.model import COLUMN, REUSED_ROLE, RubricModel
from studio.gui.rubric.totals import RubricTotalsModel
from studio.store.workspace import sample_project

T01 = "subtasks/T01/rubric.yaml"
FINAL = "final/rubric.yaml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


@pytest.fixture
def context(sample: Path) -> ProjectContext:
    return ProjectContext(ProjectSession(sample))


class Signals:
    """What a model told its views."""

    def __init__(self, model) -> None:
        self.seen: list[tuple] = []
        for name in ("rowsInserted", "rowsRemoved", "rowsMoved", "modelReset", "layoutChanged", "dataChanged"):
            getattr(model, name).connect(lambda *args, name=name: self.seen.append((name, *args)))

    def kinds(self) -> set[str]:
        return {entry[0] for entry in self.seen}


def cell(model: RubricModel, row: int, column: str, role=Qt.ItemDataRole.DisplayRole):
    return model.index(row, COLUMN[column]).data(role)


def test_model_and_filter_pass_the_qt_model_tester_on_the_sample(qtmodeltester, context):
    model = RubricModel(context)
    proxy = RubricFilterModel(model)
    qtmodeltester.check(model)
    proxy.set_filter(text="net debt", scope="T01")
    qtmodeltester.check(proxy)
    assert 0 < proxy.rowCount() < model.rowCount()
    qtmodeltester.check(RubricTotalsModel(context))


def test_model_and_filter_pass_the_qt_model_tester_at_5000_criteria(qtmodeltester, tmp_path: Path):
    make_large_project(tmp_path / "large")
    context = ProjectContext(ProjectSession(tmp_path / "large"))
    model = RubricModel(context)
    # 5,000 checkpoint criteria of T01, 4 each of T02 and T03; the final rubric reuses all 5,000
    # (and 2 criteria that do not exist) and adds a cross-file and a package criterion.
    assert model.rowCount() == LARGE_CRITERIA + 8 + LARGE_CRITERIA + SEED_UNKNOWN_REUSE + 2
    qtmodeltester.check(model)
    proxy = RubricFilterModel(model)
    proxy.set_filter(text="covenant", dimension="correctness")
    qtmodeltester.check(proxy)
    project = context.session.loaded.project
    expected = sum(1 for _, c in project.all_criteria() if c.reuse_of is None and c.dimension.value == "correctness"
                   and ("covenant" in c.text.lower() or "covenant" in (c.review.reviewer or "").lower()))
    reused = {c.reuse_of for c in project.final_rubric.criteria if c.reuse_of}
    expected += sum(1 for c in project.checkpoint_rubrics["T01"].criteria if c.key in reused
                    and c.dimension.value == "correctness" and "covenant" in c.text.lower())
    assert proxy.rowCount() == expected > 0
    qtmodeltester.check(RubricTotalsModel(context))


def test_rows_follow_the_timeline_then_the_final_rubric(context):
    model = RubricModel(context)
    project = context.session.loaded.project
    assert model.scopes() == [*project.timeline(), "final"]
    assert cell(model, 0, "id") == "T01-C01"
    assert cell(model, model.rowCount() - 1, "rubric") == "final"
    assert model.rowCount() == len(project.all_criteria())


def test_a_reused_criterion_shows_its_original_in_italics_and_is_locked_except_covers(context):
    model = RubricModel(context)
    row = model.row_of("final", "T06-C02")
    original = context.session.loaded.project.checkpoint_criterion("T06-C02")[1]
    assert cell(model, row, "text") == original.text
    assert cell(model, row, "weight") == str(original.weight)
    assert cell(model, row, "dimension") == original.dimension.value
    assert cell(model, row, "target") == "artifact"
    assert cell(model, row, "id", REUSED_ROLE) is True
    assert cell(model, row, "text", Qt.ItemDataRole.FontRole).italic()
    assert "reuses T06-C02" in cell(model, row, "text", Qt.ItemDataRole.ToolTipRole)
    for column in ("text", "weight", "dimension", "status", "reviewer", "id", "requires", "propagates"):
        assert not model.flags(model.index(row, COLUMN[column])) & Qt.ItemFlag.ItemIsEditable, column
        assert model.setData(model.index(row, COLUMN[column]), "x") is False
    assert not model.flags(model.index(row, COLUMN["gate"])) & Qt.ItemFlag.ItemIsUserCheckable
    assert context.undo_stack.count() == 0
    covers = model.index(row, COLUMN["covers"])
    assert model.flags(covers) & Qt.ItemFlag.ItemIsEditable
    assert model.setData(covers, ["F1", "F2"])
    assert cell(model, row, "covers") == "F1, F2"
    assert context.undo_stack.count() == 1


def test_an_edit_of_the_original_changes_the_reused_row_too(context):
    model = RubricModel(context)
    signals = Signals(model)
    checkpoint_row = model.find("T06-C02")
    reused_row = model.row_of("final", "T06-C02")
    assert model.setData(model.index(checkpoint_row, COLUMN["weight"]), 7)
    assert cell(model, reused_row, "weight") == "7"
    changed = {entry[1].row() for entry in signals.seen if entry[0] == "dataChanged"}
    assert {checkpoint_row, reused_row} <= changed
    assert signals.kinds() == {"dataChanged"}


def test_adding_removing_and_moving_criteria_insert_remove_and_move_rows_without_a_reset(context):
    model = RubricModel(context)
    proxy = RubricFilterModel(model)
    signals, proxy_signals = Signals(model), Signals(proxy)
    documents = context.session.documents
    rows = model.rowCount()
    new = {"id": "T01-C99", "text": "The memo names the covenant.", "covers": ["T01:outputs/net_debt_baseline.xlsx"],
           "target": "checkpoint", "dimension": "correctness", "weight": 2}
    context.push(add_criterion(documents, "T01", new, 1))
    assert model.rowCount() == rows + 1 and cell(model, 1, "id") == "T01-C99"
    assert ("rowsInserted", QModelIndex(), 1, 1) in signals.seen
    context.push(move_criterion(documents, "T01", "T01-C99", 4))
    assert [cell(model, r, "id") for r in range(6)] == ["T01-C01", "T01-C02", "T01-C03", "T01-C04", "T01-C99",
                                                       "T01-C05"]
    assert any(entry[0] == "rowsMoved" for entry in signals.seen)
    context.push(remove_criterion(documents, "T01", "T01-C99"))
    assert model.rowCount() == rows
    assert ("rowsRemoved", QModelIndex(), 4, 4) in signals.seen
    context.undo_stack.undo()  # the removal: the row comes back
    assert cell(model, 4, "id") == "T01-C99"
    context.undo_stack.undo()
    context.undo_stack.undo()
    assert model.rowCount() == rows and model.keys("T01") == [f"T01-C0{n}" for n in range(1, 8)]
    assert "modelReset" not in signals.kinds() and "modelReset" not in proxy_signals.kinds()
    assert proxy.rowCount() == rows


def test_an_edit_touching_the_middle_of_a_rubric_keeps_rows_and_ids_in_step(context):
    """A compound that adds in one place and removes in another (a spreadsheet import does)."""
    from studio.editing.commands import Compound

    model = RubricModel(context)
    signals = Signals(model)
    documents = context.session.documents
    criterion = {"id": "T02-C90", "text": "Added.", "covers": [], "target": "checkpoint", "dimension": "usability",
                 "weight": 1}
    # Places are taken before any edit: the later places first, the insertion at the top last.
    context.push(Compound("mixed", [set_criterion_field(documents, "T02", "T02-C01", "weight", 3),
                                    remove_criterion(documents, "T02", "T02-C04"),
                                    add_criterion(documents, "T02", criterion, 0)]))
    keys = [c.key for c in context.session.loaded.project.checkpoint_rubrics["T02"].criteria]
    assert model.keys("T02") == keys
    start = model.scope_rows("T02").start
    assert [cell(model, start + n, "id") for n in range(len(keys))] == keys
    assert cell(model, start + 1, "weight") == "3"
    assert {"rowsInserted", "rowsRemoved", "dataChanged"} <= signals.kinds() and "modelReset" not in signals.kinds()


def test_a_reload_resets_the_model(context):
    model = RubricModel(context)
    signals = Signals(model)
    context.reloaded.emit()
    assert "modelReset" in signals.kinds()
    assert model.rowCount() == len(context.session.loaded.project.all_criteria())


def test_edits_the_rubric_cannot_take_are_refused_with_a_reason_and_nothing_is_pushed(context, qtbot):
    model = RubricModel(context)
    row = model.find("T01-C02")
    for column, value, says in (("weight", 0, "only for a fatal gate"), ("weight", 11, "out of range"),
                                ("text", "  ", "needs a requirement text"), ("dimension", "style", "not a dimension"),
                                ("target", "artifact", "not a target here"), ("id", "T01-C03", "already the id")):
        with qtbot.waitSignal(model.refused) as refused:
            assert model.setData(model.index(row, COLUMN[column]), value) is False
        assert says in refused.args[0], (column, refused.args[0])
    assert context.undo_stack.count() == 0


def test_ticking_gate_sets_weight_0_and_writes_gate_after_weight(context, sample: Path):
    model = RubricModel(context)
    row = model.find("T01-C07")
    assert model.setData(model.index(row, COLUMN["gate"]), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert cell(model, row, "weight") == "0"
    assert context.undo_stack.count() == 1
    context.save()
    text = (sample / T01).read_text(encoding="utf-8")
    entry = text[text.index("id: T01-C07"):]
    assert entry.index("weight: 0") < entry.index("gate: true") < entry.index("review:")
    assert model.setData(model.index(row, COLUMN["gate"]), Qt.CheckState.Unchecked.value,
                         Qt.ItemDataRole.CheckStateRole)
    context.save()
    assert "gate:" not in (sample / T01).read_text(encoding="utf-8").split("id: T01-C07")[1]
    assert cell(model, row, "weight") == "1"  # no longer a gate: the smallest weight, for the expert to set


def test_renaming_through_the_id_cell_follows_in_reused_rows(context):
    model = RubricModel(context)
    row = model.find("T06-C02")
    assert model.setData(model.index(row, COLUMN["id"]), "T06-C20")
    assert cell(model, row, "id") == "T06-C20"
    assert model.row_of("final", "T06-C20") is not None and model.row_of("final", "T06-C02") is None


def test_the_filter_narrows_by_text_scope_target_dimension_and_status(context):
    model = RubricModel(context)
    proxy = RubricFilterModel(model)
    project = context.session.loaded.project

    def shown() -> list[str]:
        return [proxy.index(r, COLUMN["id"]).data() for r in range(proxy.rowCount())]

    proxy.set_filter(scope="T03")
    assert shown() == [c.key for c in project.checkpoint_rubrics["T03"].criteria]
    proxy.set_filter(scope=None, target="package")
    assert shown() and all(model.project.final_rubric.criteria[model.locate(proxy.mapToSource(proxy.index(r, 0))
                                                                            .row())[1]].target.value == "package"
                           for r in range(proxy.rowCount()))
    proxy.set_filter(target=None, status="draft", dimension="usability")
    assert shown() == [c.key for s, c in project.all_criteria() if c.reuse_of is None
                       and c.review.status.value == "draft" and c.dimension.value == "usability"]
    proxy.set_filter(status=None, dimension=None, text="lindqvist")
    resolved = [project.checkpoint_criterion(c.reuse_of)[1] if c.reuse_of else c for _, c in project.all_criteria()]
    assert len(shown()) == sum(1 for c in resolved if "lindqvist" in f"{c.key} {c.text} {c.review.reviewer}".lower())
    narrower = len(shown())
    proxy.set_filter(text="t01-c0")
    assert shown() == [f"T01-C0{n}" for n in range(1, 8)] and len(shown()) < narrower


def test_the_next_id_follows_the_rubric_numbering():
    from studio.editing.rubric import next_criterion_id

    assert next_criterion_id("T05", {"T05-C01", "T05-C08", "T04-C09"}) == "T05-C09"
    assert next_criterion_id("T01", {f"T01-C{n:04d}" for n in range(1, 5001)}) == "T01-C5001"
    assert next_criterion_id("T11", set()) == "T11-C01"
    assert next_criterion_id("final", {"X-01", "X-04", "A-07"}, "cross-file") == "X-05"
    assert next_criterion_id("final", {"A-01", "P-02"}, "package") == "P-03"


def test_a_filtered_view_follows_edits_that_make_rows_match_or_not(context):
    model = RubricModel(context)
    proxy = RubricFilterModel(model)
    proxy.set_filter(text="liquidity buffer")
    assert proxy.rowCount() == 0
    row = model.find("T02-C03")
    assert model.setData(model.index(row, COLUMN["text"]), "The findings state the liquidity buffer.")
    assert [proxy.index(r, COLUMN["id"]).data() for r in range(proxy.rowCount())] == ["T02-C03"]
    new = {"id": "T01-C50", "text": "A liquidity buffer is named.", "covers": [], "target": "checkpoint",
           "dimension": "usability", "weight": 1}
    context.push(add_criterion(context.session.documents, "T01", new))
    assert [proxy.index(r, COLUMN["id"]).data() for r in range(proxy.rowCount())] == ["T01-C50", "T02-C03"]
    context.undo_stack.undo()
    context.undo_stack.undo()
    assert proxy.rowCount() == 0
    proxy.set_filter(text="liquidity")  # typing on after edits: the answers are computed afresh
    assert proxy.rowCount() == sum(1 for _, c in context.session.loaded.project.all_criteria()
                                   if "liquidity" in (c.text or "").lower()) + sum(
        1 for c in context.session.loaded.project.final_rubric.criteria if c.reuse_of and "liquidity" in
        context.session.loaded.project.checkpoint_criterion(c.reuse_of)[1].text.lower())


def test_the_tests_column_names_acceptance_items_and_is_edited_on_final_criteria_only(context, qtbot):
    from PySide6.QtWidgets import QStyleOptionViewItem, QWidget

    from studio.gui.rubric.delegates import IdPicker, RubricDelegate

    model = RubricModel(context)
    x01 = model.row_of("final", "X-01")
    assert cell(model, x01, "tests") == "AC2"
    tests = model.index(x01, COLUMN["tests"])
    assert model.flags(tests) & Qt.ItemFlag.ItemIsEditable
    # The picker offers the contract's acceptance items.
    parent = QWidget()
    qtbot.addWidget(parent)
    picker = RubricDelegate(model).createEditor(parent, QStyleOptionViewItem(), tests)
    assert isinstance(picker, IdPicker)
    assert picker.choices == [f"AC{n}" for n in range(1, 7)]
    RubricDelegate(model).setEditorData(picker, tests)
    assert picker.chosen() == ["AC2"]
    assert model.setData(tests, ["AC2", "AC6"])
    assert context.undo_stack.count() == 1
    assert "    tests:\n      - AC2\n      - AC6\n" in context.session.documents.text(FINAL)
    # Emptied, the key goes (an empty list is the default).
    assert model.setData(tests, [])
    assert cell(model, x01, "tests") == ""
    checkpoint = model.index(model.find("T06-C02"), COLUMN["tests"])
    assert not model.flags(checkpoint) & Qt.ItemFlag.ItemIsEditable
    assert model.setData(checkpoint, ["AC1"]) is False
    assert context.undo_stack.count() == 2
    # A reused entry is judged on the final file: it may name the items it tests.
    reused_row = model.row_of("final", "T06-C02")
    reused = model.index(reused_row, COLUMN["tests"])
    assert model.flags(reused) & Qt.ItemFlag.ItemIsEditable
    assert model.setData(reused, ["AC2"])
    assert cell(model, reused_row, "tests") == "AC2" and context.undo_stack.count() == 3
    assert "  - reuse_of: T06-C02\n    covers:\n      - F1\n    tests:\n      - AC2\n" in \
        context.session.documents.text(FINAL)
