"""The material editor: title, kind, provenance, release point, what it corrects, its file (or,
for scripted feedback, the generated release: the script and the agent outputs it reads)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QComboBox, QGroupBox, QHBoxLayout, QLabel, QPushButton, QWidget

from studio.editing.list_items import toggle_id
from studio.editing.materials import set_release
from studio.gui.project.editors.base import ObjectForm, form_layout
from studio.gui.project.editors.widgets import CheckList
from studio.gui.widgets.preview import MaterialPreview
from studio.model.availability import outputs_before
from studio.model.schedule import Material, MaterialKind, Provenance
from studio.store import layout
from studio.views.formats import enum_choices, file_size


class MaterialEditor(ObjectForm):
    kind = "material"
    heading = "Material"

    def build(self) -> None:
        self.setObjectName("materialEditor")
        self.setAcceptDrops(True)
        self.add_readonly("Id", lambda m: m.id, "materialId")
        self.add_line("Title", "title", lambda m: m.title)
        self.add_combo("Kind", "kind", lambda m: m.kind.value, enum_choices(MaterialKind), name="materialKind")
        self.add_combo("Provenance", "provenance", lambda m: m.provenance.value, enum_choices(Provenance),
                       name="materialProvenance")
        self.release = QComboBox(self.body)
        self.release.setObjectName("materialRelease")
        self.release.activated.connect(self._pick_release)
        self.add_row("Released", self.release, "When the agent first sees this material.")

        file_row = QWidget(self.body)
        file_layout = QHBoxLayout(file_row)
        file_layout.setContentsMargins(0, 0, 0, 0)
        self.file_label = QLabel(file_row)
        self.file_label.setObjectName("materialFile")
        self.file_label.setWordWrap(True)
        self.open_button = QPushButton("Open", file_row)
        self.open_button.setObjectName("materialOpen")
        self.open_button.setAutoDefault(False)
        self.open_button.clicked.connect(self._open_file)
        self.replace_button = QPushButton("Replace…", file_row)
        self.replace_button.setObjectName("materialReplace")
        self.replace_button.setAutoDefault(False)
        self.replace_button.setToolTip("Put another file in place of this one: the material keeps its id, its "
                                       "release and everything that names it")
        self.replace_button.clicked.connect(self._choose_replacement)
        file_layout.addWidget(self.file_label, 1)
        file_layout.addWidget(self.open_button)
        file_layout.addWidget(self.replace_button)
        self.add_row("File", file_row, "Replace…, or drop a file on this editor, to put another file in its place.")

        self.corrects = CheckList(self.body)
        self.corrects.setObjectName("materialCorrects")
        self.corrects.toggled.connect(self._toggle_corrects)
        self.add_row("Corrects", self.corrects, "Earlier materials whose content this one changes.")

        self.generated_box = QGroupBox("Generated release (scripted feedback)", self.body)
        generated_form = form_layout()
        self.script = QComboBox(self.generated_box)
        self.script.setObjectName("generatedScript")
        self.script.activated.connect(self._pick_script)
        self.reads = CheckList(self.generated_box)
        self.reads.setObjectName("generatedFrom")
        self.reads.toggled.connect(self._toggle_reads)
        generated_form.addRow("Script:", self.script)
        generated_form.addRow("Reads:", self.reads)
        self.generated_box.setLayout(generated_form)
        self.body_layout.addWidget(self.generated_box)

        # the material's file as the agent will see it (on the window's background helper)
        self.preview = MaterialPreview(self.context.runner, self.body)
        self.preview.setMinimumHeight(320)
        self.body_layout.addWidget(self.preview, 1)

    def current(self) -> Material | None:
        return self.project.material(self.object_id)

    def files(self) -> set[str]:
        return {layout.STAGES_FILE, layout.MATERIALS_FILE}

    def show_extra(self, material: Material | None) -> None:
        project = self.project
        self.release.blockSignals(True)
        self.release.clear()
        self.release.addItem("At start", None)
        for number, sid in enumerate(project.timeline(), start=1):
            subtask = project.subtasks.get(sid)
            self.release.addItem(f"Before {sid} ({number}. {subtask.title if subtask else 'no folder'})", sid)
        wanted = material.release.subtask if material and material.release.at == "before" else None
        self.release.setCurrentIndex(max(self.release.findData(wanted), 0))
        self.release.blockSignals(False)

        if material is not None and material.file:
            rel = f"{layout.MATERIALS_DIR}/{material.file}"
            data = self.documents.read_bytes(rel) if self.documents.exists(rel) else None
            size = file_size(len(data)) if data is not None else "missing: the file is not in materials/"
            self.file_label.setText(f"{material.file}  ({size})")
            self.open_button.setEnabled(data is not None)
            self.replace_button.setEnabled(True)
            self.preview.show_file(self.documents.viewable_path(rel))  # unsaved content included
        else:
            self.file_label.setText("generated at release time" if material and material.generated else "(none)")
            self.open_button.setEnabled(False)
            self.replace_button.setEnabled(False)
            self.preview.show_file(None)

        mine = project.release_position(material) if material else None
        earlier = []
        for other in project.materials.materials if project.materials else []:
            if material is None or other.id == material.id:
                continue
            position = project.release_position(other)
            if position is not None and mine is not None and position <= mine:
                earlier.append(other)
        chosen = list(material.corrects) if material else []
        items = [(m.id, f"{m.id} — {m.title}", m.id in chosen, "") for m in earlier]
        items += [(mid, f"{mid} — not released earlier: untick it", True, "") for mid in chosen
                  if mid not in {m.id for m in earlier}]
        self.corrects.set_items(items)

        generated = material.generated if material else None
        self.generated_box.setVisible(generated is not None)
        if generated is not None:
            scripts = [rel for rel in self.documents.files_under(layout.SCRIPTS_DIR)
                       if not PurePosixPath(rel).name.startswith(".")]
            choices = scripts if generated.script in scripts else [generated.script, *scripts]
            self.script.blockSignals(True)
            self.script.clear()
            for rel in choices:
                self.script.addItem(rel if rel in scripts else f"{rel} (missing)", rel)
            self.script.setCurrentIndex(self.script.findData(generated.script))
            self.script.blockSignals(False)
            offered = outputs_before(project, mine)
            items = [(ref, ref, ref in generated.from_artifacts, "") for ref in offered]
            items += [(ref, f"{ref} (not produced before the release)", True, "")
                      for ref in generated.from_artifacts if ref not in offered]
            self.reads.set_items(items)

    # -- edits -----------------------------------------------------------------------------
    def _pick_release(self) -> None:
        material = self.current()
        before = self.release.currentData()
        if material is None or (material.release.subtask if material.release.at == "before" else None) == before:
            return
        self.apply(lambda d: set_release(d, self.object_id, before))

    def _toggle_corrects(self, material_id: str, on: bool) -> None:
        order = self.corrects.ids()
        self.apply(lambda d: toggle_id(d, "material", self.object_id, "corrects", material_id, on, order,
                                       drop_empty=True))

    def _pick_script(self) -> None:
        material = self.current()
        script = self.script.currentData()
        if material is None or material.generated is None or material.generated.script == script:
            return
        self._finish_value("generated.script", lambda m: m.generated.script, script)

    def _toggle_reads(self, ref: str, on: bool) -> None:
        order = self.reads.ids()
        self.apply(lambda d: toggle_id(d, "material", self.object_id, "generated.from", ref, on, order))

    def _open_file(self) -> None:
        material = self.current()
        if material is not None and material.file:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.documents.root / layout.MATERIALS_DIR /
                                                            material.file)))

    # -- replace the file: Replace… or a drop ------------------------------------------------
    def _choose_replacement(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        from studio.gui.widgets.dialogs import file_dialog

        dialog = file_dialog(self, "replaceMaterialFileDialog", f"Replace the file of {self.object_id}",
                             str(self.documents.root / layout.MATERIALS_DIR), QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda chosen: self.replace_file(Path(chosen)))
        dialog.open()

    def replace_file(self, source: Path) -> bool:
        """Put `source` in place of the material's file, as one undo step (a refusal is shown above the form)."""
        from studio.editing.materials import replace_material_file

        return self.apply(lambda documents: replace_material_file(documents, self.object_id, source))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt naming)
        urls = event.mimeData().urls()
        material = self.current()
        if material is not None and material.file and len(urls) == 1 and urls[0].isLocalFile():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt naming)
        material = self.current()
        urls = event.mimeData().urls()
        if material is None or not material.file or len(urls) != 1 or not urls[0].isLocalFile():
            return
        self.replace_file(Path(urls[0].toLocalFile()))
        event.acceptProposedAction()
