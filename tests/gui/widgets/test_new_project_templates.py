"""The New Project dialog's template picker (issue 28): every template with its description, blank
first and chosen, and a project made from a domain template opens in the window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QDialogButtonBox, QLabel

from studio.gui.main_window import MainWindow
from studio.store.loader import load_project
from studio.store.workspace import project_templates
from studio.validation.validate import validate_project
from tests.gui.shell_support import git, git_identity


def _new_project_dialog(qtbot, window: MainWindow):
    window.findChild(QAction, "actionNewProject").trigger()
    qtbot.waitUntil(lambda: window.findChild(QComboBox, "newProjectTemplate") is not None)
    picker = window.findChild(QComboBox, "newProjectTemplate")
    dialog = picker.window()
    qtbot.waitExposed(dialog)
    return dialog, picker, dialog.findChild(QLabel, "newProjectTemplateDescription")


def test_the_picker_lists_every_template_with_its_description_blank_first(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    dialog, picker, description = _new_project_dialog(qtbot, window)
    listed = project_templates()
    assert [picker.itemText(i) for i in range(picker.count())] == [t.name for t in listed]
    assert picker.currentText() == "blank" and picker.currentIndex() == 0
    assert description.isVisible() and description.text() == listed[0].description
    for index, template in enumerate(listed):
        assert picker.itemData(index, Qt.ItemDataRole.ToolTipRole) == template.description
        picker.setCurrentIndex(index)
        qtbot.waitUntil(lambda: description.height() >= description.heightForWidth(description.width()))  # not cut off
    picker.setCurrentIndex(0)
    # Choosing another template shows its own description; the focus still opened in the title.
    assert dialog.focusWidget().objectName() == "newProjectTitle"
    picker.setCurrentIndex(picker.findText("clinical-safety-case"))
    clinical = next(t for t in listed if t.name == "clinical-safety-case")
    assert description.text() == clinical.description != listed[0].description
    assert picker.accessibleDescription() == clinical.description
    dialog.reject()


def test_a_project_from_a_domain_template_is_created_and_opened(qtbot, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    git_identity(monkeypatch)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    dialog, picker, description = _new_project_dialog(qtbot, window)
    QTest.keyClicks(dialog.focusWidget(), "Acme IT audit")
    QTest.keyClicks(picker, "it-audit")  # typed into the picker, as a keyboard user chooses
    assert picker.currentText() == "it-audit"
    assert "IT audit" in description.text()
    with qtbot.waitSignal(window.project_opened, timeout=20000):
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    folder = tmp_path / "workspace" / "acme-it-audit"
    project = load_project(folder).project
    assert (project.info.id, project.info.title, project.info.domain) == ("acme-it-audit", "Acme IT audit", "IT audit")
    assert project.timeline() == ["T01", "T02", "T03", "T04"]
    assert not (folder / "template.yaml").exists()
    assert validate_project(folder) == []
    assert git(folder, "log", "--format=%s").strip() == "Create project acme-it-audit from template it-audit"
    assert window.windowTitle().startswith("Acme IT audit")
