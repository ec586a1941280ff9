"""The stage editor: its title and the subtasks it holds, in order (moved in the explorer)."""

from __future__ import annotations

from PySide6.QtWidgets import QListWidget

from studio.gui.project.editors.base import ObjectForm
from studio.model.workflow import Stage
from studio.store import layout


class StageEditor(ObjectForm):
    kind = "stage"
    heading = "Stage"

    def build(self) -> None:
        self.setObjectName("stageEditor")
        self.add_readonly("Id", lambda s: s.id, "stageId")
        self.add_line("Title", "title", lambda s: s.title)
        self.subtasks = QListWidget(self.body)
        self.subtasks.setObjectName("stageSubtasks")
        self.subtasks.setMinimumHeight(160)
        self.add_row("Subtasks, in order", self.subtasks,
                     "Run in this order. Move subtasks between and within stages in the project explorer.")

    def current(self) -> Stage | None:
        stages = self.project.stages
        return next((s for s in stages.stages if s.id == self.object_id), None) if stages else None

    def files(self) -> set[str]:
        return {layout.STAGES_FILE}

    def show_extra(self, stage: Stage | None) -> None:
        lines = []
        for sid in stage.subtasks if stage else []:
            subtask = self.project.subtasks.get(sid)
            position = self.project.position(sid)
            lines.append(f"{position}. {sid} — {subtask.title}" if subtask else f"{position}. {sid} (no folder)")
        if [self.subtasks.item(i).text() for i in range(self.subtasks.count())] != lines:
            self.subtasks.clear()
            self.subtasks.addItems(lines)
