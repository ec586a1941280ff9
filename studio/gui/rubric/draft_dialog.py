"""Draft Criteria with an LLM… (`draftCriteriaDialog`): what to draft — a subtask's checkpoint criteria, a
correction's propagation criteria, or the untested acceptance items — and the judge's endpoint; the request
runs on the background helper; the drafts come back in the rubric import's diff view (`draftDiffView`), each
a draft criterion, with what was left out and the request's cost; Add as drafts pushes them as one undo step
(studio/drafting, docs/drafting.md). Nothing is added without that click."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.tasks import Task, TaskRunner
from studio.gui.rubric.import_dialog import ImportDiffModel

if TYPE_CHECKING:
    from studio.drafting.draft import DraftResult
    from studio.gui.base.project_context import ProjectContext

KIND_LABELS = {"checkpoint": "Checkpoint criteria of a subtask", "propagation": "Propagation of a correction",
               "acceptance": "Acceptance items no criterion tests"}


class DraftDialog(QDialog):
    drafted = Signal(object)
    """DraftResult: the model answered and the drafts are shown."""

    def __init__(self, context: ProjectContext, runner: TaskRunner, parent: QWidget | None = None,
                 scope: str | None = None) -> None:
        from studio.gui.widgets.judge_fields import fill_profiles
        from studio.judging.client import default_base_url, default_model

        super().__init__(parent)
        self.setObjectName("draftCriteriaDialog")
        self.setWindowTitle("Draft criteria with an LLM")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.context = context
        self.runner = runner
        self.task: Task | None = None
        self.result_: DraftResult | None = None
        project = context.session.loaded.project
        self.kind_box = QComboBox(self)
        self.kind_box.setObjectName("draftKind")
        for kind, label in KIND_LABELS.items():
            self.kind_box.addItem(label, kind)
        self.subject_box = QComboBox(self)
        self.subject_box.setObjectName("draftSubject")
        self.subtasks = project.timeline()
        self.corrections = [m.id for m in (project.materials.materials if project.materials else []) if m.corrects]
        self.profile_box = QComboBox(self)
        self.profile_box.setObjectName("draftProfile")
        fill_profiles(self.profile_box, context.session.root)
        self.endpoint_edit = QLineEdit(default_base_url(), self)
        self.endpoint_edit.setObjectName("draftEndpoint")
        self.model_edit = QLineEdit(default_model(), self)
        self.model_edit.setObjectName("draftModel")
        form = QFormLayout()
        form.addRow("&Draft:", self.kind_box)
        form.addRow("&For:", self.subject_box)
        form.addRow("&Profile:", self.profile_box)
        form.addRow("&Endpoint URL:", self.endpoint_edit)
        form.addRow("&Model:", self.model_edit)
        self.model = ImportDiffModel(parent=self)
        self.view = QTableView(self)
        self.view.setObjectName("draftDiffView")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(True)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.status = QLabel(self)
        self.status.setObjectName("draftStatus")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(self)
        self.draft_button = QPushButton("&Ask for drafts", self)
        self.draft_button.setObjectName("draftAsk")
        self.add_button = QPushButton("A&dd as drafts", self)
        self.add_button.setObjectName("draftAdd")
        self.add_button.setEnabled(False)
        self.buttons.addButton(self.draft_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.add_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        self.draft_button.clicked.connect(self.ask)
        self.add_button.clicked.connect(self.add)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(1000, 560)
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self._kind_changed()
        if scope in self.subtasks:
            self.subject_box.setCurrentText(scope)
        self.kind_box.setFocus()

    def _kind_changed(self) -> None:
        kind = self.kind_box.currentData()
        self.subject_box.clear()
        self.subject_box.addItems(self.subtasks if kind == "checkpoint" else
                                  self.corrections if kind == "propagation" else [])
        self.subject_box.setEnabled(kind != "acceptance")

    def ask(self) -> None:
        from studio.drafting.draft import draft
        from studio.gui.widgets.judge_fields import read_fields

        settings = read_fields(self.context.session.root, self.profile_box, self.endpoint_edit, self.model_edit,
                               self.status.setText)
        if settings is None:
            return
        kind, subject = self.kind_box.currentData(), self.subject_box.currentText() or None
        loaded = self.context.session.loaded  # the project as edited, unsaved criteria included
        self.draft_button.setEnabled(False)
        self.add_button.setEnabled(False)
        self.status.setText(f"Asking {self.model_edit.text().strip()} at {self.endpoint_edit.text().strip()}…")
        self.task = self.runner.run("Drafting criteria", lambda: draft(loaded, kind, subject, settings),
                                    self._drafted, self._failed)

    def _drafted(self, result: DraftResult) -> None:
        self.task = None
        self.result_ = result
        self.draft_button.setEnabled(True)
        self.model.set_diff(result.diff)
        self.view.resizeColumnsToContents()
        self.view.horizontalHeader().setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        self.view.resizeRowsToContents()
        text = f"{len(result.diff.added)} draft criteria; the request cost {result.cost_line()}."
        if result.dropped:
            text += " Left out: " + "; ".join(result.dropped)
        self.status.setText(text.rstrip(".") + "." + (" Add them as drafts, or ask again." if result.diff else ""))
        self.add_button.setEnabled(bool(result.diff))
        self.drafted.emit(result)

    def _failed(self, error: StudioError) -> None:
        self.task = None
        self.draft_button.setEnabled(True)
        self.status.setText(str(error))

    def add(self) -> None:
        from studio.sheets import diff_to_command

        if self.result_ is None or not self.result_.diff:
            return
        try:
            self.context.push(diff_to_command(self.context.session.documents, self.result_.diff,
                                              f"Draft {len(self.result_.diff.added)} criteria"))
        except StudioError as error:
            self.status.setText(str(error))
            return
        self.accept()

    def reject(self) -> None:
        if self.task is not None:
            self.task.cancel()
        super().reject()
