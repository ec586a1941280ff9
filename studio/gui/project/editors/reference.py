"""The evaluator reference editor: a file only judges see, and the subtasks (or the final package)
it serves. A banner keeps the evaluator-only nature in view."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from studio.editing.list_items import toggle_id
from studio.gui.project.editors.base import ObjectForm
from studio.gui.project.editors.widgets import CheckList
from studio.model.schedule import EvaluatorReference
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

BANNER = "Evaluator only - never shown to the agent"


class ReferenceEditor(ObjectForm):
    kind = "reference"
    heading = "Evaluator reference"

    def build(self) -> None:
        self.setObjectName("referenceEditor")
        banner = QLabel(BANNER, self.body)
        banner.setObjectName("evaluatorBanner")
        banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        banner.setStyleSheet("QLabel { background: #fdf0d5; color: #7a4b00; border: 1px solid #e0b55b;"
                             " border-radius: 4px; padding: 6px; font-weight: bold; }")
        self.body_layout.insertWidget(1, banner)
        self.add_readonly("Id", lambda r: r.id, "referenceId")
        self.add_line("Title", "title", lambda r: r.title)
        file_row = QWidget(self.body)
        row = QHBoxLayout(file_row)
        row.setContentsMargins(0, 0, 0, 0)
        self.file_label = QLabel(file_row)
        self.file_label.setObjectName("referenceFile")
        self.open_button = QPushButton("Open", file_row)
        self.open_button.setAutoDefault(False)
        self.open_button.clicked.connect(self._open)
        row.addWidget(self.file_label, 1)
        row.addWidget(self.open_button)
        self.add_row("File", file_row, "Under evaluator/: never copied into the agent's workspace.")
        self.scopes = CheckList(self.body)
        self.scopes.setObjectName("referenceFor")
        self.scopes.toggled.connect(self._toggle_scope)
        self.add_row("Used for", self.scopes, "The subtask checkpoints and/or the final package it is a reference for.")

    def current(self) -> EvaluatorReference | None:
        references = self.project.references
        return next((r for r in references.references if r.id == self.object_id), None) if references else None

    def files(self) -> set[str]:
        return {layout.STAGES_FILE}

    def show_extra(self, reference: EvaluatorReference | None) -> None:
        if reference is not None:
            exists = self.documents.exists(f"{layout.EVALUATOR_DIR}/{reference.file}")
            self.file_label.setText(f"{layout.EVALUATOR_DIR}/{reference.file}" + ("" if exists else "  (missing)"))
            self.open_button.setEnabled(exists)
        chosen = list(reference.for_scopes) if reference else []
        items = []
        for sid in self.project.timeline():
            subtask = self.project.subtasks.get(sid)
            items.append((sid, f"{sid} — {subtask.title}" if subtask else sid, sid in chosen, ""))
        items.append((FINAL_SCOPE, "Final package", FINAL_SCOPE in chosen, ""))
        items += [(s, f"{s} (unknown subtask)", True, "") for s in chosen if s not in {i[0] for i in items}]
        self.scopes.set_items(items)

    def _toggle_scope(self, scope: str, on: bool) -> None:
        order = self.scopes.ids()
        self.apply(lambda d: toggle_id(d, "reference", self.object_id, "for", scope, on, order))

    def _open(self) -> None:
        reference = self.current()
        if reference is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.documents.root / layout.EVALUATOR_DIR /
                                                            reference.file)))
