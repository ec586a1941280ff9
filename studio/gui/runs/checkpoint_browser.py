"""The checkpoint browser (`checkpointBrowser`), a window per run: pick one of the run's checkpoints
(one per subtask, and the final package), see its file tree and preview a file with the app's
material preview, compare it with another checkpoint (`checkpointDiff`: files added, removed and
changed, and the text diff of the one selected), and export it as a folder or a `.tar.gz`.

Manifests, text diffs and exports are read and written on the background helper. A file is
previewed straight from the store: a link named like the file (the preview picks its view by
the suffix) to the stored content, in a scratch folder removed with the window."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QColor,
    QFontDatabase,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.tasks import TaskRunner
from studio.gui.runs.checkpoint_models import PATH_ROLE, CheckpointDiffModel, ManifestTreeModel
from studio.gui.widgets.preview import MaterialPreview
from studio.runs import overview as runs_data
from studio.runs.overview import RunView
from studio.untrusted import shown
from studio.views.formats import file_size

if TYPE_CHECKING:
    from studio.runs.store import CheckpointDiff, Manifest

NO_COMPARISON = ""


class DiffHighlighter(QSyntaxHighlighter):
    """Unified-diff colours: added lines green, removed red, hunk headers blue."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.formats: dict[str, QTextCharFormat] = {}
        for key, foreground, background in (
            ("+", "#14532d", "#e6f4ea"),
            ("-", "#7f1d1d", "#fdecea"),
            ("@", "#1c4f8c", "#eef3fb"),
            ("f", "#444444", ""),
        ):
            text_format = QTextCharFormat()
            text_format.setForeground(QColor(foreground))
            if background:
                text_format.setBackground(QColor(background))
            self.formats[key] = text_format

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt naming)
        if text.startswith(("+++", "---")):
            key = "f"
        elif text[:1] in ("+", "-", "@"):
            key = text[:1]
        else:
            return
        self.setFormat(0, len(text), self.formats[key])


