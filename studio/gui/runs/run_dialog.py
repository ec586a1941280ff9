"""Start a run (`runDialog`): the harness (a script or one of the CLI-agent presets), the image
(from the engine's local images, read on the background helper), the container's limits, the
network switch and the runs folder.

Start checks everything on the background helper (`create_run`: project, harness, engine, image)
while the dialog stays open: a missing engine, a missing image or a bad harness is said in the
dialog (`runDialogMessage`) in words, and the dialog closes only once the run is started."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.tasks import TaskRunner
from studio.runs import overview as runs_data

SCRIPT = "script"
DEFAULT_CPUS = 2.0
DEFAULT_MEMORY_GIB = 8
ERROR_STYLE = "#runDialogMessage { background: #fdecea; color: #8c1d18; border: 1px solid #f0b8b3; padding: 6px; }"
INFO_STYLE = "#runDialogMessage { color: palette(text); padding: 6px; }"


@dataclass(frozen=True)
class RunRequest:
    """What the dialog asks for, as `create_run` takes it."""

    harness: str  # "script:/abs/path" or a preset name
    image: str
    cpus: float
    memory_gib: int
    network: bool
    runs_dir: Path


Submit = Callable[[RunRequest, Callable[[], None], Callable[[StudioError], None]], None]
"""(request, on_started, on_error): starts the run; the dialog closes on `on_started`."""


class RunDialog(QDialog):
    def __init__(self, runner: TaskRunner, runs_dir: Path, submit: Submit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runDialog")
        self.setWindowTitle("New run")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.runner = runner
        self.submit = submit
        self.preparing = False

        self.harness = QComboBox(self)
        self.harness.setObjectName("runHarness")
        self.harness.addItem("Script (runs once per subtask in the workspace)", SCRIPT)
        self.script = QLineEdit(self)
        self.script.setObjectName("runScript")
        self.script.setPlaceholderText("/path/to/harness.sh")
        self.script_browse = QPushButton("Browse…", self)
        self.script_browse.setObjectName("runScriptBrowse")
        self.script_browse.clicked.connect(self._browse_script)
        self.image = QComboBox(self)
        self.image.setObjectName("runImage")
        self.image.setEditable(True)
        self.image.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.image_edit = QLineEdit(self.image)
        self.image_edit.setObjectName("runImageEdit")
        self.image.setLineEdit(self.image_edit)
        self.image_edit.setPlaceholderText("Reading the engine's images…")
        self.image.setMinimumContentsLength(28)
        self.cpus = QDoubleSpinBox(self)
        self.cpus.setObjectName("runCpus")
        self.cpus.setRange(0.5, 256)
        self.cpus.setSingleStep(0.5)
        self.cpus.setDecimals(1)
        self.cpus.setValue(DEFAULT_CPUS)
        self.memory = QSpinBox(self)
        self.memory.setObjectName("runMemory")
        self.memory.setRange(1, 1024)
        self.memory.setSuffix(" GiB")
        self.memory.setValue(DEFAULT_MEMORY_GIB)
        self.network = QCheckBox("Let the agent reach the network", self)
        self.network.setObjectName("runNetwork")
        self.network.setChecked(False)
        self.runs_dir = QLineEdit(str(runs_dir), self)
        self.runs_dir.setObjectName("runRunsDir")
        runs_browse = QPushButton("Browse…", self)
        runs_browse.setObjectName("runRunsDirBrowse")
        runs_browse.clicked.connect(self._browse_runs_dir)
        self.message = QLabel(self)
        self.message.setObjectName("runDialogMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()

        script_row = QHBoxLayout()
        script_row.addWidget(self.script, 1)
        script_row.addWidget(self.script_browse)
        runs_row = QHBoxLayout()
        runs_row.addWidget(self.runs_dir, 1)
        runs_row.addWidget(runs_browse)
        form = QFormLayout()
        form.addRow("&Harness:", self.harness)
        form.addRow("&Script:", script_row)
        form.addRow("&Image:", self.image)
        form.addRow("&CPUs:", self.cpus)
        form.addRow("&Memory:", self.memory)
        form.addRow("", self.network)
        form.addRow("&Runs folder:", runs_row)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.start_button = self.buttons.addButton("&Start run", QDialogButtonBox.ButtonRole.AcceptRole)
        self.start_button.setObjectName("runStartButton")
        self.start_button.setDefault(True)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.resize(620, self.sizeHint().height())

        self.harness.currentIndexChanged.connect(self._harness_changed)
        self.runner.run("Reading the harness presets", runs_data.presets, self._presets_read, self.show_error)
        self.runner.run("Reading the engine's images", runs_data.local_images, self._images_read,
                        self._images_failed)

    # -- filling the lists -----------------------------------------------------------------
    def _presets_read(self, presets: list[runs_data.PresetChoice]) -> None:
        for preset in presets:
            self.harness.addItem(preset.label, preset.name)
            self.harness.setItemData(self.harness.count() - 1,
                                     f"Needs {preset.key_variable} in the environment or the OS keyring "
                                     "(never written to the project, the run or a log); docs/runs.md",
                                     Qt.ItemDataRole.ToolTipRole)

    def _images_read(self, images: list[str]) -> None:
        typed = self.image.currentText()
        self.image.clear()
        self.image.addItems(images)
        self.image_edit.setPlaceholderText("an image on the local engine" if images else
                                                 "no image on the engine yet: build one (docs/runs.md)")
        self.image.setEditText(typed or (images[0] if images else ""))

    def _images_failed(self, error: StudioError) -> None:
        self.image_edit.setPlaceholderText("type the image's name")
        self.show_error(error)

    def _harness_changed(self) -> None:
        is_script = self.harness.currentData() == SCRIPT
        self.script.setEnabled(is_script)
        self.script_browse.setEnabled(is_script)

    def _browse_script(self) -> None:
        from studio.gui.widgets.dialogs import file_dialog

        dialog = file_dialog(self, "runScriptFileDialog", "Harness script", str(Path(self.script.text()).parent),
                             QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self.script.setText(path) if path else None)
        dialog.open()

    def _browse_runs_dir(self) -> None:
        from studio.gui.widgets.dialogs import file_dialog

        dialog = file_dialog(self, "runRunsDirFileDialog", "Runs folder", self.runs_dir.text(),
                             QFileDialog.FileMode.Directory)
        dialog.fileSelected.connect(lambda path: self.runs_dir.setText(path) if path else None)
        dialog.open()

    # -- starting --------------------------------------------------------------------------
    def request(self) -> RunRequest | str:
        """The run asked for, or what is missing from the form."""
        if self.harness.currentData() == SCRIPT:
            script = self.script.text().strip()
            if not script:
                return "Choose the script the harness runs (Browse…): it runs once per subtask in the workspace."
            path = Path(script).expanduser()
            if not path.is_file():
                return f"{path}: there is no such file; choose the harness script again."
            harness = f"script:{path.resolve()}"
        else:
            harness = str(self.harness.currentData())
        image = self.image.currentText().strip()
        if not image:
            return "Pick the image the agent runs in (build one first when the list is empty: docs/runs.md)."
        runs_dir = self.runs_dir.text().strip()
        if not runs_dir:
            return "Choose the folder the run is kept in (by default the project's runs/ folder)."
        return RunRequest(harness, image, self.cpus.value(), self.memory.value(), self.network.isChecked(),
                          Path(runs_dir).expanduser())

    def start(self) -> None:
        if self.preparing:
            return
        request = self.request()
        if isinstance(request, str):
            self.show_message(request, error=True)
            return
        self.preparing = True
        self.start_button.setEnabled(False)
        self.show_message("Checking the project, the harness, the engine and the image…", error=False)
        self.submit(request, self._started, self._refused)

    def _started(self) -> None:
        self.preparing = False
        self.accept()

    def _refused(self, error: StudioError) -> None:
        self.preparing = False
        self.start_button.setEnabled(True)
        self.show_error(error)

    def show_error(self, error: StudioError) -> None:
        self.show_message(str(error), error=True)

    def show_message(self, text: str, error: bool) -> None:
        self.message.setStyleSheet(ERROR_STYLE if error else INFO_STYLE)
        self.message.setText(text)
        self.message.show()
