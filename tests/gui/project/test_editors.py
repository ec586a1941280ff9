"""The object forms: each opens on the sample, a keyboard edit is exactly one undo step that
changes exactly one YAML value (comments kept), undo gives back the bytes, and the subtask form
offers only materials released by then."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QListWidget, QPlainTextEdit, QSpinBox, QTextBrowser

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.project.editors import KINDS, open_editor
from studio.store.workspace import sample_project

OBJECTS = {"project": "kestrel-refinancing", "stage": "S2", "subtask": "T03", "material": "M12",
           "reference": "R03", "deliverable": "F3"}


@pytest.fixture
def context(tmp_path: Path, qtbot) -> ProjectContext:
    root = tmp_path / "kestrel"
    shutil.copytree(sample_project(), root)
    return ProjectContext(ProjectSession(root))


def _open(qtbot, context: ProjectContext, kind: str):
    editor = open_editor(context, kind, OBJECTS[kind])
    qtbot.addWidget(editor)
    editor.resize(1000, 800)
    editor.show()
    qtbot.waitExposed(editor)
    return editor


def _changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:2] in ("- ", "+ ")]


def _retype(qtbot, widget, text: str) -> None:
    widget.setFocus()
    QTest.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(widget, text)
    QTest.keyClick(widget, Qt.Key.Key_Return)


@pytest.mark.parametrize("kind", KINDS)
def test_each_editor_opens_on_the_sample_with_its_object_name(qtbot, context, kind):
    editor = _open(qtbot, context, kind)
    assert editor.objectName() == f"{kind}Editor"
    heading = editor.findChild(QLabel, "formHeading")
    assert OBJECTS[kind] in heading.text() or kind == "project"
    assert not editor.findChild(QLabel, "formMessage").isVisible()


def _one_keyboard_edit(qtbot, context, kind: str, rel: str, widget_name: str, text: str, expected: str) -> None:
    editor = _open(qtbot, context, kind)
    path = context.session.root / rel
    original = path.read_text(encoding="utf-8")
    widget = editor.findChild(QLineEdit, widget_name)
    _retype(qtbot, widget, text)
    assert context.undo_stack.count() == 1
    edited = context.session.documents.text(rel)
    changes = _changed_lines(original, edited)
    assert len(changes) == 2, changes
    assert changes[1] == expected
    assert original.splitlines()[0].startswith("#") and edited.splitlines()[0] == original.splitlines()[0]
    context.save()
    assert path.read_text(encoding="utf-8") == edited
    context.undo_stack.undo()
    assert context.session.documents.text(rel) == original
    context.save()
    assert path.read_bytes() == original.encode("utf-8")


def test_project_title_typed_is_one_undo_step_of_one_value(qtbot, context):
    _one_keyboard_edit(qtbot, context, "project", "project.yaml", "title", "Kestrel refinancing",
                       "+ title: Kestrel refinancing")


def test_material_title_typed_is_one_undo_step_of_one_value(qtbot, context):
    _one_keyboard_edit(qtbot, context, "material", "materials.yaml", "title", "CFO restatement email",
                       "+     title: CFO restatement email")


def test_deliverable_audience_typed_is_one_undo_step(qtbot, context):
    _one_keyboard_edit(qtbot, context, "deliverable", "project.yaml", "deliverableAudience", "Lenders",
                       "+       audience: Lenders")


def test_stage_title_typed_is_one_undo_step(qtbot, context):
    _one_keyboard_edit(qtbot, context, "stage", "stages.yaml", "title", "Structure and model",
                       "+     title: Structure and model")


def test_subtask_time_limit_typed_is_one_undo_step(qtbot, context):
    editor = _open(qtbot, context, "subtask")
    rel = "subtasks/T03/subtask.yaml"
    original = (context.session.root / rel).read_text(encoding="utf-8")
    _retype(qtbot, editor.findChild(QSpinBox, "timeLimit"), "200")
    assert context.undo_stack.count() == 1
    changes = _changed_lines(original, context.session.documents.text(rel))
    assert changes == ["- time_limit_minutes: 180", "+ time_limit_minutes: 200"]
    assert context.session.loaded.project.subtasks["T03"].time_limit_minutes == 200
    context.undo_stack.undo()
    assert context.session.documents.text(rel) == original
    assert editor.findChild(QSpinBox, "timeLimit").value() == 180


def test_each_keystroke_is_not_a_step_and_undo_refreshes_the_field(qtbot, context):
    editor = _open(qtbot, context, "project")
    title = editor.findChild(QLineEdit, "title")
    before = title.text()
    title.setFocus()
    QTest.keyClick(title, Qt.Key.Key_End)
    QTest.keyClicks(title, " (draft)")
    assert context.undo_stack.count() == 0  # nothing is committed while typing
    QTest.keyClick(title, Qt.Key.Key_Return)
    assert context.undo_stack.count() == 1
    assert context.session.loaded.project.info.title == before + " (draft)"
    context.undo_stack.undo()
    assert title.text() == before
    assert editor.focusWidget() is title  # the refresh left the cursor where the writer is


def test_subtask_inputs_offer_only_materials_released_by_then(qtbot, context):
    editor = _open(qtbot, context, "subtask")
    inputs = editor.findChild(QListWidget, "subtaskInputs")
    offered = inputs.ids()
    # T03 is third on the timeline: M08 is released before T03, M09 only before T04.
    assert {"M01", "M06", "M07", "M08"} <= set(offered)
    assert "M09" not in offered and "M12" not in offered
    assert inputs.checked() == ["M01", "M02", "M03", "M08"]


def test_ticking_an_input_with_the_keyboard_adds_it_in_one_step(qtbot, context):
    editor = _open(qtbot, context, "subtask")
    rel = "subtasks/T03/subtask.yaml"
    original = (context.session.root / rel).read_text(encoding="utf-8")
    inputs = editor.findChild(QListWidget, "subtaskInputs")
    inputs.setFocus()
    inputs.setCurrentRow(inputs.ids().index("M06"))
    QTest.keyClick(inputs.viewport(), Qt.Key.Key_Space)
    assert context.undo_stack.count() == 1
    assert context.session.loaded.project.subtasks["T03"].inputs == ["M01", "M02", "M03", "M06", "M08"]
    assert _changed_lines(original, context.session.documents.text(rel)) == ["+   - M06"]
    context.undo_stack.undo()
    assert context.session.documents.text(rel) == original
    assert "M06" not in inputs.checked()


def test_material_release_picked_from_the_timeline(qtbot, context):
    editor = _open(qtbot, context, "material")
    combo = editor.findChild(QComboBox, "materialRelease")
    assert combo.currentData() == "T06"
    assert [combo.itemData(i) for i in range(combo.count())][:3] == [None, "T01", "T02"]
    combo.setFocus()
    QTest.keyClick(combo, Qt.Key.Key_Down)
    assert context.undo_stack.count() == 1
    material = context.session.loaded.project.material("M12")
    assert material.release.at == "before" and material.release.subtask == "T07"
    context.undo_stack.undo()
    assert context.session.loaded.project.material("M12").release.subtask == "T06"
    assert combo.currentData() == "T06"


def test_material_kind_offers_the_model_values(qtbot, context):
    editor = _open(qtbot, context, "material")
    kind = editor.findChild(QComboBox, "materialKind")
    values = {kind.itemData(i) for i in range(kind.count())}
    assert values == {"source_record", "new_evidence", "client_feedback", "scripted_feedback", "template"}
    assert kind.currentData() == "client_feedback"


def test_reference_editor_says_evaluator_only(qtbot, context):
    editor = _open(qtbot, context, "reference")
    banner = editor.findChild(QLabel, "evaluatorBanner")
    assert banner.isVisible() and "never shown to the agent" in banner.text()
    scopes = editor.findChild(QListWidget, "referenceFor")
    assert scopes.checked() == ["T08", "T09", "T10", "final"]


def test_markdown_preview_renders_a_heading_and_saves_once(qtbot, context):
    editor = _open(qtbot, context, "subtask")
    markdown = editor.findChild(QPlainTextEdit, "markdownSource")
    preview = editor.findChild(QTextBrowser, "markdownPreview")
    editor.tabs.setCurrentIndex(1)
    original = (context.session.root / "subtasks/T03/instruction.md").read_text(encoding="utf-8")
    assert markdown.toPlainText() == original
    markdown.setFocus()
    QTest.keyClick(markdown, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(markdown, "# Read this first")
    QTest.keyClick(markdown, Qt.Key.Key_Return)
    QTest.keyClick(markdown, Qt.Key.Key_Return)
    assert context.undo_stack.count() == 0
    editor.instruction.render_preview()
    first = preview.document().firstBlock()
    assert first.text() == "Read this first"
    assert first.blockFormat().headingLevel() == 1
    qtbot.waitUntil(lambda: context.undo_stack.count() == 1)  # a 1 s pause saves the text as one step
    rel = "subtasks/T03/instruction.md"
    assert context.session.documents.read_bytes(rel) == ("# Read this first\n\n" + original).encode("utf-8")
    context.undo_stack.undo()
    assert context.session.documents.read_bytes(rel) == original.encode("utf-8")
    assert markdown.toPlainText() == original


def test_a_value_the_file_cannot_load_is_explained_and_fixed_in_place(qtbot, context):
    editor = _open(qtbot, context, "material")
    title = editor.findChild(QLineEdit, "title")
    message = editor.findChild(QLabel, "formMessage")
    _retype(qtbot, title, " ")  # an empty title: materials.yaml no longer loads
    assert context.undo_stack.count() == 1
    assert context.session.loaded.project.material("M12") is None
    assert message.isVisible() and "materials.yaml" in message.text() and "undo" in message.text()
    _retype(qtbot, title, "CFO email")
    assert context.undo_stack.count() == 2
    assert context.session.loaded.project.material("M12").title == "CFO email"
    assert not message.isVisible()


def test_a_refused_edit_is_shown_and_pushes_nothing(qtbot, context):
    editor = open_editor(context, "material", "M99")  # as a tab left open on a removed material
    qtbot.addWidget(editor)
    editor.show()
    message = editor.findChild(QLabel, "formMessage")
    assert "no longer in the project" in message.text()
    _retype(qtbot, editor.findChild(QLineEdit, "title"), "Anything")
    assert context.undo_stack.count() == 0
    assert message.isVisible() and "M99" in message.text()


def test_acceptance_items_added_edited_and_removed_each_in_one_step(qtbot, context):
    editor = _open(qtbot, context, "project")
    original = (context.session.root / "project.yaml").read_text(encoding="utf-8")
    items = editor.acceptance
    count = items.list.count()
    QTest.mouseClick(items.add_button, Qt.MouseButton.LeftButton)
    assert context.undo_stack.count() == 1 and items.list.count() == count + 1
    # The new item opens for editing: type its text over the placeholder.
    editor_widget = items.list.findChild(QLineEdit)
    assert editor_widget is not None
    QTest.keyClick(editor_widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(editor_widget, "The handover note names every open condition.")
    QTest.keyClick(editor_widget, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: context.undo_stack.count() == 2)
    added = context.session.loaded.project.info.delivery.acceptance[-1]
    # The next free id, shown before the text; typing edited the text only.
    assert (added.id, added.text) == ("AC7", "The handover note names every open condition.")
    assert items.list.item(count).text() == "AC7 — The handover note names every open condition."
    assert items.list.item(0).text().startswith("AC1 — Every financial figure")
    final_rubric = context.session.documents.text("final/rubric.yaml")
    # Removing AC1 takes it out of the tests of P-06 in the same step.
    items.list.setCurrentRow(0)
    QTest.mouseClick(items.remove_button, Qt.MouseButton.LeftButton)
    assert context.undo_stack.count() == 3 and items.list.count() == count
    assert "      - AC1\n" not in context.session.documents.text("final/rubric.yaml")
    assert items.list.item(0).text().startswith("AC2 — ")
    for _ in range(3):
        context.undo_stack.undo()
    assert context.session.documents.text("project.yaml") == original
    assert context.session.documents.text("final/rubric.yaml") == final_rubric
    assert items.list.count() == count


def test_deliverable_circulation_is_picked_in_one_step(qtbot, context):
    editor = _open(qtbot, context, "deliverable")
    combo = editor.findChild(QComboBox, "deliverableCirculation")
    assert combo.currentData() == "external"  # F3, the lender presentation
    combo.setFocus()
    QTest.keyClick(combo, Qt.Key.Key_Up)
    assert context.undo_stack.count() == 1
    assert context.session.loaded.project.info.delivery.final_deliverables[2].circulation.value == "internal"
    assert "      circulation: internal\n" in context.session.documents.text("project.yaml")


def test_removing_a_deliverable_criteria_cover_is_refused_with_the_reason(qtbot, context):
    editor = _open(qtbot, context, "project")
    table = editor.deliverables
    table.table.setCurrentCell(2, 1)  # F3, the lender presentation: final criteria cover it
    QTest.mouseClick(table.remove_button, Qt.MouseButton.LeftButton)
    assert context.undo_stack.count() == 0
    message = editor.findChild(QLabel, "formMessage")
    assert message.isVisible() and "F3" in message.text() and "covered" in message.text()
    assert table.table.rowCount() == 6


def test_deliverable_producer_is_picked_from_subtask_outputs(qtbot, context):
    editor = _open(qtbot, context, "deliverable")
    producer = editor.findChild(QComboBox, "deliverableProducer")
    refs = [producer.itemData(i) for i in range(producer.count())]
    assert producer.currentData() == "T07:outputs/lender_presentation.md"
    assert all(":outputs/" in ref for ref in refs) and refs[0].startswith("T01:")
    producer.setFocus()
    QTest.keyClick(producer, Qt.Key.Key_Down)
    assert context.undo_stack.count() == 1
    picked = context.session.loaded.project.info.delivery.final_deliverables[2].produced_by
    assert picked == refs[refs.index("T07:outputs/lender_presentation.md") + 1]


def test_a_file_dropped_on_a_material_replaces_its_content_in_one_step(qtbot, context, tmp_path):
    from PySide6.QtCore import QMimeData, QPoint, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    editor = _open(qtbot, context, "material")
    rel = "materials/cfo-email-ebitda-restatement.md"
    original = (context.session.root / rel).read_bytes()
    dropped = tmp_path / "restatement-v2.md"
    dropped.write_bytes(b"# Restated EBITDA, second version\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(dropped))])
    # A drag from the desktop enters the editor (which accepts one local file), then drops.
    enter = QDragEnterEvent(QPoint(20, 20), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(editor, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(editor, drop)
    assert context.undo_stack.count() == 1
    assert context.session.documents.read_bytes(rel) == dropped.read_bytes()
    assert "34 B" in editor.file_label.text()
    context.undo_stack.undo()
    assert context.session.documents.read_bytes(rel) == original


def test_subtask_outputs_added_edited_and_removed(qtbot, context):
    editor = _open(qtbot, context, "subtask")
    rel = "subtasks/T03/subtask.yaml"
    original = (context.session.root / rel).read_text(encoding="utf-8")
    outputs = editor.outputs
    QTest.mouseClick(outputs.add_button, Qt.MouseButton.LeftButton)
    assert outputs.table.rowCount() == 3
    outputs.table.item(2, 0).setText("outputs/queries_log.md")  # as the cell editor commits it
    subtask = context.session.loaded.project.subtasks["T03"]
    assert [o.path for o in subtask.outputs][-1] == "outputs/queries_log.md"
    outputs.table.setCurrentCell(0, 0)
    QTest.mouseClick(outputs.remove_button, Qt.MouseButton.LeftButton)
    assert [o.path for o in context.session.loaded.project.subtasks["T03"].outputs] == \
        ["outputs/open_issues_register.md", "outputs/queries_log.md"]
    assert context.undo_stack.count() == 3
    for _ in range(3):
        context.undo_stack.undo()
    assert context.session.documents.text(rel) == original
    assert outputs.table.rowCount() == 2


def test_generated_release_reads_only_outputs_produced_before_it(qtbot, context):
    editor = open_editor(context, "material", "M14")
    qtbot.addWidget(editor)
    editor.show()
    reads = editor.findChild(QListWidget, "generatedFrom")
    offered = reads.ids()
    # M14 is released before T08 (position 8): T07's outputs are offered, T08's are not.
    assert "T07:outputs/lender_presentation.md" in offered
    assert not any(ref.startswith(("T08:", "T09:", "T10:")) for ref in offered)
    assert reads.checked() == ["T07:outputs/lender_presentation.md"]
    script = editor.findChild(QComboBox, "generatedScript")
    assert script.currentData() == "scripts/lender_questions.py"
    reads.setFocus()
    reads.setCurrentRow(offered.index("T06:outputs/financing_model.xlsx"))
    QTest.keyClick(reads.viewport(), Qt.Key.Key_Space)
    generated = context.session.loaded.project.material("M14").generated
    assert generated.from_artifacts == ["T06:outputs/financing_model.xlsx", "T07:outputs/lender_presentation.md"]
    assert context.undo_stack.count() == 1


def test_switching_away_from_the_instruction_saves_what_was_typed(qtbot, context):
    editor = _open(qtbot, context, "subtask")
    editor.tabs.setCurrentIndex(1)
    markdown = editor.findChild(QPlainTextEdit, "markdownSource")
    markdown.setFocus()
    QTest.keyClick(markdown, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(markdown, "Sign off with the date.")
    editor.tabs.setCurrentIndex(0)  # before the pause timer fires
    assert context.undo_stack.count() == 1
    text = context.session.documents.read_bytes("subtasks/T03/instruction.md").decode("utf-8")
    assert text.endswith("Sign off with the date.")


def test_an_acceptance_item_is_marked_for_confidentiality_by_its_tick_box(qtbot, context):
    editor = _open(qtbot, context, "project")
    original = context.session.documents.text("project.yaml")
    items = editor.acceptance.list
    assert [items.item(n).checkState() == Qt.CheckState.Checked for n in range(items.count())] == [
        False, False, False, False, True, False]  # AC5
    first = items.item(0)
    first.setCheckState(Qt.CheckState.Checked)
    assert context.undo_stack.count() == 1
    assert context.session.loaded.project.info.delivery.acceptance[0].confidentiality is True
    assert context.session.loaded.project.info.delivery.acceptance[0].text.startswith("Every financial figure")
    items.item(4).setCheckState(Qt.CheckState.Unchecked)
    assert context.undo_stack.count() == 2
    text = context.session.documents.text("project.yaml")
    assert text.count("confidentiality: true") == 1 and "confidentiality: false" not in text
    context.undo_stack.undo()
    context.undo_stack.undo()
    assert context.session.documents.text("project.yaml") == original
    assert items.item(4).checkState() == Qt.CheckState.Checked and items.item(0).checkState() == Qt.CheckState.Unchecked
