"""The main window's small dialogs: new project, material import, commit, handoff, crash report.

Each is opened with `open()` (window-modal, not blocking), so a test or a screen reader drives
it like any other window; the caller acts on `accepted`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QRegularExpression, Qt, Signal
from PySide6.QtGui import QKeyEvent, QRegularExpressionValidator, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.model.base import ID_PATTERN
from studio.model.schedule import MaterialKind, Provenance
from studio.store.workspace import ProjectTemplate

START = "start"
DESCRIPTION_WIDTH = 420  # px: the New Project dialog's template description wraps at this width


def _id_edit(text: str, parent: QWidget) -> QLineEdit:
    edit = QLineEdit(text, parent)
    edit.setValidator(QRegularExpressionValidator(QRegularExpression(ID_PATTERN), edit))
    return edit


def _name_fields(fields: dict[str, QWidget]) -> None:
    """Stable objectNames for a dialog's fields, so tests and screen readers find each one."""
    for name, widget in fields.items():
        widget.setObjectName(name)


def file_dialog(parent: QWidget, name: str, caption: str, directory: str,
                mode: QFileDialog.FileMode) -> QFileDialog:
    """A file dialog object to `open()` (not a blocking static call): non-native so that tests and
    screen readers find it by `name` and type a path into its `fileNameEdit`; deleted once closed."""
    dialog = QFileDialog(parent, caption, directory)
    dialog.setObjectName(name)
    dialog.setFileMode(mode)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
    if mode == QFileDialog.FileMode.Directory:
        dialog.setOption(QFileDialog.Option.ShowDirsOnly)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return dialog


def _focusable(item: object) -> QWidget | None:
    """The first widget of a form row's field (a widget, or a row layout such as field + Browse…)
    that takes the keyboard focus; None for a read-only label."""
    widget = item.widget() if hasattr(item, "widget") else None
    if widget is not None:
        return widget if widget.focusPolicy() != Qt.FocusPolicy.NoFocus else None
    layout = item.layout() if hasattr(item, "layout") else None
    if layout is not None:
        for index in range(layout.count()):
            found = _focusable(layout.itemAt(index))
            if found is not None:
                return found
    return None


class _Form(QDialog):
    """A titled form with OK / Cancel; OK is enabled while `complete()` holds. It opens with the
    keyboard in its first field and OK as the default button: the button box is made before the
    subclass's fields, so Qt's own choice would be a button (Cancel while OK is still disabled), and
    a user typing at once would cancel the form with the first space."""

    def __init__(self, title: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        # Gone once answered (after its accepted/rejected handlers ran): a closed form never lingers
        # as a hidden child that a search by objectName would find instead of the open one.
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.form = QFormLayout()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        if ok is not None and cancel is not None:
            ok.setDefault(True)
            cancel.setAutoDefault(False)  # Enter never means Cancel, whichever button had the focus
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.buttons)

    def fields(self) -> list[QWidget]:
        """The form's input fields, top to bottom (labels and read-only rows left out)."""
        found = (_focusable(self.form.itemAt(row, QFormLayout.ItemRole.FieldRole))
                 for row in range(self.form.rowCount()))
        return [widget for widget in found if widget is not None]

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        fields = self.fields()
        if not fields:
            return
        # Tab goes through the fields in the order shown, then to the buttons.
        for before, after in zip(fields, fields[1:], strict=False):
            QWidget.setTabOrder(before, after)
        QWidget.setTabOrder(fields[-1], self.buttons)
        fields[0].setFocus(Qt.FocusReason.OtherFocusReason)

    def accept_if_complete(self) -> None:
        if self.complete():
            self.accept()

    def complete(self) -> bool:
        return True

    def _update(self) -> None:
        button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if button is not None:
            button.setEnabled(self.complete())


