"""The findings dock: model tester, incremental refresh after an edit, sorting and filtering by severity,
a click jumps to the object."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QVBoxLayout, QWidget

from studio.editing.fields import set_field
from studio.editing.rubric import set_criterion_field
from studio.gui.project.findings_model import FINDING_ROLE, FindingsModel
from studio.gui.project.findings_view import FindingsView
from studio.store.loader import load_project
from studio.store.workspace import TEMPLATES_DIR
from studio.validation.findings import Finding, Severity
from studio.validation.validate import validate_loaded
from tests.gui.shell_support import open_window, sample_copy


def _finding(n: int, severity: Severity = Severity.WARNING) -> Finding:
    return Finding("stages.yaml", n, 1, f"message {n}", "rule.x", severity, None)


def test_findings_model_passes_the_model_tester(qtmodeltester, tmp_path: Path):
    project = tmp_path / "p"
    shutil.copytree(TEMPLATES_DIR / "finance-transaction", project)
    (project / "stages.yaml").write_text("stages:\n  - id: S1\n    title: x\n    subtasks:\n      - T01\n      - T02\n"
                                         "      - T09\n")
    model = FindingsModel()
    model.set_findings(validate_loaded(load_project(project)))
    qtmodeltester.check(model)
    assert model.rowCount() >= 1
    assert model.index(0, 3).data().startswith("stages.yaml:")
    assert model.index(0, 0).data() == "error"
    assert model.index(0, 0).data(Qt.ItemDataRole.DecorationRole) is not None


def test_a_refresh_removes_and_inserts_only_what_changed(qtmodeltester):
    model = FindingsModel()
    model.set_findings([_finding(1), _finding(2), _finding(3)])
    events: list[tuple[str, int, int]] = []
    model.modelReset.connect(lambda: events.append(("reset", 0, 0)))
    model.rowsRemoved.connect(lambda _p, first, last: events.append(("removed", first, last)))
    model.rowsInserted.connect(lambda _p, first, last: events.append(("inserted", first, last)))
    counts = []
    model.counts_changed.connect(counts.append)
    model.set_findings([_finding(1), _finding(3), _finding(4, Severity.ERROR)])
    assert events == [("inserted", 3, 3), ("removed", 1, 1)]  # from the end: positions stay right
    assert [model.index(row, 2).data() for row in range(3)] == ["message 1", "message 3", "message 4"]
    assert counts[-1][Severity.ERROR] == 1 and counts[-1][Severity.WARNING] == 2
    qtmodeltester.check(model)


def test_an_edit_is_reviewed_after_the_pause_and_a_click_opens_the_criterion(qtbot, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    context, model = window.context, window.findings_model
    assert model.counts()[Severity.ERROR] == 0
    # A review is already running when the edit lands: its result is of the old project and is dropped.
    window.refresh_findings()
    with qtbot.waitSignal(window.findings_refreshed, timeout=20000):
        context.push(set_criterion_field(context.session.documents, "T03", "T03-C01", "requires", ["NOPE"]))
        assert window.review_timer.isActive()
    assert model.counts()[Severity.ERROR] == 1  # the first review shown is of the edited project
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data(FINDING_ROLE).object_id == "T03-C01")
    assert model.index(row, 1).data() == "validate.unknown-ref"
    assert model.index(row, 3).data().startswith("subtasks/T03/rubric.yaml:")

    selected: list[str] = []
    scopes: list[str | None] = []
    monkeypatch.setattr("studio.gui.rubric.editor.RubricEditor.select_criterion", lambda _s, cid: selected.append(cid))
    monkeypatch.setattr("studio.gui.rubric.editor.RubricEditor.show_scope", lambda _s, scope: scopes.append(scope))
    view = window.findings
    shown = window.findings_view.index_of(model.finding(row), 2)  # the table shows the filter's rows
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(shown).center())
    assert window.editor_tabs.currentWidget().objectName() == "rubricEditor"
    assert scopes == ["T03"] and selected == ["T03-C01"]
    assert window.current_object() == ("rubric", "T03")


def test_enter_on_a_finding_opens_the_subtask_at_fault(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    class Form(QWidget):  # a form as the editors make them: a widget per field, named after it
        def focus_field(self, field: str) -> bool:
            widget = self.findChild(QLineEdit, field)
            if widget is not None:
                widget.setFocus()
            return widget is not None

    def form(_context, kind: str, _object_id: str, parent: QWidget | None = None) -> QWidget:
        widget = Form(parent)
        widget.setObjectName(f"{kind}Editor")
        layout = QVBoxLayout(widget)
        for field in ("title", "inputs", "time_limit_minutes"):
            layout.addWidget(QLineEdit(widget, objectName=field))
        return widget
    monkeypatch.setattr("studio.gui.project.editors.open_editor", form)
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    context, model = window.context, window.findings_model
    with qtbot.waitSignal(window.findings_refreshed, timeout=20000):
        # M03, M06 and M07 stay: the T02 instruction works on them (inputs.material-not-listed otherwise)
        context.push(set_field(context.session.documents, "subtask", "T02", "inputs",
                               ["M01", "M99", "M03", "M06", "M07"]))
    row = next(r for r in range(model.rowCount()) if "M99" in model.index(r, 2).data())
    view = window.findings
    view.setFocus()
    view.setCurrentIndex(window.findings_view.index_of(model.finding(row)))
    QTest.keyClick(view, Qt.Key.Key_Return)
    editor = window.editor_tabs.currentWidget()
    assert editor.objectName() == "subtaskEditor"
    assert QApplication.focusWidget() is editor.findChild(QLineEdit, "inputs")  # the field at fault
    assert window.current_object() == ("subtask", "T02")
    assert window.status.findings_label.text().startswith("1 error(s)")


MIXED = [Finding("materials.yaml", 4, 1, "an info", "rule.i", Severity.INFO),
         Finding("stages.yaml", 10, 1, "a warning", "rule.w", Severity.WARNING),
         Finding("stages.yaml", 9, 1, "an error", "rule.e", Severity.ERROR),
         Finding("brief.md", 2, 1, "another warning", "rule.w", Severity.WARNING)]


def _shown(view: FindingsView, column: int) -> list[str]:
    return [view.proxy.index(row, column).data() for row in range(view.proxy.rowCount())]


def test_findings_sort_by_severity_in_the_domain_order_not_by_name(qtbot, qtmodeltester):
    model = FindingsModel()
    view = FindingsView(model)
    qtbot.addWidget(view)
    model.set_findings(MIXED)
    qtmodeltester.check(view.proxy)
    assert _shown(view, 0) == ["error", "warning", "warning", "info"]  # errors first from the start
    assert _shown(view, 2)[1:3] == ["a warning", "another warning"]  # equal severities keep their order
    header = view.table.horizontalHeader()
    QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=header.rect().topLeft() + QPoint(header.sectionViewportPosition(0) + 10, 5))
    assert _shown(view, 0) == ["info", "warning", "warning", "error"]  # a click on the header reverses it
    view.table.sortByColumn(3, Qt.SortOrder.AscendingOrder)
    assert _shown(view, 3) == ["brief.md:2", "materials.yaml:4", "stages.yaml:9", "stages.yaml:10"]  # 9 < 10


def test_findings_filter_by_severity_with_the_counts_on_the_toggles(qtbot, qtmodeltester):
    model = FindingsModel()
    view = FindingsView(model)
    qtbot.addWidget(view)
    view.show()
    model.set_findings(MIXED)
    errors, warnings, infos = (view.buttons[s] for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    assert [errors.text(), warnings.text(), infos.text()] == ["Errors 1", "Warnings 2", "Info 1"]
    assert errors.objectName() == "findingsShowErrors"
    QTest.mouseClick(infos, Qt.MouseButton.LeftButton)
    QTest.mouseClick(warnings, Qt.MouseButton.LeftButton)
    assert _shown(view, 0) == ["error"]
    qtmodeltester.check(view.proxy)
    model.set_findings([*MIXED, Finding("stages.yaml", 11, 1, "a new error", "rule.e", Severity.ERROR)])
    assert _shown(view, 2) == ["an error", "a new error"]  # a refresh keeps the filter
    assert errors.text() == "Errors 2"
    QTest.mouseClick(warnings, Qt.MouseButton.LeftButton)
    assert _shown(view, 0) == ["error", "error", "warning", "warning"]


def test_a_finding_activated_through_the_filter_is_the_one_shown(qtbot):
    """The table's rows are the filter's: a click opens the finding in that row, not the model's row
    of the same number."""
    model = FindingsModel()
    view = FindingsView(model)
    qtbot.addWidget(view)
    view.resize(900, 300)
    view.show()
    qtbot.waitExposed(view)
    model.set_findings(MIXED)
    QTest.mouseClick(view.buttons[Severity.ERROR], Qt.MouseButton.LeftButton)  # warnings and info remain
    first = view.proxy.index(0, 2)
    assert first.data() == "a warning"
    with qtbot.waitSignal(view.finding_activated) as activated:
        QTest.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=view.table.visualRect(first).center())
    assert activated.args == [MIXED[1]]
    view.table.setFocus()
    view.table.setCurrentIndex(view.proxy.index(2, 0))
    with qtbot.waitSignal(view.finding_activated) as activated:
        QTest.keyClick(view.table, Qt.Key.Key_Return)
    assert activated.args == [MIXED[0]]
