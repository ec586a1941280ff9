"""The window's add / remove / rename / import actions: each asks what it needs in a small
non-blocking dialog, builds an edit with the Qt-free builders of `studio.editing`, and pushes it
through the project context (one undoable step)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit

from studio.errors import StudioError
from studio.gui.base.actions import ActionId
from studio.gui.base.shell import Shell
from studio.gui.project.explorer_view import ExplorerView
from studio.model.vocabulary import FINAL_SCOPE

if TYPE_CHECKING:
    from studio.model import Project

REMOVABLE = ("stage", "subtask", "material", "reference", "deliverable", "handoff")
RENAMABLE = ("stage", "subtask", "material", "reference", "deliverable")
MOVABLE = ("stage", "subtask")  # a material moves on the timeline by its release point (its form)


class ProjectActions(QObject):
    """Actions that change the project's structure, on the explorer's current row."""

    def __init__(self, shell: Shell, explorer: ExplorerView) -> None:
        super().__init__(shell)
        self.shell = shell
        self.window = shell.window  # the parent of the dialogs
        self.explorer = explorer
        add = shell.actions.add
        self.action_add_stage = add(ActionId.ADD_STAGE, "Add &Stage…", self.add_stage)
        self.action_add_subtask = add(ActionId.ADD_SUBTASK, "Add Sub&task…", self.add_subtask, shortcut="Ctrl+T")
        self.action_import_material = add(ActionId.IMPORT_MATERIAL, "&Import Material…", self.choose_materials,
                                          shortcut="Ctrl+I")
        self.action_import_folder = add(ActionId.IMPORT_MATERIAL_FOLDER, "Import a &Folder of Materials…",
                                        self.choose_material_folder)
        self.action_add_handoff = add(ActionId.ADD_HANDOFF, "Add &Handoff…", self.add_handoff)
        self.action_edit_handoff = add(ActionId.EDIT_HANDOFF, "&Edit Handoff…", self.edit_handoff)
        self.action_add_deliverable = add(ActionId.ADD_DELIVERABLE, "Add Final &Deliverable…", self.add_deliverable)
        self.action_add_reference = add(ActionId.ADD_REFERENCE, "Add Evaluator &Reference…", self.add_reference)
        # Delete, F2 and Alt+arrows belong to the explorer: in an editor's text field they keep their usual meaning.
        self.action_rename = add(ActionId.RENAME, "Re&name…", self.rename, shortcut="F2", on_window=False)
        self.action_remove = add(ActionId.REMOVE, "&Remove", self.remove, shortcut=QKeySequence.StandardKey.Delete,
                                 on_window=False)
        self.action_move_up = add(ActionId.MOVE_UP, "Move &Earlier", lambda: self.move(-1), shortcut="Alt+Up",
                                  on_window=False)
        self.action_move_down = add(ActionId.MOVE_DOWN, "Move &Later", lambda: self.move(1), shortcut="Alt+Down",
                                    on_window=False)
        for action in (self.action_rename, self.action_remove, self.action_move_up, self.action_move_down):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            explorer.addAction(action)

    def add_action_ids(self) -> list[ActionId]:
        return [ActionId.ADD_STAGE, ActionId.ADD_SUBTASK, ActionId.IMPORT_MATERIAL, ActionId.ADD_HANDOFF,
                ActionId.ADD_DELIVERABLE, ActionId.ADD_REFERENCE]

    def add_actions(self) -> list[QAction]:
        return [self.shell.actions[action_id] for action_id in self.add_action_ids()]

    def update_enabled(self) -> None:
        has_project = self.shell.context is not None
        for action in self.add_actions():
            action.setEnabled(has_project)
        self.action_import_folder.setEnabled(has_project)
        current = self.explorer.current_object() if has_project else None
        self.action_remove.setEnabled(current is not None and current[0] in REMOVABLE)
        self.action_rename.setEnabled(current is not None and current[0] in RENAMABLE)
        self.action_edit_handoff.setEnabled(current is not None and current[0] == "handoff")
        for action in (self.action_move_up, self.action_move_down):
            action.setEnabled(current is not None and current[0] in MOVABLE)

    # -- helpers ---------------------------------------------------------------------------
    @property
    def project(self) -> Project:
        assert self.shell.context is not None
        return self.shell.context.session.loaded.project

    def push(self, build: Callable[[Any], Any], select: tuple[str, str] | None = None) -> bool:
        """Build an edit from the documents and push it; a refused edit is shown, nothing changes."""
        context = self.shell.context
        if context is None:
            return False
        try:
            context.push(build(context.session.documents))
        except StudioError as error:
            self.shell.show_error(error)
            return False
        if select is not None:
            self.explorer.select(*select)
        return True

    def ask_text(self, name: str, title: str, label: str, default: str, then: Callable[[str], None]) -> QInputDialog:
        """A one-line question, opened without blocking; `then(text)` on OK with a non-empty answer."""
        dialog = QInputDialog(self.window)
        dialog.setObjectName(name)
        dialog.setWindowTitle(title)
        dialog.setLabelText(label)
        dialog.setTextValue(default)
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # the next question is the only one by its name
        dialog.textValueSelected.connect(lambda text: then(text.strip()) if text.strip() else None)
        dialog.open()
        return dialog

    def _stage_ids(self) -> list[str]:
        return [s.id for s in self.project.stages.stages] if self.project.stages else []

    def _selected_stage_and_index(self) -> tuple[str | None, int | None]:
        """Where a new subtask goes: after the current subtask, or at the end of the current stage."""
        current = self.explorer.current_object()
        project = self.project
        if current and current[0] == "subtask":
            stage_id = project.stage_of(current[1])
            stage = next((s for s in project.stages.stages if s.id == stage_id), None) if project.stages else None
            if stage is not None:
                return stage.id, stage.subtasks.index(current[1]) + 1
        if current and current[0] == "stage":
            return current[1], None
        stages = self._stage_ids()
        return (stages[-1] if stages else None), None

    def _outputs(self) -> list[str]:
        return [f"{sid}:{output.path}" for sid in self.project.timeline()
                for output in (self.project.subtasks[sid].outputs if sid in self.project.subtasks else [])]

    # -- add -------------------------------------------------------------------------------
    def add_stage(self) -> None:
        from studio.editing.ids import next_id
        from studio.editing.timeline import add_stage

        current = self.explorer.current_object()
        stages = self._stage_ids()
        index = stages.index(current[1]) + 1 if current and current[0] == "stage" and current[1] in stages else None

        def create(title: str) -> None:
            stage_id = next_id(stages, "S")
            self.push(lambda docs: add_stage(docs, stage_id, title, index), ("stage", stage_id))
        self.ask_text("addStageDialog", "Add stage", "Title of the new stage:", "", create)

    def add_subtask(self) -> None:
        from studio.editing.ids import next_id
        from studio.editing.timeline import add_subtask

        stage_id, index = self._selected_stage_and_index()
        if stage_id is None:
            self.shell.show_error(StudioError("the project has no stage yet: add a stage first (Project > Add Stage)"))
            return
        existing = list(self.project.subtasks)

        def create(title: str) -> None:
            subtask_id = next_id(existing, "T")
            self.push(lambda docs: add_subtask(docs, stage_id, subtask_id, title, index), ("subtask", subtask_id))
        self.ask_text("addSubtaskDialog", "Add subtask", f"Title of the new subtask in {stage_id}:", "", create)

    def choose_materials(self) -> None:
        from studio.gui.widgets.dialogs import file_dialog

        current = self.explorer.current_object()
        before = current[1] if current and current[0] == "subtask" else None
        dialog = file_dialog(self.window, "importMaterialFileDialog", "Import files as materials", "",
                             QFileDialog.FileMode.ExistingFiles)
        dialog.filesSelected.connect(lambda files: self.import_materials([Path(f) for f in files], before))
        dialog.open()

    def choose_material_folder(self) -> None:
        from studio.gui.widgets.dialogs import file_dialog

        dialog = file_dialog(self.window, "importMaterialFolderDialog", "Import a folder of materials", "",
                             QFileDialog.FileMode.Directory)
        dialog.fileSelected.connect(lambda folder: self.import_folder(Path(folder)))
        dialog.open()

    def import_folder(self, folder: Path) -> None:
        """Every file of `folder` proposed as a material, confirmed in one table, imported as one undo step."""
        from studio.editing.material_folder import import_proposals, propose_materials
        from studio.gui.widgets.material_folder import MaterialFolderDialog

        context = self.shell.context
        if context is None:
            return
        try:
            proposals = propose_materials(context.session.documents, folder, self.project.timeline())
        except StudioError as error:
            self.shell.show_error(error)
            return
        dialog = MaterialFolderDialog(proposals, self.project.timeline(), self.window)

        def imported() -> None:
            chosen = dialog.chosen()
            if chosen:
                self.push(lambda docs: import_proposals(docs, chosen), ("material", chosen[0].material_id))
        dialog.accepted.connect(imported)
        dialog.open()

    def import_materials(self, files: list[Path], before_subtask: str | None) -> None:
        """Ask, file after file, how each is released, and import it as one undoable edit each."""
        if self.shell.context is None or not files:
            return
        from studio.editing.ids import next_id
        from studio.editing.materials import import_material
        from studio.gui.widgets.dialogs import MaterialImportDialog  # the dialogs import the models: at first use

        source, rest = files[0], files[1:]
        project = self.project
        existing = [m.id for m in project.materials.materials] if project.materials else []
        timeline = [(sid, project.subtasks[sid].title if sid in project.subtasks else "") for sid in project.timeline()]
        dialog = MaterialImportDialog(source, next_id(existing, "M"), timeline, before_subtask, self.window)

        def imported() -> None:
            material_id, title = dialog.id_edit.text(), dialog.title_edit.text().strip()
            kind, provenance = dialog.kind_box.currentData(), dialog.provenance_box.currentData()
            before = dialog.before_subtask
            if self.push(lambda docs: import_material(docs, source, material_id, title, kind, provenance,
                                                      before_subtask=before), ("material", material_id)):
                self.import_materials(rest, before_subtask)
        dialog.accepted.connect(imported)
        dialog.open()

    def add_handoff(self) -> None:
        from studio.editing.dependencies import add_handoff
        from studio.gui.widgets.dialogs import HandoffDialog

        dialog = HandoffDialog(self._outputs(), self.project.timeline(), self.window)

        def create() -> None:
            source, to, carries = dialog.source_box.currentText(), dialog.to_box.currentText(), \
                dialog.carries_edit.text().strip() or None
            self.push(lambda docs: add_handoff(docs, source, to, carries), ("handoff", f"{source}>{to}"))
        dialog.accepted.connect(create)
        dialog.open()

    def edit_handoff(self) -> None:
        """The explorer's current handoff in the handoff dialog, changed in place on OK (one undo step)."""
        from studio.editing.dependencies import set_handoff
        from studio.gui.widgets.dialogs import HandoffDialog

        current = self.explorer.current_object()
        if current is None or current[0] != "handoff":
            return
        handoffs = self.project.dependencies.handoffs if self.project.dependencies else []
        position = next((i for i, h in enumerate(handoffs) if f"{h.artifact}>{h.to}" == current[1]), None)
        if position is None:
            return
        handoff = handoffs[position]
        dialog = HandoffDialog(self._outputs(), self.project.timeline(), self.window,
                               current=(handoff.artifact, handoff.to, handoff.carries))

        def change() -> None:
            source, to, carries = dialog.source_box.currentText(), dialog.to_box.currentText(), \
                dialog.carries_edit.text().strip() or None
            self.push(lambda docs: set_handoff(docs, position, source, to, carries), ("handoff", f"{source}>{to}"))
        dialog.accepted.connect(change)
        dialog.open()

    def add_deliverable(self) -> None:
        from studio.editing.delivery import add_deliverable
        from studio.editing.ids import next_id
        from studio.gui.widgets.dialogs import DeliverableDialog

        info = self.project.info
        existing = [d.id for d in info.delivery.final_deliverables] if info else []
        dialog = DeliverableDialog(next_id(existing, "F"), self._outputs(), self.window)

        def create() -> None:
            entry = dialog.entry
            self.push(lambda docs: add_deliverable(docs, entry), ("deliverable", entry["id"]))
        dialog.accepted.connect(create)
        dialog.open()

    def add_reference(self) -> None:
        """Copy a file under evaluator/ as a reference for the current subtask (else the final rubric)."""
        from studio.gui.widgets.dialogs import file_dialog

        dialog = file_dialog(self.window, "referenceFileDialog", "Evaluator reference file (never shown to the agent)",
                             "", QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda name: self._add_reference_from(Path(name)) if name else None)
        dialog.open()

    def _add_reference_from(self, source: Path) -> None:
        from studio.editing.ids import next_id
        from studio.editing.references import add_reference

        project = self.project
        existing = [r.id for r in project.references.references] if project.references else []
        current = self.explorer.current_object()
        scope = current[1] if current and current[0] in ("subtask", "rubric") else FINAL_SCOPE
        reference_id = next_id(existing, "R")

        def create(title: str) -> None:
            entry = {"id": reference_id, "title": title, "for": [scope]}
            self.push(lambda docs: add_reference(docs, entry, source), ("reference", reference_id))
        self.ask_text("addReferenceDialog", "Add evaluator reference",
                      f"Title of {reference_id} (for {scope}; judges read it, the agent never does):",
                      source.stem.replace("-", " ").replace("_", " ").capitalize(), create)

    # -- remove and rename -----------------------------------------------------------------
    def remove(self) -> None:
        current = self.explorer.current_object()
        if current is None or current[0] not in REMOVABLE:
            return
        kind, object_id = current
        if kind == "stage":
            from studio.editing.timeline import remove_stage
            self.push(lambda docs: remove_stage(docs, object_id))
        elif kind == "subtask":
            from studio.editing.timeline import remove_subtask
            self.push(lambda docs: remove_subtask(docs, object_id))
        elif kind == "material":
            from studio.editing.materials import remove_material
            self.push(lambda docs: remove_material(docs, object_id))
        elif kind == "handoff":
            from studio.editing.dependencies import remove_handoff
            handoffs = self.project.dependencies.handoffs if self.project.dependencies else []
            position = next((i for i, h in enumerate(handoffs) if f"{h.artifact}>{h.to}" == object_id), None)
            if position is not None:
                self.push(lambda docs: remove_handoff(docs, position))
        elif kind == "deliverable":
            from studio.editing.delivery import remove_deliverable
            self.push(lambda docs: remove_deliverable(docs, object_id))
        elif kind == "reference":
            from studio.editing.references import remove_reference
            self.push(lambda docs: remove_reference(docs, object_id))

    def move(self, step: int) -> None:
        """Move the current stage, or subtask, one place earlier (-1) or later (+1) on the timeline;
        a subtask at the edge of its stage moves into the neighbouring stage."""
        current = self.explorer.current_object()
        if current is None or current[0] not in MOVABLE:
            return
        kind, object_id = current
        stages = self.project.stages.stages if self.project.stages else []
        if kind == "stage":
            from studio.editing.timeline import move_stage
            target = [s.id for s in stages].index(object_id) + step
            if 0 <= target < len(stages):
                self.push(lambda docs: move_stage(docs, object_id, target), ("stage", object_id))
            return
        from studio.editing.timeline import move_subtask
        position = next((p for p, stage in enumerate(stages) if object_id in stage.subtasks), None)
        if position is None:
            return
        stage = stages[position]
        target = stage.subtasks.index(object_id) + step
        if 0 <= target < len(stage.subtasks):
            stage_id, index = stage.id, target
        elif 0 <= position + step < len(stages):
            neighbour = stages[position + step]
            stage_id, index = neighbour.id, (len(neighbour.subtasks) if step < 0 else 0)
        else:
            return
        self.push(lambda docs: move_subtask(docs, object_id, stage_id, index), ("subtask", object_id))

    def rename(self) -> None:
        current = self.explorer.current_object()
        if current is None or current[0] not in RENAMABLE:
            return
        kind, old = current

        def apply(new: str) -> None:
            from studio.editing.rename import rename
            from studio.gui.widgets.rename_preview import preview_then_apply

            context = self.shell.context
            if new == old or context is None:
                return
            try:
                command = rename(context.session.documents, kind, old, new)
            except StudioError as error:
                self.shell.show_error(error)
                return
            preview_then_apply(self.window, context.session.documents, command,
                               lambda built: self.push(lambda _docs: built, (kind, new)))
        self.ask_text("renameDialog", f"Rename {kind}", f"New id of {kind} {old} (every reference to it follows):",
                      old, apply)