class CheckpointBrowser(QWidget):
    """Browse, preview, compare and export the checkpoints of one run."""

    loaded = Signal()
    """The run's manifests are read and the first checkpoint is shown."""
    diff_shown = Signal()
    """The changes between the two checkpoints picked are listed."""
    text_diff_shown = Signal(str)
    """(path) the text diff of a changed file is shown."""
    exported = Signal(str)
    """(path written) an export finished."""

    def __init__(self, run: RunView, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("checkpointBrowser")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(f"Checkpoints of run {run.run_id}")
        self.run = run
        self.runner = runner
        self.manifests: dict[str, Manifest] = {}
        self.diff: CheckpointDiff | None = None
        self._scratch = Path(tempfile.mkdtemp(prefix="dbstudio-checkpoint-"))
        self._generation = 0

        self.picker = QComboBox(self)
        self.picker.setObjectName("checkpointPicker")
        self.compare = QComboBox(self)
        self.compare.setObjectName("checkpointCompareWith")
        self.compare.addItem("(no comparison)", NO_COMPARISON)
        for label, manifest_id in run.checkpoints():
            text = "final package" if label == "final" else f"after {label}"
            self.picker.addItem(text, manifest_id)
            self.compare.addItem(text, manifest_id)
        self.picker.setCurrentIndex(self.picker.count() - 1)
        self.summary = QLabel(self)
        self.summary.setObjectName("checkpointSummary")
        export_menu = QMenu(self)
        self.action_export_folder = export_menu.addAction("As a &folder…", self.export_folder)
        self.action_export_folder.setObjectName("checkpointExportFolderAction")
        self.action_export_tar = export_menu.addAction("As a .&tar.gz…", self.export_tar)
        self.action_export_tar.setObjectName("checkpointExportTarAction")
        export = QToolButton(self)
        export.setObjectName("checkpointExportButton")
        export.setText("Export…")
        export.setMenu(export_menu)
        export.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        top = QHBoxLayout()
        for text, box in (("&Checkpoint:", self.picker), ("Compare &with:", self.compare)):
            caption = QLabel(text, self)
            caption.setBuddy(box)
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            top.addWidget(caption)
            top.addWidget(box)
            top.addSpacing(16)
        top.takeAt(top.count() - 1)
        top.addSpacing(16)
        top.addWidget(self.summary, 1)
        top.addWidget(export)

        # files: the tree and a preview
        self.tree_model = ManifestTreeModel(self)
        self.tree = QTreeView(self)
        self.tree.setObjectName("checkpointTree")
        self.tree.setModel(self.tree_model)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setStretchLastSection(False)
        self.tree.setColumnWidth(1, 90)
        self.tree.selectionModel().currentChanged.connect(self._file_selected)
        self.preview = MaterialPreview(runner, self)
        self.preview_note = QLabel(self)
        self.preview_note.setTextFormat(Qt.TextFormat.PlainText)  # it shows the agent's names: never as HTML
        self.preview_note.setObjectName("checkpointPreviewNote")
        self.preview_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.preview_note.setWordWrap(True)
        self.preview_stack = QStackedWidget(self)
        self.preview_stack.setObjectName("checkpointPreview")
        self.preview_stack.addWidget(self.preview)
        self.preview_stack.addWidget(self.preview_note)
        files = QSplitter(Qt.Orientation.Horizontal, self)
        files.setObjectName("checkpointFiles")
        files.addWidget(self.tree)
        files.addWidget(self.preview_stack)
        files.setSizes([360, 740])
        remember_splitter(files, "checkpoints/tree-preview")

        # changes: the list and the text diff
        self.diff_model = CheckpointDiffModel(self)
        self.changes = QTableView(self)
        self.changes.setObjectName("checkpointChanges")
        self.changes.setModel(self.diff_model)
        self.changes.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.changes.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.changes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.changes.verticalHeader().setVisible(False)
        self.changes.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.changes.setWordWrap(False)
        header = self.changes.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.changes.setColumnWidth(0, 76)
        self.changes.setColumnWidth(2, 120)
        self.changes.selectionModel().currentRowChanged.connect(self._change_selected)
        self.text_diff = QPlainTextEdit(self)
        self.text_diff.setObjectName("checkpointTextDiff")
        self.text_diff.setReadOnly(True)
        self.text_diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # prose lines are long
        self.text_diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text_diff.setPlaceholderText("Select a changed file to see its text diff.")
        self.highlighter = DiffHighlighter(self.text_diff.document())
        self.diff_view = QSplitter(Qt.Orientation.Horizontal, self)
        self.diff_view.setObjectName("checkpointDiff")
        self.diff_view.addWidget(self.changes)
        self.diff_view.addWidget(self.text_diff)
        self.diff_view.setSizes([480, 720])
        remember_splitter(self.diff_view, "checkpoints/changes-diff")

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("checkpointTabs")
        self.tabs.addTab(files, "Files")
        self.tabs.addTab(self.diff_view, "Changes")
        self.tabs.setTabEnabled(1, False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        self.resize(1200, 760)

        self.picker.currentIndexChanged.connect(self._checkpoint_changed)
        self.compare.currentIndexChanged.connect(self._comparison_picked)
        self.summary.setText("Reading the checkpoints…")
        self._set_busy(True)
        ids = [manifest_id for _label, manifest_id in run.checkpoints()]
        self.runner.run(
            "Reading the checkpoints", lambda: runs_data.manifests(run.run_dir, ids), self._loaded, self._error
        )

    # -- picking a checkpoint -----------------------------------------------------------------
    def _set_busy(self, busy: bool) -> None:
        for widget in (self.picker, self.compare):
            widget.setEnabled(not busy)

    def _loaded(self, manifests: dict[str, Manifest]) -> None:
        self.manifests = manifests
        self._set_busy(False)
        self._checkpoint_changed()
        self.loaded.emit()

    def current(self) -> Manifest | None:
        return self.manifests.get(self.picker.currentData())

    def compared(self) -> Manifest | None:
        return self.manifests.get(self.compare.currentData())

    def choose(self, label: str, compare_with: str | None = None) -> None:
        """Pick the checkpoint after `label` ("T02", or "final") and what to compare it with (None: nothing)."""
        self.picker.setCurrentIndex(self._position(self.picker, label))
        self.compare.setCurrentIndex(self._position(self.compare, compare_with) if compare_with else 0)

    def _position(self, box: QComboBox, label: str) -> int:
        ids = dict(self.run.checkpoints())
        if label not in ids:
            raise ValueError(f"run {self.run.run_id} has no checkpoint {label}")
        return box.findData(ids[label])

    def _checkpoint_changed(self) -> None:
        manifest = self.current()
        self.tree_model.set_manifest(manifest)
        self._show_path(None)
        if manifest is not None:
            self.tree.expandToDepth(0)
        self._compare_changed()

    def _comparison_picked(self) -> None:
        self._compare_changed()
        if self.diff is not None:
            self.tabs.setCurrentWidget(self.diff_view)  # what the user asked to see

    def _compare_changed(self) -> None:
        after, before = self.current(), self.compared()
        self._generation += 1
        self.text_diff.clear()
        if after is None:
            self.summary.setText("")
            return
        files = after.files()
        summary = f"{len(files)} file{'s' if len(files) != 1 else ''}, {file_size(after.total_bytes())}"
        if before is None:
            self.diff = None
            self.diff_model.set_diff(None)
            self.tabs.setTabEnabled(1, False)
            self.summary.setText(summary)
            return
        diff = runs_data.store_of(self.run.run_dir).diff(before, after)  # a walk over two dicts: no file read
        self.diff = diff
        self.diff_model.set_diff(diff, before, after)
        self.tabs.setTabEnabled(1, True)
        self.tabs.setTabText(1, f"Changes since {self.compare.currentText().removeprefix('after ')}")
        self.summary.setText(
            f"{summary} — {len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed"
        )
        self.diff_shown.emit()
        if self.diff_model.rowCount():
            self.changes.selectRow(0)

    # -- files ---------------------------------------------------------------------------------
    def _file_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_path(current.data(PATH_ROLE) if current.isValid() else None)

    def select_file(self, path: str) -> None:
        index = self.tree_model.index_of(path)
        if index.isValid():
            self.tree.setCurrentIndex(index)

    def _show_path(self, path: str | None) -> None:
        manifest = self.current()
        entry = manifest.entries.get(path) if manifest is not None and path else None
        if entry is None or entry.kind != "file" or entry.sha256 is None:
            self.preview.show_file(None)
            self.preview_note.setText(
                "Select a file to preview it."
                if entry is None
                else f"{shown(path or '')} is a symbolic link to {shown(entry.target or '')}"
                if entry.kind == "link"
                else f"{shown(path or '')} is an empty folder"
            )
            self.preview_stack.setCurrentWidget(self.preview_note)
            return
        assert path is not None
        self.preview_stack.setCurrentWidget(self.preview)
        self.preview.show_file(self._viewable(path, entry.sha256))

    def _viewable(self, path: str, sha256: str) -> Path:
        """The stored content under the file's own name (the preview chooses its view by the suffix)."""
        link = self._scratch / sha256[:16] / Path(path).name
        if not link.is_symlink():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(runs_data.store_of(self.run.run_dir).object_path(sha256))
        return link

    # -- changes -------------------------------------------------------------------------------
    def _change_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        path = current.data(PATH_ROLE) if current.isValid() else None
        after, before = self.current(), self.compared()
        if path is None or after is None or before is None:
            return
        self._generation += 1
        generation = self._generation
        run_dir = self.run.run_dir
        self.text_diff.setPlainText(f"Reading {path}…")

        def shown(text: str | None) -> None:
            if generation != self._generation:
                return
            self.text_diff.setPlainText(
                text
                if text
                else f"{path}: not a text file (or over 8 MiB): no text diff to show."
                if text is None
                else f"{path}: the contents are the same (its mode changed)."
            )
            self.text_diff.moveCursor(QTextCursor.MoveOperation.Start)
            self.text_diff_shown.emit(path)

        self.runner.run(
            f"Comparing {path}", lambda: runs_data.store_of(run_dir).text_diff(before, after, path), shown, self._error
        )

    def select_change(self, path: str) -> None:
        row = self.diff_model.row_of(path)
        if row >= 0:
            self.changes.selectRow(row)

    # -- export --------------------------------------------------------------------------------
    def export_folder(self) -> None:
        from studio.gui.widgets.dialogs import file_dialog

        dialog = file_dialog(
            self,
            "checkpointExportFolderDialog",
            "Export the checkpoint into a new folder",
            str(Path.home()),
            QFileDialog.FileMode.AnyFile,
        )
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.fileSelected.connect(lambda path: self.export_to(Path(path), tar=False) if path else None)
        dialog.open()

    def export_tar(self) -> None:
        from studio.gui.widgets.dialogs import file_dialog

        dialog = file_dialog(
            self,
            "checkpointExportTarDialog",
            "Export the checkpoint as a .tar.gz",
            str(Path.home()),
            QFileDialog.FileMode.AnyFile,
        )
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("Compressed tar archives (*.tar.gz)")
        dialog.fileSelected.connect(lambda path: self.export_to(Path(path), tar=True) if path else None)
        dialog.open()

    def export_to(self, out: Path, tar: bool) -> None:
        """Write the checkpoint shown to `out` (a new folder, or a .tar.gz) on the background helper."""
        manifest = self.current()
        if manifest is None:
            return
        if tar and not out.name.endswith(".tar.gz"):
            out = out.with_name(out.name + ".tar.gz")
        store = runs_data.store_of(self.run.run_dir)
        write = store.export_tar if tar else store.export_folder
        self.summary.setText(f"Exporting to {out}…")

        def done(_result: Any) -> None:
            self.summary.setText(f"Exported to {out}")
            self.exported.emit(str(out))

        self.runner.run(f"Exporting to {out.name}", lambda: write(manifest, out), done, self._error)

    # -- errors and closing ----------------------------------------------------------------------
    def _error(self, error: StudioError) -> None:
        self._set_busy(False)
        self.summary.setText(str(error))
        self.summary.setStyleSheet("color: #8c1d18;")

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt naming)
        self.preview.show_file(None)  # the reader is closed on the helper before the links go
        scratch = self._scratch
        self.runner.run(
            "Closing the checkpoint browser", lambda: shutil.rmtree(scratch, ignore_errors=True), lambda _result: None
        )
        super().closeEvent(event)