class NewProjectDialog(_Form):
    """Folder, id, title and template of a new project; the chosen template's description shows
    under the picker, so an author sees what a template holds before creating from it."""

    def __init__(self, workspace: Path, templates: Sequence[ProjectTemplate], parent: QWidget | None = None) -> None:
        super().__init__("New project", parent)
        self.setObjectName("newProjectDialog")
        self.workspace = workspace
        self.title_edit = QLineEdit(self)
        self.title_edit.setPlaceholderText("Acme Ltd, IT audit")
        self.id_edit = _id_edit("", self)
        self.id_edit.setPlaceholderText("acme-it-audit")
        self.folder_edit = QLineEdit(self)
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder_edit, 1)
        folder_row.addWidget(browse)
        self.template_box = QComboBox(self)
        for template in templates:  # the default (blank) comes first, and is chosen
            self.template_box.addItem(template.name, template.description)
            self.template_box.setItemData(self.template_box.count() - 1, template.description,
                                          Qt.ItemDataRole.ToolTipRole)
        self.template_description = QLabel(self)
        self.template_description.setWordWrap(True)
        # A wrapped label's height is not asked for by the form: reserve room for the longest
        # description at a fixed width, so none is cut off and the dialog does not jump on a change.
        self.template_description.setFixedWidth(DESCRIPTION_WIDTH)
        for template in templates:
            self.template_description.setText(template.description)
            height = self.template_description.heightForWidth(DESCRIPTION_WIDTH)
            self.template_description.setMinimumHeight(max(height, self.template_description.minimumHeight()))
        self.form.addRow("&Title:", self.title_edit)
        self.form.addRow("&Id:", self.id_edit)
        folder_label = QLabel("&Folder:", self)
        folder_label.setBuddy(self.folder_edit)  # a row of two widgets gets no buddy of its own: Alt+F shows "&"
        self.form.addRow(folder_label, folder_row)
        self.form.addRow("Te&mplate:", self.template_box)
        self.form.addRow("", self.template_description)
        _name_fields({"newProjectTitle": self.title_edit, "newProjectId": self.id_edit,
                      "newProjectFolder": self.folder_edit, "newProjectTemplate": self.template_box,
                      "newProjectTemplateDescription": self.template_description})
        self.template_box.currentIndexChanged.connect(self._template_changed)
        self._template_changed()
        self._folder_follows_id = True
        self.title_edit.textChanged.connect(self._title_changed)
        self.id_edit.textChanged.connect(self._id_changed)
        self.folder_edit.textEdited.connect(self._folder_edited)
        self._update()

    def _template_changed(self) -> None:
        description = self.template_box.currentData() or ""
        self.template_description.setText(description)
        self.template_box.setAccessibleDescription(description)

    def _title_changed(self, title: str) -> None:
        slug = re.sub(r"[^A-Za-z0-9]+", "-", title.strip().lower()).strip("-")
        if slug and not self.id_edit.isModified():
            self.id_edit.setText(slug[:64])
        self._update()

    def _id_changed(self, project_id: str) -> None:
        if self._folder_follows_id:
            self.folder_edit.setText(str(self.workspace / project_id) if project_id else "")
        self._update()

    def _folder_edited(self, _text: str) -> None:
        self._folder_follows_id = False
        self._update()

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Parent folder of the new project", str(self.workspace))
        if folder:
            self._folder_follows_id = False
            self.folder_edit.setText(str(Path(folder) / (self.id_edit.text() or "new-project")))
            self._update()

    def complete(self) -> bool:
        return bool(self.title_edit.text().strip() and re.fullmatch(ID_PATTERN, self.id_edit.text())
                    and self.folder_edit.text().strip() and self.template_box.count())

    @property
    def values(self) -> tuple[Path, str, str, str]:
        """(folder, id, title, template)."""
        return (Path(self.folder_edit.text().strip()), self.id_edit.text(), self.title_edit.text().strip(),
                self.template_box.currentText())


