"""The subtask editor: title, time limit, the inputs it may use (only materials released by then),
its required outputs, and its instruction as Markdown with a live preview."""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from studio.editing.fields import instruction_file, set_instruction
from studio.editing.list_items import insert_item, remove_item, set_item, toggle_id
from studio.gui.base.project_context import ProjectContext
from studio.gui.project.editors.base import ObjectForm
from studio.gui.project.editors.widgets import CheckList, RowTable
from studio.gui.widgets.markdown import MarkdownEditor
from studio.model.availability import release_label, released_by
from studio.model.workflow import Subtask
from studio.store import layout

OUTPUT_COLUMNS = ("path", "title")


class SubtaskEditor(ObjectForm):
    kind = "subtask"
    heading = "Subtask"

    def __init__(self, context: ProjectContext, object_id: str, parent: QWidget | None = None) -> None:
        super().__init__(context, object_id, parent)
        sid = object_id
        self.instruction = MarkdownEditor(context, lambda d: instruction_file(d, sid),
                                          lambda d, text: set_instruction(d, sid, text), self)
        self.tabs = self.add_page("Definition", "Instruction", self.instruction)

    def build(self) -> None:
        self.setObjectName("subtaskEditor")
        self.add_readonly("Id", lambda s: s.id, "subtaskId")
        self.add_readonly("Runs", lambda s: self._placement(), "subtaskPlacement")
        self.add_line("Title", "title", lambda s: s.title)
        self.add_spin("Time limit", "time_limit_minutes", lambda s: s.time_limit_minutes, 1, 24 * 60, " min",
                      "Wall-clock minutes the agent has for this subtask (the paper: 240).", "timeLimit")

        # Inputs above outputs, each the form's full width: material titles are long and should read whole.
        inputs_box = QGroupBox("Inputs (materials released by then)", self.body)
        self.inputs = CheckList(inputs_box)
        self.inputs.setObjectName("subtaskInputs")
        inputs_layout = QVBoxLayout(inputs_box)
        inputs_layout.addWidget(self.inputs)
        self.inputs.toggled.connect(self._toggle_input)
        outputs_box = QGroupBox("Required outputs", self.body)
        self.outputs = RowTable(("Path in the workspace", "Title"), parent=outputs_box)
        self.outputs.setObjectName("subtaskOutputs")
        self.outputs.fit_columns((320,))
        QVBoxLayout(outputs_box).addWidget(self.outputs)
        self.outputs.edited.connect(self._edit_output)
        self.outputs.added.connect(self._add_output)
        self.outputs.removed.connect(self._remove_output)
        self.body_layout.addWidget(inputs_box)
        self.body_layout.addWidget(outputs_box)

    def current(self) -> Subtask | None:
        return self.project.subtasks.get(self.object_id)

    def files(self) -> set[str]:
        return {layout.STAGES_FILE, layout.MATERIALS_FILE}

    def _placement(self) -> str:
        position = self.project.position(self.object_id)
        stage = self.project.stage_of(self.object_id)
        if position is None:
            return "not on the timeline (add it to a stage)"
        return f"{position} of {len(self.project.timeline())} on the timeline, in stage {stage}"

    def show_extra(self, subtask: Subtask | None) -> None:
        chosen = list(subtask.inputs) if subtask else []
        offered = released_by(self.project, self.object_id)
        items = [(m.id, f"{m.id} — {m.title}", m.id in chosen,
                  f"{m.title}\n{m.kind.value.replace('_', ' ')}, released {release_label(self.project, m)}")
                 for m in offered]
        offered_ids = {m.id for m in offered}
        # An input listed but not (or no longer) released by then stays visible so it can be unticked.
        items += [(mid, f"{mid} — not released before {self.object_id}: untick it", True,
                   "This material arrives later (or does not exist); the agent cannot use it here.")
                  for mid in chosen if mid not in offered_ids]
        self.inputs.set_items(items)
        self.outputs.set_rows([[o.path, o.title or ""] for o in subtask.outputs] if subtask else [])

    def _toggle_input(self, material_id: str, on: bool) -> None:
        order = self.inputs.ids()
        self.apply(lambda d: toggle_id(d, "subtask", self.object_id, "inputs", material_id, on, order))

    def _edit_output(self, row: int, column: int, text: str) -> None:
        key = OUTPUT_COLUMNS[column]
        value: str | None = text.strip() or (None if key == "title" else "")
        subtask = self.project.subtasks.get(self.object_id)
        old = subtask.outputs[row].path if subtask is not None and row < len(subtask.outputs) else None
        if key == "path" and old and value and value != old:
            self._rename_output(old, value)
            return
        self.apply(lambda d: set_item(d, "subtask", self.object_id, "outputs", row, value, key,
                                      f"Set {key} of an output of {self.object_id}"))

    def _rename_output(self, old: str, new: str) -> None:
        """A new path for an output: every reference, check and text that names it follows, shown first."""
        from studio.editing.rename import rename_output
        from studio.errors import StudioError
        from studio.gui.widgets.rename_preview import preview_then_apply

        try:
            command = rename_output(self.documents, self.object_id, old, new)
        except StudioError as error:
            self.refresh()
            self.message.setText(str(error))
            self.message.show()
            return
        if len(command.commands) == 1:  # nothing names it yet (a new output): nothing else to show
            self.apply(lambda _d: command)
            return
        dialog = preview_then_apply(self, self.documents, command, lambda _built: self.apply(lambda _d: command))
        dialog.rejected.connect(self.refresh)  # the cell shows the path as it still is

    def _add_output(self) -> None:
        subtask = self.current()
        taken = {o.path for o in subtask.outputs} if subtask else set()
        number = 1
        while f"outputs/new_file_{number}.md" in taken:
            number += 1
        entry = {"path": f"outputs/new_file_{number}.md", "title": "New output"}
        self.apply(lambda d: insert_item(d, "subtask", self.object_id, "outputs", 10**6, entry,
                                         f"Add an output to {self.object_id}"))

    def _remove_output(self, row: int) -> None:
        self.apply(lambda d: remove_item(d, "subtask", self.object_id, "outputs", row,
                                         label=f"Remove an output of {self.object_id}"))
