"""The shared base of the object forms: reads its object from the session's model (never from the
disk), shows each field in a labelled widget, commits a field as one undoable edit when the edit
is finished, and follows `context.changed` for its own object (keeping focus and cursor)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.editing.changes import Changes
from studio.editing.commands import Command
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import object_location, set_field
from studio.errors import StudioError
from studio.gui.base.project_context import ProjectContext
from studio.gui.project.editors.widgets import FieldText
from studio.model.bundle import Project
from studio.store.last_commit import CommittedVersion, committed_version, restore_committed

Getter = Callable[[Any], Any]
Builder = Callable[[ProjectDocuments], Command | None]

FORM_SPACING = 10


def form_layout() -> QFormLayout:
    """The one form layout style: labels right-aligned beside their fields, rows that wrap
    long labels instead of clipping them."""
    form = QFormLayout()
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
    form.setHorizontalSpacing(14)
    form.setVerticalSpacing(FORM_SPACING)
    return form


class _Binding:
    """One field: how to read it from the model object and how to show it in its widget."""

    def __init__(self, widget: QWidget, getter: Getter) -> None:
        self.widget = widget
        self.getter = getter

    def show(self, obj: Any) -> None:
        value = self.getter(obj) if obj is not None else None
        widget = self.widget
        widget.blockSignals(True)
        try:
            if isinstance(widget, QLineEdit):
                text = "" if value is None else str(value)
                if widget.text() != text:
                    position = widget.cursorPosition()
                    widget.setText(text)
                    widget.setCursorPosition(min(position, len(text)))
            elif isinstance(widget, FieldText):
                widget.setText("" if value is None else str(value))
            elif isinstance(widget, QSpinBox):
                if value is not None and widget.value() != int(value):
                    widget.setValue(int(value))
            elif isinstance(widget, QComboBox):
                index = widget.findData(value)
                if index != widget.currentIndex():
                    widget.setCurrentIndex(index)
            elif isinstance(widget, QLabel):
                widget.setText("" if value is None else str(value))
        finally:
            widget.blockSignals(False)


class ObjectForm(QWidget):
    """A form over one object of the project (`kind`, `object_id`). Subclasses build their rows in
    `build()` with the `add_*` helpers and read their object in `current()`."""

    kind = ""
    heading = ""

    def __init__(self, context: ProjectContext, object_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.object_id = object_id
        self._bindings: list[_Binding] = []
        self._fields: dict[str, QWidget] = {}  # a row's widget by its object name, for focus_field
        self.form = form_layout()
        self.title_label = QLabel(self)
        self.title_label.setObjectName("formHeading")
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title_label.setFont(font)
        self.message = QLabel(self)
        self.message.setObjectName("formMessage")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("QLabel { color: #a61b1b; }")
        self.message.hide()
        # The way out when the object's file on disk does not load: its last committed version.
        self.restore_button = QPushButton(self)
        self.restore_button.setObjectName("restoreCommittedButton")
        self.restore_button.clicked.connect(self.restore_committed)
        self.restore_button.hide()
        self._committed: CommittedVersion | None = None
        self.body = QWidget(self)
        body_layout = QVBoxLayout(self.body)
        body_layout.setContentsMargins(16, 12, 16, 16)
        body_layout.setSpacing(FORM_SPACING + 4)
        body_layout.addWidget(self.title_label)
        body_layout.addWidget(self.message)
        body_layout.addWidget(self.restore_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.body_layout = body_layout
        body_layout.addLayout(self.form)
        self.build()
        body_layout.addStretch(1)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setWidget(self.body)
        self.outer = QVBoxLayout(self)
        self.outer.setContentsMargins(0, 0, 0, 0)
        self.outer.addWidget(self.scroll_area)
        context.changed.connect(self._on_changed)
        context.reloaded.connect(self.refresh)
        self.refresh()

    # -- what subclasses provide -------------------------------------------------------------
    def build(self) -> None:
        """Add the rows of the form."""

    def current(self) -> Any:
        """The object as the model has it now (None when it is gone)."""
        return None

    def show_extra(self, obj: Any) -> None:
        """Show what the bindings do not cover (lists, tables)."""

    def files(self) -> set[str]:
        """Files whose change may concern this form beyond the object's own (e.g. stages.yaml
        for the release points a material editor offers)."""
        return set()

    # -- helpers ---------------------------------------------------------------------------
    def add_page(self, form_title: str, title: str, page: QWidget) -> QTabWidget:
        """Put the form and `page` (a Markdown text that wants the full width) in two tabs."""
        self.outer.removeWidget(self.scroll_area)
        tabs = QTabWidget(self)
        tabs.setDocumentMode(True)
        tabs.addTab(self.scroll_area, form_title)
        tabs.addTab(page, title)
        self.outer.addWidget(tabs)
        return tabs

    @property
    def project(self) -> Project:
        return self.context.session.loaded.project

    @property
    def documents(self) -> ProjectDocuments:
        return self.context.session.documents

    def own_file(self) -> str | None:
        try:
            return object_location(self.documents, self.kind, self.object_id)[0]
        except StudioError:
            return None

    def add_row(self, label: str, widget: QWidget, tip: str = "") -> QWidget:
        caption = QLabel(label + ":", self.body)
        caption.setBuddy(widget)
        if tip:
            caption.setToolTip(tip)
            widget.setToolTip(tip)
        self.form.addRow(caption, widget)
        if widget.objectName():
            self._fields[widget.objectName()] = widget
        return widget

    def focus_field(self, field: str) -> bool:
        """Put the focus in the row of `field` (a key of the object's YAML entry, which names its
        widget: docs/gui.md); False when the form has no such row."""
        widget = self._fields.get(field) or self.findChild(QWidget, field)  # a row of its own: a widget within one
        if widget is None:
            return False
        widget.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def add_readonly(self, label: str, getter: Getter, name: str = "") -> QLabel:
        value = QLabel(self.body)
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        value.setObjectName(name)
        self._bindings.append(_Binding(value, getter))
        self.add_row(label, value)
        return value

    def add_line(self, label: str, field: str, getter: Getter, optional: bool = False, tip: str = "",
                 name: str = "") -> QLineEdit:
        """A one-line text field; its edit is committed once, on Enter or focus out."""
        edit = QLineEdit(self.body)
        edit.setObjectName(name or field.replace(".", "_"))
        edit.setClearButtonEnabled(optional)
        self._bindings.append(_Binding(edit, getter))
        edit.editingFinished.connect(lambda: self._finish_text(field, getter, edit.text(), optional))
        self.add_row(label, edit, tip)
        return edit

    def add_text(self, label: str, field: str, getter: Getter, lines: int = 3, tip: str = "",
                 name: str = "") -> FieldText:
        """A few lines of text; committed once, on focus out or Ctrl+Enter."""
        edit = FieldText(lines, self.body)
        edit.setObjectName(name or field.replace(".", "_"))
        self._bindings.append(_Binding(edit, getter))
        edit.editingFinished.connect(lambda: self._finish_text(field, getter, edit.text(), False))
        self.add_row(label, edit, tip)
        return edit

    def add_spin(self, label: str, field: str, getter: Getter, low: int, high: int, suffix: str = "",
                 tip: str = "", name: str = "") -> QSpinBox:
        spin = QSpinBox(self.body)
        spin.setObjectName(name or field)
        spin.setRange(low, high)
        spin.setSuffix(suffix)
        spin.setKeyboardTracking(False)
        spin.setAccelerated(True)
        spin.setMaximumWidth(160)
        self._bindings.append(_Binding(spin, getter))
        spin.editingFinished.connect(lambda: self._finish_value(field, getter, spin.value()))
        self.add_row(label, spin, tip)
        return spin

    def add_combo(self, label: str, field: str, getter: Getter, choices: list[tuple[str, Any]],
                  tip: str = "", name: str = "") -> QComboBox:
        combo = QComboBox(self.body)
        combo.setObjectName(name or field)
        for text, value in choices:
            combo.addItem(text, value)
        self._bindings.append(_Binding(combo, getter))
        combo.activated.connect(lambda _index: self._finish_value(field, getter, combo.currentData()))
        self.add_row(label, combo, tip)
        return combo

    # -- committing ------------------------------------------------------------------------
    def _finish_text(self, field: str, getter: Getter, text: str, optional: bool) -> None:
        value: str | None = text.strip()
        if not value and optional:
            value = None
        self._finish_value(field, getter, value)

    def _finish_value(self, field: str, getter: Getter, value: Any) -> None:
        obj = self.current()
        # With its file not loading (obj None) the edit still goes through: it may be the fix.
        if obj is not None:
            before = getter(obj)
            if hasattr(before, "value"):  # an enum member compares by its YAML value
                before = before.value
            if before == value:
                return
        self.apply(lambda documents: set_field(documents, self.kind, self.object_id, field, value))

    def apply(self, build: Builder) -> bool:
        """Build a command against the documents and push it as one undo step. A refused edit
        (a StudioError) is shown above the form and the fields go back to the model's values."""
        self.message.hide()  # the refresh that follows the edit shows what is still wrong
        try:
            command = build(self.documents)
            if command is None:
                return False
            self.context.push(command)
        except StudioError as error:
            self.refresh()
            self.message.setText(str(error))
            self.message.show()
            return False
        return True

    # -- following the model ---------------------------------------------------------------
    def _on_changed(self, changes: Changes) -> None:
        own = self.own_file()
        if self.object_id in changes.ids or (own is not None and own in changes.files) \
                or self.files() & changes.files:
            self.refresh()

    def refresh(self) -> None:
        obj = self.current()
        self.title_label.setText(self.heading_text(obj))
        if obj is None:
            self._explain_missing()
            return  # the fields keep what they show, so a typo can be corrected in place
        self.message.hide()
        self.restore_button.hide()
        for binding in self._bindings:
            binding.show(obj)
        self.show_extra(obj)

    def _explain_missing(self) -> None:
        own = self.own_file()
        loaded = self.context.session.loaded
        problems = [p for p in loaded.problems if p.file == own]
        self._committed = None
        if own is None:
            text = f"This {self.kind} is no longer in the project: undo its removal or close this tab."
        elif problems:
            shown = "; ".join(f"{p.file}:{loaded.locate(p)[0]}: {p.message}" for p in problems[:3])
            text = f"{own} does not load, so this form cannot show its current values: {shown}. "
            if own in self.documents.dirty:  # broken by an edit in the window: the window can mend it
                text += "Correct the value here, or undo the last edit (Ctrl+Z)."
            else:  # broken on disk (a text editor, a merge): its last commit is a version that loaded
                self._committed = committed_version(self.context.session.root, own)
                text += self._way_out(own)
        else:
            text = f"This {self.kind} cannot be read from {own}: undo the last edit or close this tab."
        self.message.setText(text)
        self.message.show()
        self.restore_button.setVisible(self._committed is not None)

    def _way_out(self, own: str) -> str:
        committed = self._committed
        if committed is None:
            return (f"No commit holds another version of {own}: correct it in a text editor, then "
                    "File ▸ Reload from Disk.")
        self.restore_button.setText(f"Restore {own} as at {committed.short}")
        return (f"Restore it as it was at the last commit ({committed.short}, “{committed.subject}”); the "
                "project is then read again. Or correct it in a text editor, then File ▸ Reload from Disk.")

    def restore_committed(self) -> bool:
        """Put the object's file back as last committed (as `dbstudio restore` does); the window then
        reloads the project. A refusal (a link in the way, a file gone from git) is shown in the form."""
        committed = self._committed
        if committed is None:
            return False
        try:
            result = restore_committed(self.context.session.root, committed)
        except StudioError as error:
            self.message.setText(f"{committed.path} could not be restored: {error}")
            return False
        self.restore_button.hide()
        self.context.restored.emit(list(result.written))
        return True

    def heading_text(self, obj: Any) -> str:
        title = getattr(obj, "title", "") if obj is not None else ""
        return f"{self.heading} {self.object_id}" + (f" — {title}" if title else "")