class MaterialImportDialog(_Form):
    """What a dropped or chosen file is, as a material: id, title, kind, provenance, release."""

    def __init__(self, source: Path, material_id: str, timeline: list[tuple[str, str]],
                 release_before: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(f"Import {source.name} as a material", parent)
        self.setObjectName("materialImportDialog")
        self.source = source
        self.id_edit = _id_edit(material_id, self)
        self.title_edit = QLineEdit(source.stem.replace("-", " ").replace("_", " ").capitalize(), self)
        self.kind_box = QComboBox(self)
        for kind in MaterialKind:
            if kind is not MaterialKind.SCRIPTED_FEEDBACK:  # made by a script, never a file
                self.kind_box.addItem(kind.value.replace("_", " "), kind.value)
        self.provenance_box = QComboBox(self)
        for provenance in Provenance:
            self.provenance_box.addItem(provenance.value.replace("_", " "), provenance.value)
        self.provenance_box.setCurrentIndex(self.provenance_box.findData(Provenance.RECONSTRUCTED_MATERIAL.value))
        self.release_box = QComboBox(self)
        self.release_box.addItem("At the start", START)
        for sid, title in timeline:
            self.release_box.addItem(f"Before {sid}  {title}", sid)
        if release_before:
            found = self.release_box.findData(release_before)
            self.release_box.setCurrentIndex(max(found, 0))
        self.form.addRow("File:", QLabel(str(source), self))
        self.form.addRow("&Id:", self.id_edit)
        self.form.addRow("&Title:", self.title_edit)
        self.form.addRow("&Kind:", self.kind_box)
        self.form.addRow("&Provenance:", self.provenance_box)
        self.form.addRow("&Released:", self.release_box)
        _name_fields({"materialId": self.id_edit, "materialTitle": self.title_edit, "materialKind": self.kind_box,
                      "materialProvenance": self.provenance_box, "materialRelease": self.release_box})
        self.id_edit.textChanged.connect(self._update)
        self.title_edit.textChanged.connect(self._update)
        self._update()

    def complete(self) -> bool:
        return bool(re.fullmatch(ID_PATTERN, self.id_edit.text()) and self.title_edit.text().strip())

    @property
    def before_subtask(self) -> str | None:
        value = self.release_box.currentData()
        return None if value == START else str(value)


class _MessageEdit(QPlainTextEdit):
    """A commit message: Enter commits (as in a one-line field), Shift+Enter starts a new line."""

    submitted = Signal()
    """Enter was pressed (without Shift)."""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if (event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
                and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class CommitDialog(_Form):
    """The message of a commit of the saved files."""

    def __init__(self, files: list[str], parent: QWidget | None = None) -> None:
        super().__init__("Save and commit", parent)
        self.setObjectName("commitDialog")
        self.message_edit = _MessageEdit(self)
        self.message_edit.setPlaceholderText("What changed and why (Shift+Enter: a new line)")
        self.message_edit.submitted.connect(self.accept_if_complete)
        self.message_edit.setTabChangesFocus(True)
        listing = QLabel("\n".join(files[:12]) + (f"\n… and {len(files) - 12} more" if len(files) > 12 else "")
                         if files else "(only the files saved by the app since the last commit)", self)
        listing.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.form.addRow("&Message:", self.message_edit)
        self.message_edit.setObjectName("commitMessage")
        self.form.addRow("Files:", listing)
        self.message_edit.textChanged.connect(self._update)
        self._update()

    def complete(self) -> bool:
        return bool(self.message.strip())

    @property
    def message(self) -> str:
        return self.message_edit.toPlainText()


class HandoffDialog(_Form):
    """A handoff: an output of one subtask that a later subtask receives. Given `current` (from, to,
    carries), the dialog edits that handoff in place; otherwise it adds one, proposing the first output and
    the subtask after the one that produces it (a handoff always goes to a later subtask)."""

    def __init__(self, outputs: list[str], subtasks: list[str], parent: QWidget | None = None,
                 current: tuple[str, str, str | None] | None = None) -> None:
        super().__init__("Edit handoff" if current else "Add handoff", parent)
        self.setObjectName("handoffDialog")
        self.subtasks = subtasks
        self.source_box = QComboBox(self)
        self.source_box.addItems(outputs)
        self.to_box = QComboBox(self)
        self.to_box.addItems(subtasks)
        self.carries_edit = QLineEdit(self)
        self.carries_edit.setPlaceholderText("What must survive the handoff (optional)")
        self.form.addRow("&From output:", self.source_box)
        self.form.addRow("&To subtask:", self.to_box)
        self.form.addRow("&Carries:", self.carries_edit)
        _name_fields({"handoffFrom": self.source_box, "handoffTo": self.to_box, "handoffCarries": self.carries_edit})
        self._to_chosen = current is not None  # the user's (or the handoff's) choice is kept
        if current is not None:
            source, to, carries = current
            self.source_box.setCurrentText(source)
            self.to_box.setCurrentText(to)
            self.carries_edit.setText(carries or "")
        else:
            self._propose_to()
        self.source_box.currentTextChanged.connect(self._source_changed)
        self.to_box.activated.connect(self._to_picked)
        self.to_box.currentTextChanged.connect(lambda _text: self._update())
        self._update()

    def _propose_to(self) -> None:
        producer = self.source_box.currentText().split(":", 1)[0]
        if producer in self.subtasks and self.subtasks.index(producer) + 1 < len(self.subtasks):
            self.to_box.setCurrentIndex(self.subtasks.index(producer) + 1)

    def _source_changed(self) -> None:
        if not self._to_chosen:
            self._propose_to()
        self._update()

    def _to_picked(self) -> None:
        self._to_chosen = True

    def complete(self) -> bool:
        producer = self.source_box.currentText().split(":", 1)[0]
        to = self.to_box.currentText()
        return bool(self.source_box.currentText() and to) and to != producer


class DeliverableDialog(_Form):
    """A final deliverable: the output that becomes it, where it goes in the package, its title."""

    def __init__(self, deliverable_id: str, outputs: list[str], parent: QWidget | None = None) -> None:
        super().__init__("Add final deliverable", parent)
        self.setObjectName("deliverableDialog")
        self.id_edit = _id_edit(deliverable_id, self)
        self.produced_box = QComboBox(self)
        self.produced_box.addItems(outputs)
        self.path_edit = QLineEdit(self)
        self.title_edit = QLineEdit(self)
        self.audience_edit = QLineEdit(self)
        self.audience_edit.setPlaceholderText("Who receives it (optional)")
        self.form.addRow("&Id:", self.id_edit)
        self.form.addRow("&Produced by:", self.produced_box)
        self.form.addRow("&Path in the package:", self.path_edit)
        self.form.addRow("&Title:", self.title_edit)
        self.form.addRow("&Audience:", self.audience_edit)
        _name_fields({"deliverableId": self.id_edit, "deliverableProducer": self.produced_box,
                      "deliverablePath": self.path_edit, "deliverableTitle": self.title_edit,
                      "deliverableAudience": self.audience_edit})
        self.produced_box.currentTextChanged.connect(self._produced_changed)
        for edit in (self.id_edit, self.path_edit, self.title_edit):
            edit.textChanged.connect(self._update)
        self._produced_changed(self.produced_box.currentText())

    def _produced_changed(self, ref: str) -> None:
        name = ref.split(":", 1)[-1].rsplit("/", 1)[-1]
        if name:
            self.path_edit.setText(f"final/{name}")
            if not self.title_edit.isModified():
                self.title_edit.setText(Path(name).stem.replace("_", " ").replace("-", " ").capitalize())
        self._update()

    def complete(self) -> bool:
        return bool(re.fullmatch(ID_PATTERN, self.id_edit.text()) and self.produced_box.currentText()
                    and self.path_edit.text().strip() and self.title_edit.text().strip())

    @property
    def entry(self) -> dict[str, str]:
        entry = {"id": self.id_edit.text(), "path": self.path_edit.text().strip(),
                 "title": self.title_edit.text().strip(), "produced_by": self.produced_box.currentText()}
        if self.audience_edit.text().strip():
            entry["audience"] = self.audience_edit.text().strip()
        return entry


class CrashDialog(QDialog):
    """An unexpected error: what happened in a line, where the full report was written."""

    def __init__(self, label: str, summary: str, log: Path | None, details: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("crashDialog")
        self.setWindowTitle("Internal error")
        where = (f"The details are in <code>{log}</code>; please attach that file to a bug report."
                 if log is not None else "No crash log could be written; set DBSTUDIO_LOG_DIR to a writable folder.")
        text = QLabel(f"<p><b>{label}</b> failed because of a bug in DeliverBench Studio, not a problem "
                      f"with your project. Nothing unsaved was written.</p><p>{summary}</p><p>{where}</p>", self)
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.log = log
        self.details = QPlainTextEdit(details, self)
        self.details.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.details)
        layout.addWidget(buttons)
        self.resize(640, 360)
